package runner

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsload/tsload/pkg/load"
)

// TablePrefix: every line the target gets names P<measurement>, Prepare
// and verification see the prefixed names, and the input (read zero-copy)
// is not changed.
func TestTablePrefix(t *testing.T) {
	path, perTable := ilpInput(t, 5000)
	orig, _ := os.ReadFile(path)
	f := newFake()
	f.fail = func(b *load.Batch, _ int) (load.Ack, error) {
		for _, line := range bytes.Split(bytes.TrimSuffix(b.Data, []byte("\n")), []byte("\n")) {
			if !bytes.HasPrefix(line, []byte("p_")) {
				return load.Ack{}, fmt.Errorf("line without the prefix: %q", line)
			}
		}
		return load.Ack{Rows: b.Rows}, nil
	}
	cfg := baseConfig(path)
	cfg.TablePrefix = "p_"
	res, err := Run(context.Background(), cfg, f)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{}
	for n, c := range perTable {
		want["p_"+n] = c
	}
	if res.Verify == nil || !res.Verify.OK || fmt.Sprint(res.Verify.Actual) != fmt.Sprint(want) || f.prepared.TablePrefix != "p_" {
		t.Fatalf("verify %+v, prepared %+v", res.Verify, f.prepared)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, orig) {
		t.Error("the input file changed")
	}
	// A prefix that line protocol or SQL would read otherwise is refused
	// before anything is loaded.
	cfg.TablePrefix = "a b"
	f = newFake()
	if _, err := Run(context.Background(), cfg, f); err == nil || !strings.Contains(err.Error(), `table prefix "a b"`) || f.prepared != nil {
		t.Errorf("err %v, prepared %v", err, f.prepared)
	}
}

// The errors file holds a refused line as the input has it (without the
// prefix), so that it loads again with the same --table-prefix.
func TestTablePrefixErrorsFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "in.ilp")
	os.WriteFile(path, []byte("cpu,host=a v=1 1\ncpu,host=b v=2 2\n"), 0o644)
	f := newFake()
	f.fail = func(b *load.Batch, _ int) (load.Ack, error) {
		return load.Ack{Rows: b.Rows - 1, Rejected: []load.Rejection{{Line: 2, Reason: "no"}}}, nil
	}
	cfg := baseConfig(path)
	cfg.TablePrefix = "p_"
	cfg.SkipInvalid = true
	cfg.ErrorsFile = filepath.Join(t.TempDir(), "errors.ilp")
	if _, err := Run(context.Background(), cfg, f); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(cfg.ErrorsFile)
	if !strings.Contains(string(got), "\ncpu,host=b v=2 2\n") || strings.Contains(string(got), "p_cpu") {
		t.Errorf("errors file:\n%s", got)
	}
}
