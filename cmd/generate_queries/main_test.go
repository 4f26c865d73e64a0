package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsload/tsload/pkg/querybench"
)

func TestRun(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q.tsq")
	args := []string{"generate_queries", "--use-case", "iot", "--seed", "7", "--scale", "20", "--queries", "2",
		"--query-type", "last-loc, avg-load", "--file", path}
	if err := run(context.Background(), args, nil, nil); err != nil {
		t.Fatal(err)
	}
	set, err := querybench.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Queries) != 4 || set.Queries[1].Name != "avg-load" || set.Header.Seed != 7 || set.Header.Scale != 20 {
		t.Errorf("%+v", set.Header)
	}
	var out bytes.Buffer
	if err := run(context.Background(), append(args[:len(args)-2], "--file", "-"), &out, nil); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if !bytes.Equal(out.Bytes(), data) {
		t.Error("stdout and --file differ")
	}
}

func TestRunBad(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--use-case", "iot"}, "--seed is required"},
		{[]string{"--seed", "1", "--use-case", "weather"}, `use case "weather" has no queries`},
		{[]string{"--seed", "1", "--query-type", "lastpoint,nope"}, `"nope" is not one of cpu-only's`},
		{[]string{"--seed", "1", "--timestamp-start", "yesterday"}, "--timestamp-start"},
		{[]string{"--seed", "1", "--queries", "0"}, "0 queries per type"},
		{[]string{"--seed", "1", "extra"}, `unexpected argument "extra"`},
		{[]string{"--seed", "1", "--file", "/nonexistent/q.tsq"}, "no such file"},
	} {
		var errOut bytes.Buffer
		err := run(context.Background(), append([]string{"generate_queries"}, tc.args...), &bytes.Buffer{}, &errOut)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
}
