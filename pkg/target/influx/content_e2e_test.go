package influx

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/contenttest"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/results"
	"github.com/tsload/tsload/pkg/runner"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// runContent loads data through the runner with content verification
// (timestamps read as nanoseconds) into database db of the server of cfg,
// the target wrapped so that corrupt (when not nil) runs between the last
// batch and verification.
func runContent(t *testing.T, cfg Config, data string, corrupt func(ctx context.Context, tg *Target) error) (*results.Results, error, string) {
	t.Helper()
	cfg.Gzip, cfg.GzipLevel, cfg.RequestTimeout = true, 1, 30*time.Second
	tg, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		tg.Prepare(context.Background(), load.PrepareOptions{DBName: cfg.DBName, DropDB: true})
		tg.Close()
	})
	var c func(ctx context.Context) error
	if corrupt != nil {
		c = func(ctx context.Context) error { return corrupt(ctx, tg) }
	}
	return contenttest.Load(t, tg, data, c, runner.Config{
		BatchSize: 2, Workers: 2, RetryTimeout: 20 * time.Second,
		Prepare: load.PrepareOptions{DBName: cfg.DBName, CreateDB: true, DropDB: true},
		Loader:  "load_influx", Target: "influx",
	})
}

// rewrite writes a line with the series and time of a point already
// there (InfluxDB keeps the new values: the count stays).
func rewrite(line string) func(ctx context.Context, tg *Target) error {
	return func(ctx context.Context, tg *Target) error {
		w, err := tg.NewWriter(ctx, 0)
		if err != nil {
			return err
		}
		defer w.Close()
		_, err = w.Write(ctx, &load.Batch{Format: format.ILP, Data: []byte(line), Rows: 1, Source: "corrupt", FirstLine: 1, FirstRecord: 1, Seq: 1})
		return err
	}
}

// runnerContent: through the runner, the load verifies its content; a
// point rewritten with another value behind the loader's back fails
// naming the field; lines loaded with precision u are read in
// microseconds by the verification too (the target's unit, its one home),
// so their time range verifies.
func runnerContent(t *testing.T, cfg func(t *testing.T) Config, unsigned bool) {
	data := contentILP(unsigned)
	// Each case in a subtest of its own: its database is dropped before
	// the next is made (InfluxDB 3 Core holds 5).
	t.Run("clean", func(t *testing.T) {
		res, err, log := runContent(t, cfg(t), data, nil)
		if err != nil || res.Verify == nil || !res.Verify.OK || res.Verify.Mode != "content" {
			t.Fatalf("clean load: %v %+v\n%s", err, res.Verify, log)
		}
	})
	t.Run("value", func(t *testing.T) {
		res, err, log := runContent(t, cfg(t), data, rewrite("m,host=b i=-6i 3000000000\n"))
		const want = `table "m" field "i": sum expected 18446744073709551609, found 18446744073709551608`
		if err == nil || res.Verify.OK || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "rows expected") {
			t.Fatalf("after rewriting i=-5 as -6: %v\n%s", err, log)
		}
	})
	t.Run("precision", func(t *testing.T) {
		c := cfg(t)
		c.Precision = "u"
		res, err, log := runContent(t, c, data, nil)
		if err != nil || res.Verify == nil || !res.Verify.OK || res.Verify.Mode != "content" {
			t.Fatalf("lines in microseconds: %v %+v\n%s", err, res.Verify, log)
		}
	})
}

func TestRunnerContentV1(t *testing.T) {
	runnerContent(t, func(t *testing.T) Config {
		return Config{Conn: httpwrite.Conn{URLs: []string{influxURL(t)}}, API: APIv1, DBName: uniqueDB(t), Precision: "n"}
	}, false)
}

func TestRunnerContentV2(t *testing.T) {
	runnerContent(t, func(t *testing.T) Config {
		c := influx2(t)
		c.DBName = uniqueDB(t)
		return c
	}, true)
}

func TestRunnerContentV3(t *testing.T) {
	runnerContent(t, func(t *testing.T) Config {
		_, at := v3Real(t)
		return Config{Conn: httpwrite.Conn{URLs: []string{at.url}}, Token: at.token, DBName: at.db, Precision: "n"}
	}, true)
}
