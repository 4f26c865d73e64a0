package contenttest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/runner"
)

// Load writes data (line protocol) to a file and loads it into tg through
// the runner with content verification, corrupt (when not nil) running
// between the last batch and verification (Corrupting). rc is the rest of
// the run (batch size, workers, Prepare, names); Inputs, DoLoad, Verify,
// VerifyContent and Stderr are set here, and ReportingPeriod is an hour
// when unset. It returns the results, the run's error and its stderr.
func Load(t testing.TB, tg load.Target, data string, corrupt func(ctx context.Context) error, rc runner.Config) (*load.Results, error, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "in.ilp")
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	rc.Inputs, rc.DoLoad, rc.Verify, rc.VerifyContent, rc.Stderr = []string{path}, true, true, true, &stderr
	if rc.ReportingPeriod == 0 {
		rc.ReportingPeriod = time.Hour
	}
	res, err := runner.Run(context.Background(), rc, Corrupting{Target: tg, Corrupt: corrupt})
	return res, err, stderr.String()
}

// Corrupting is a target that changes what the database holds behind the
// loader's back: once the last batch is acknowledged and before the
// runner verifies (its Finish hook, after the wrapped target's), it calls
// Corrupt. Everything else is the wrapped target's.
type Corrupting struct {
	load.Target
	Corrupt func(ctx context.Context) error
}

// Hooks are the wrapped target's, with Finish then corrupting.
func (c Corrupting) Hooks() load.Hooks {
	h := c.Target.Hooks()
	finish := h.Finish
	h.Finish = func(ctx context.Context) error {
		if finish != nil {
			if err := finish(ctx); err != nil {
				return err
			}
		}
		if c.Corrupt == nil {
			return nil
		}
		if err := c.Corrupt(ctx); err != nil {
			return fmt.Errorf("corrupting the database: %w", err)
		}
		return nil
	}
	return h
}
