package cnosdb

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/cnosdbtest"
	"github.com/tsload/tsload/internal/contenttest"
	"github.com/tsload/tsload/pkg/results"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// runContent loads contentILP through the runner with content
// verification (timestamps read as nanoseconds) into a fresh database, the
// target writing with precision and wrapped so that corrupt (when not
// nil) runs between the last batch and verification.
func runContent(t *testing.T, precision string, corrupt func(ctx context.Context, tg *Target) error) (*results.Results, error, string) {
	t.Helper()
	base, db := cnosdbtest.RealDB(t)
	tg, err := New(Config{Conn: httpwrite.Conn{URLs: []string{base}, User: "root", Gzip: true, GzipLevel: 1}, Tenant: "cnosdb", Precision: precision, DBName: db})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	rc := runnerConfig("", db, nil) // the input and stderr are contenttest.Load's
	rc.BatchSize = 2
	var c func(ctx context.Context) error
	if corrupt != nil {
		c = func(ctx context.Context) error { return corrupt(ctx, tg) }
		// One write creates the table with all its columns: CnosDB 2.4.2
		// does not overwrite a point written before a column was added to
		// its table (TestRunnerContent), so corrupt could not change one.
		rc.BatchSize = 100
	}
	return contenttest.Load(t, tg, contentILP, c, rc)
}

// TestRunnerContent: through the runner, the load verifies its content; a
// point rewritten with another value behind the loader's back fails
// naming the field; lines written with precision us verify, their times
// read in microseconds on both sides (a server that took the precision
// wrongly, as CnosDB once took s as ns, fails on the time range).
//
// CnosDB 2.4.2 does not overwrite a point written before a column was
// added to its table: after "m,host=a f=1 1" and "m,host=a g=2 2",
// "m,host=a f=5 1" is acknowledged and f stays 1 (checked with curl; with
// batches of 2 over three workers whichever batch creates the table holds
// such points). So the load corrupt rewrites into is one write (runContent).
// That is no false failure of a real load: a load whose input repeats a
// (series, time) key does not compare field sums (docs/verify.md).
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
		defer w.Close()
		if _, err := w.Write(ctx, batch("m,host=a,r=x f=1.5,i=9223372036854775806i,s=\"héllo\",b=true 1000000000\n", 1)); err != nil {
			return err
		}
		// An acknowledged point can take a few milliseconds to be read.
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			rows, err := tg.SQL(ctx, tg.cfg.DBName, "SELECT i FROM m WHERE host = 'a' AND time = 1000000000")
			if err != nil {
				return err
			}
			if len(rows) == 1 && fmt.Sprint(rows[0]["i"]) == "9223372036854775806" {
				return nil
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("the rewritten point is not read back after 10 s: %v", rows)
			}
		}
	})
	const want = `table "m" field "i": sum expected 18446744073709551609, found 18446744073709551608`
	if err == nil || res == nil || res.Verify == nil || res.Verify.OK || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "rows expected") {
		t.Fatalf("after rewriting host=a's i=9223372036854775807 as ...806: %v\n%s", err, log)
	}
	// The verification reads the lines' times in the target's unit too
	// (load.Hooks.LineUnit).
	res, err, log = runContent(t, "us", nil)
	if err != nil || res == nil || res.Verify == nil || !res.Verify.OK || res.Verify.Mode != "content" {
		t.Fatalf("lines in microseconds: %v\n%s", err, log)
	}
}
