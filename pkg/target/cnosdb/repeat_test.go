package cnosdb

import (
	"bytes"
	"context"
	"testing"

	"github.com/tsload/tsload/internal/gentest"
	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/runner"
)

// TestRunnerRepeatedKeys: an input that repeats (series, time) keys (with
// other values) loads with the default count verification: CnosDB holds
// the distinct keys, and the load passes saying how many rows repeated
// (it failed "row counts differ" before the distinct-key pass).
func TestRunnerRepeatedKeys(t *testing.T) {
	tg := realTarget(t, nil)
	path, rows := gentest.RepeatedKeys(t)
	var stderr bytes.Buffer
	res, err := runner.Run(context.Background(), runnerConfig(path, tg.cfg.DBName, &stderr), tg)
	loadtest.RepeatedKeysVerified(t, res, err, stderr.String(), rows)
}
