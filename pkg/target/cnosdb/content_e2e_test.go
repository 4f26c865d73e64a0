package cnosdb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/cnosdbtest"
	"github.com/tsload/tsload/internal/contenttest"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/runner"
)

// runContent loads contentILP through the runner with content
// verification (timestamps read as nanoseconds) into a fresh database, the
// target writing with precision and wrapped so that corrupt (when not
// nil) runs between the last batch and verification.
func runContent(t *testing.T, precision string, corrupt func(ctx context.Context, tg *Target) error) (*load.Results, error, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "in.ilp")
	if err := os.WriteFile(path, []byte(contentILP), 0o644); err != nil {
		t.Fatal(err)
	}
	base, db := cnosdbtest.RealDB(t)
	tg, err := New(Config{URLs: []string{base}, Tenant: "cnosdb", User: "root", Precision: precision, DBName: db, Gzip: true, GzipLevel: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	target := contenttest.Corrupting{Target: tg}
	if corrupt != nil {
		target.Corrupt = func(ctx context.Context) error { return corrupt(ctx, tg) }
	}
	var stderr bytes.Buffer
	rc := runnerConfig(path, db, &stderr)
	rc.BatchSize, rc.VerifyContent = 2, true
	res, err := runner.Run(context.Background(), rc, target)
	return res, err, stderr.String()
}

// TestRunnerContent: through the runner, the load verifies its content; a
// point rewritten with another value behind the loader's back fails
// naming the field; nanoseconds written with precision us (the way
// CnosDB once took precision s as ns) fail on the time range.
// errNotReadBack: CnosDB kept answering the old value of a rewritten point.
var errNotReadBack = errors.New("the rewritten point is not read back after 20 s")

func TestRunnerContent(t *testing.T) {
	res, err, log := runContent(t, "ns", nil)
	if err != nil || res.Verify == nil || !res.Verify.OK || res.Verify.Mode != "content" {
		t.Fatalf("clean load: %v %+v\n%s", err, res.Verify, log)
	}
	res, err, log = runContent(t, "ns", func(ctx context.Context, tg *Target) error {
		w, err := tg.NewWriter(ctx, 0)
		if err != nil {
			return err
		}
		rewrite := func() error {
			_, err := w.Write(ctx, batch("m,host=b i=-6i,u=18446744073709551615u 3000000000\n", 1))
			return err
		}
		if err = rewrite(); err != nil {
			return err
		}
		// CnosDB 2.4.2 answers a query right after the overwrite with the
		// old value, and once (a CI run) kept answering it for a minute:
		// wait until the new one is what it reads, writing it again every
		// 2 s (the same point: idempotent).
		start, again := time.Now(), time.Now().Add(2*time.Second)
		for deadline := start.Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(again) {
				if err := rewrite(); err != nil {
					return err
				}
				again = time.Now().Add(2 * time.Second)
			}
			rows, err := tg.SQL(ctx, tg.cfg.DBName, "SELECT i FROM m WHERE host = 'b'")
			if err != nil {
				return err
			}
			if len(rows) == 1 && fmt.Sprint(rows[0]["i"]) == "-6" {
				t.Logf("the rewritten point read back after %s", time.Since(start).Round(time.Millisecond))
				return nil
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("%w: %v", errNotReadBack, rows)
			}
		}
	})
	const want = `table "m" field "i": sum expected 18446744073709551609, found 18446744073709551608`
	if errors.Is(err, errNotReadBack) {
		// The database itself does not show the changed value (seen in
		// fresh-clone CI runs under the whole suite's load): there is
		// nothing a verification could detect. The field check of the
		// query is TestContent's; the time-range check below still runs.
		t.Logf("CnosDB did not read back the rewritten point within 20 s, so the rewritten-value check is not asserted in this run: %v", err)
	} else if err == nil || res == nil || res.Verify == nil || res.Verify.OK || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "rows expected") {
		t.Fatalf("after rewriting i=-5 as -6: %v\n%s", err, log)
	}
	res, err, log = runContent(t, "us", nil)
	if err == nil || res == nil || res.Verify == nil || res.Verify.OK || !strings.Contains(err.Error(), `table "m": min time expected 1970-01-01T00:00:01Z`) || strings.Contains(err.Error(), "rows expected") {
		t.Fatalf("nanoseconds written as microseconds: %v\n%s", err, log)
	}
}
