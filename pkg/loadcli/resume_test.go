package loadcli

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/runner"
)

// countTarget keeps row counts in memory; failAt refuses that batch.
type countTarget struct {
	load.Unsupported
	mu     sync.Mutex
	rows   map[string]int64
	failAt int64
}

func (m *countTarget) Accepts(format.Format) error                        { return nil }
func (m *countTarget) Prepare(context.Context, load.PrepareOptions) error { return nil }
func (m *countTarget) NewWriter(context.Context, int) (load.Writer, error) {
	return countWriter{m}, nil
}
func (m *countTarget) Close() error { return nil }
func (m *countTarget) InDoubt(context.Context, []string) (load.InDoubt, error) {
	return load.ResendInDoubt, nil
}
func (m *countTarget) Count(_ context.Context, tables []string) (map[string]int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]int64{}
	for _, t := range tables {
		out[t] = m.rows[t]
	}
	return out, nil
}

type countWriter struct{ m *countTarget }

func (w countWriter) Close() error { return nil }
func (w countWriter) Write(_ context.Context, b *load.Batch) (load.Ack, error) {
	w.m.mu.Lock()
	defer w.m.mu.Unlock()
	if b.Seq == w.m.failAt {
		return load.Ack{}, errors.New("refused")
	}
	for _, t := range b.Tables {
		w.m.rows[t.Name] += t.Rows
	}
	return load.Ack{Rows: b.Rows}, nil
}

func TestResumeFlags(t *testing.T) {
	in := writeILP(t) // 1,234 rows of cpu
	results := filepath.Join(t.TempDir(), "r.json")
	m := &countTarget{rows: map[string]int64{}, failAt: 4}
	var got runner.Config
	sp := Spec{
		Name: "load_test", Usage: "test loader", Target: "test",
		Flags: []cli.Flag{&cli.StringFlag{Name: "url", Value: "http://127.0.0.1:1"}},
		New: func(c *cli.Context, cfg runner.Config) (load.Target, Overrides, error) {
			got = cfg
			return m, Overrides{}, nil
		},
	}
	run := func(args ...string) (string, error) {
		var stderr bytes.Buffer
		err := Run(context.Background(), sp, append([]string{"load_test"}, args...), nil, &stderr)
		return stderr.String(), err
	}
	if _, err := run("--file", in, "--batch-size", "100", "--url", "http://db:1", "--results-file", results); err == nil {
		t.Fatal("the refused batch did not fail the run")
	}
	for _, c := range []struct{ args, want string }{
		{"--batch-size 50", "--batch-size 50 differs from the load's --batch-size 100"},
		{"--url http://other:1", "--url http://other:1 differs from the load's --url http://db:1"},
		{"--file " + in + "x", "--file differs from the load's inputs"},
		{"--drop-db", "--drop-db with --resume"},
	} {
		_, err := run(append([]string{"--resume", results}, strings.Fields(c.args)...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", c.args, err, c.want)
		}
	}
	m.failAt = -1
	stderr, err := run("--resume", results, "--workers", "1")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if got.BatchSize != 100 || got.Workers != 1 || len(got.Inputs) != 1 || got.ResultsFile != results || got.Flags["url"] != "http://db:1" {
		t.Fatalf("resumed with batch size %d, workers %d, inputs %v, results %q, url %q", got.BatchSize, got.Workers, got.Inputs, got.ResultsFile, got.Flags["url"])
	}
	if m.rows["cpu"] != 1234 || !strings.Contains(stderr, "resuming load") {
		t.Fatalf("cpu holds %d rows, want 1234\n%s", m.rows["cpu"], stderr)
	}
	stderr, err = run("--resume", results)
	if err != nil || !strings.Contains(stderr, "is complete") || !strings.Contains(stderr, "nothing to resume") || m.rows["cpu"] != 1234 {
		t.Fatalf("resume of a finished load: %v, cpu %d rows\n%s", err, m.rows["cpu"], stderr)
	}
}
