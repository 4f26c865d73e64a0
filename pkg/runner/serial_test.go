package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsload/tsload/pkg/results"
)

func TestSerializationOf(t *testing.T) {
	noLoad := &results.Results{RowsRead: 1000, Bytes: 4 * mib, Seconds: 0.5}
	sent := &results.Results{Rows: 500, RowsRead: 1000, Bytes: 4 * mib, Seconds: 2}
	got := *serializationOf(noLoad, sent)
	want := results.Serialization{SerializedRowsPerSec: 2000, SerializedMiBPerSec: 8, SentRowsPerSec: 250, SentMiBPerSec: 1}
	if got != want {
		t.Errorf("serializationOf = %+v, want %+v", got, want)
	}
	if z := *serializationOf(nil, &results.Results{}); z != (results.Serialization{}) {
		t.Errorf("zero seconds: %+v", z)
	}
}

// TestSerializationPass: the pass reads the inputs once without the target
// before loading them; both rates reach the results file and stderr.
func TestSerializationPass(t *testing.T) {
	path, _ := ilpInput(t, 5000)
	f := newFake()
	cfg := baseConfig(path)
	cfg.SerializationPass = true
	cfg.ResultsFile = filepath.Join(t.TempDir(), "r.json")
	var stderr bytes.Buffer
	cfg.Stderr = &stderr
	res, err := Run(context.Background(), cfg, f)
	if err != nil {
		t.Fatal(err)
	}
	if f.writers.Load() != int64(cfg.Workers) || res.Rows != 5000 {
		t.Fatalf("writers %d rows %d", f.writers.Load(), res.Rows)
	}
	raw, _ := os.ReadFile(cfg.ResultsFile)
	var got results.Results
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if z := got.Serialization; z == nil || z.SerializedRowsPerSec <= 0 || z.SentRowsPerSec <= 0 {
		t.Fatalf("serialization %+v", z)
	}
	if !strings.Contains(stderr.String(), "serialized:") {
		t.Errorf("stderr:\n%s", stderr.String())
	}

	// Stdin cannot be read twice: refused before Prepare.
	f = newFake()
	cfg = baseConfig()
	cfg.SerializationPass = true
	cfg.Stdin = strings.NewReader("cpu v=1 1\n")
	if _, err := Run(context.Background(), cfg, f); err == nil || !strings.Contains(err.Error(), "stdin cannot be read twice") || f.prepared != nil {
		t.Fatalf("stdin: err %v, prepared %v", err, f.prepared)
	}
}
