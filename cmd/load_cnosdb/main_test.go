package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsload/tsload/internal/cnosdbtest"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/loadcli"
)

func spec() loadcli.Spec {
	return loadcli.Spec{Name: "load_cnosdb", Target: "cnosdb", Flags: cnosdbFlags(), New: newTarget}
}

func TestMain_Load(t *testing.T) {
	s := cnosdbtest.New()
	defer s.Close()
	s.SetUsers(map[string]string{"root": "s3cret"})
	t.Setenv("CNOSDB_PASSWORD", "s3cret")
	dir := t.TempDir()
	in := filepath.Join(dir, "in.ilp")
	os.WriteFile(in, []byte("cpu,h=a v=1 1\ncpu,h=b v=2 1\nmem,h=a f=1i 2\n"), 0o644)
	results := filepath.Join(dir, "r.json")
	var stderr bytes.Buffer
	s.MemoryExhausted(1)
	err := loadcli.Run(context.Background(), spec(), []string{"load_cnosdb", "--urls", s.URL, "--file", in,
		"--db-name", "bench", "--db-ttl", "INF", "--db-shards", "2", "--gzip", "--results-file", results}, nil, &stderr)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if s.Rows("bench", "cpu") != 2 || s.Rows("bench", "mem") != 1 {
		t.Fatalf("server rows cpu %d mem %d", s.Rows("bench", "cpu"), s.Rows("bench", "mem"))
	}
	if opts, _ := s.Options("bench"); opts != "TTL 'INF' SHARD 2" {
		t.Fatalf("options %q", opts)
	}
	raw, _ := os.ReadFile(results)
	if strings.Contains(string(raw)+stderr.String(), "s3cret") {
		t.Fatal("the password appears in the results or on stderr")
	}
	var res load.Results
	if err := json.Unmarshal(raw, &res); err != nil || res.Status != load.StatusOK || res.Rows != 3 || res.Retries != 1 {
		t.Fatalf("results %+v %v", res, err)
	}
}

func TestMain_BadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--precision", "s"},
		{"--db-ttl", "forever and ever"},
		{"--urls", "ftp://x"},
	} {
		var stderr bytes.Buffer
		err := loadcli.Run(context.Background(), spec(), append([]string{"load_cnosdb", "--file", "/nonexistent"}, args...), nil, &stderr)
		if err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}
