package loadtest

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/results"
	"github.com/tsload/tsload/pkg/runner"
)

// Run is one load through runner.Run with a results file.
type Run struct {
	Res     *results.Results
	Err     error
	Log     string // what the run wrote to stderr
	Results string // the results file
}

// FaultConfig is the runner configuration of a fault test: path loaded in
// batches of batch rows by workers, verified, re-sent for up to 60 s, with
// no periodic report. The caller adds Prepare, Loader and Target.
func FaultConfig(path string, batch, workers int) runner.Config {
	return runner.Config{
		Inputs: []string{path}, BatchSize: batch, Workers: workers, DoLoad: true, Verify: true,
		ReportingPeriod: time.Hour, RetryTimeout: 60 * time.Second,
	}
}

// RunLoad runs cfg against tg, with its stderr kept and a results file in
// a temporary directory.
func RunLoad(t testing.TB, cfg runner.Config, tg load.Target) Run {
	t.Helper()
	resultsPath := filepath.Join(t.TempDir(), "results.json")
	var stderr bytes.Buffer
	cfg.Stderr, cfg.ResultsFile = &stderr, resultsPath
	res, err := runner.Run(context.Background(), cfg, tg)
	return Run{Res: res, Err: err, Log: stderr.String(), Results: resultsPath}
}

// Exact fails the test unless the run succeeded and its results file says
// so, with rows rows, verified.
func (r Run) Exact(t testing.TB, rows int64) {
	t.Helper()
	if r.Err != nil {
		t.Fatalf("%v\n%s", r.Err, r.Log)
	}
	res := ReadResults(t, r.Results)
	if res.Status != results.StatusOK || res.Rows != rows || res.Verify == nil || !res.Verify.OK {
		t.Fatalf("results: status %s rows %d (want %d) verify %+v\n%s", res.Status, res.Rows, rows, res.Verify, r.Log)
	}
}
