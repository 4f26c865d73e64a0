package contenttest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/fingerprint"
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
// runner verifies (load.Finisher), it calls Corrupt. Everything else is
// the wrapped target's, including its optional abilities (Finish, Await,
// Overwrites, Content).
type Corrupting struct {
	load.Target
	Corrupt func(ctx context.Context) error
}

var (
	_ load.Finisher       = Corrupting{}
	_ load.Awaiter        = Corrupting{}
	_ load.Overwriter     = Corrupting{}
	_ load.ContentCounter = Corrupting{}
)

// Finish finishes the wrapped target, then corrupts.
func (c Corrupting) Finish(ctx context.Context) error {
	if f, ok := c.Target.(load.Finisher); ok {
		if err := f.Finish(ctx); err != nil {
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

// Await is the wrapped target's, if it has one.
func (c Corrupting) Await(ctx context.Context, want map[string]int64) error {
	if a, ok := c.Target.(load.Awaiter); ok {
		return a.Await(ctx, want)
	}
	return nil
}

// Overwrites is the wrapped target's.
func (c Corrupting) Overwrites() bool {
	o, ok := c.Target.(load.Overwriter)
	return ok && o.Overwrites()
}

// Content is the wrapped target's.
func (c Corrupting) Content(ctx context.Context, q []fingerprint.Query) (map[string]*fingerprint.Table, error) {
	return c.Target.(load.ContentCounter).Content(ctx, q)
}
