package influx

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/influx3test"
	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/journal"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/results"
	"github.com/tsload/tsload/pkg/runner"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// TestV3NoSyncFailedRunResume: a --no-sync load into a private InfluxDB 3
// (WAL flushed every 5 s) fails at its 11th batch, a line larger than the
// server takes (fatal, not retried); the server is then killed (SIGKILL),
// which loses what was acknowledged and not flushed yet. The failed run's
// results say its 1,000 acknowledged rows are not known durable, its
// journal keeps their 10 batches in doubt (none acknowledged for good; the
// refused one is not in doubt: the server wrote nothing of it), and
// --resume, after the server is back with a larger request limit, sends
// those 10 again with the rest: the table ends with exactly the input's
// rows.
func TestV3NoSyncFailedRunResume(t *testing.T) {
	influx3test.RealServer(t)
	in := influx3test.StartInstance(t, "nosyncresume", influx3test.InstanceOptions{
		MaxRequestBytes: 64 << 10, Args: "--wal-flush-interval 5s"})
	const (
		db, table = "nosyncresume", "nsf"
		batch     = 100
		rows      = 2001 // 2,000 small lines and one of 70 KB (in batch 11)
	)
	var b bytes.Buffer
	ts := int64(1704067200000000000)
	for i := 0; i < rows-1; i++ {
		if i == 1050 {
			x := strings.Repeat("x", 35<<10) // a string field holds at most 64 KB
			fmt.Fprintf(&b, "%s,host=big s=\"%s\",t=\"%s\" %d\n", table, x, x, ts-1)
		}
		fmt.Fprintf(&b, "%s,host=h%d v=%d.5 %d\n", table, i%5, i, ts+int64(i)*1e9)
	}
	path := filepath.Join(t.TempDir(), "in.ilp")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	resFile := filepath.Join(t.TempDir(), "r.json")
	newTarget := func() *Target {
		tg, err := New(Config{Conn: httpwrite.Conn{URLs: []string{in.URL}, RequestTimeout: 10 * time.Second},
			API: APIv3, Precision: "n", Token: in.Token, NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tg.Close() })
		return tg
	}
	cfg := loadtest.FaultConfig(path, batch, 1)
	cfg.RetryTimeout, cfg.ReportingPeriod = 5*time.Second, 50*time.Millisecond
	cfg.ResultsFile, cfg.Loader, cfg.Target = resFile, "load_influx", "influx"
	cfg.Prepare = load.PrepareOptions{DBName: db, CreateDB: true, DropDB: true}
	var stderr bytes.Buffer
	cfg.Stderr = &stderr
	first, err := runner.Run(context.Background(), cfg, newTarget())
	if first == nil {
		t.Fatalf("no results: %v\n%s", err, stderr.String())
	}
	if err == nil || first.Status == results.StatusOK {
		t.Fatalf("the run with a line over the server's limit ended %s: %v\n%s", first.Status, err, stderr.String())
	}
	if err := in.Kill(); err != nil {
		t.Fatal(err)
	}
	if first.Rows != 1000 || first.NotDurableRows != first.Rows {
		t.Fatalf("failed run: %d rows acknowledged, %d not known durable; want 1000 and 1000 (--no-sync)\n%s",
			first.Rows, first.NotDurableRows, stderr.String())
	}
	j, _, err := journal.Read(resFile)
	if err != nil {
		t.Fatal(err)
	}
	// In doubt: the 10 batches acknowledged, not the one refused (the
	// server wrote nothing of it).
	acked := 0
	for _, d := range j.InDoubt {
		if d.Batch >= 1 && d.Batch <= 10 && d.Rows == batch {
			acked++
		}
	}
	if j.Rows != 0 || acked != 10 || len(j.InDoubt) != 10 {
		t.Fatalf("the failed run's journal: %d rows acknowledged for good, in doubt %+v; want 0, batches 1-10", j.Rows, j.InDoubt)
	}

	in.Env = append(in.Env, "INFLUX3_MAX_REQUEST=1048576")
	if err := in.Start(); err != nil {
		t.Fatal(err)
	}
	held := in.Count(t, db, table)
	stderr.Reset()
	cfg.Resume = j
	cfg.Prepare.DropDB = false
	res, err := runner.Run(context.Background(), cfg, newTarget())
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, stderr.String())
	}
	n := in.Count(t, db, table)
	if res.Status != results.StatusOK || res.Verify == nil || !res.Verify.OK || n != rows || res.NotDurableRows != 0 {
		t.Fatalf("resumed: status %s, verify %+v, not durable %d; the table holds %d rows of %d\n%s",
			res.Status, res.Verify, res.NotDurableRows, n, rows, stderr.String())
	}
	if r := res.Resume; r == nil || r.InDoubt != int64(len(j.InDoubt)) || r.SkippedBatches != 0 || res.Rows != rows {
		t.Fatalf("resumed: %+v, %d rows acknowledged; want %d batches in doubt sent again, none skipped, %d rows\n%s", r, res.Rows, len(j.InDoubt), rows, stderr.String())
	}
	if want := fmt.Sprintf("; %d batches in doubt are sent again", len(j.InDoubt)); !strings.Contains(stderr.String(), want) {
		t.Fatalf("the resume does not say %q:\n%s", want, stderr.String())
	}
	t.Logf("the server held %d of the failed run's 1000 acknowledged rows after the kill; resumed to %d", held, n)
}

// TestV3NoSyncUnverifiedRun: a --no-sync load into a private InfluxDB 3
// (WAL flushed every 5 s) that ends ok without verification has not seen
// its rows in the server: its results say none of its 1,000 rows is known
// durable, its journal keeps the 10 batches in doubt and the load not
// complete. The server is then killed (SIGKILL) and started again, and
// --resume sends the 10 batches again: exact.
func TestV3NoSyncUnverifiedRun(t *testing.T) {
	influx3test.RealServer(t)
	in := influx3test.StartInstance(t, "nosyncunverified", influx3test.InstanceOptions{Args: "--wal-flush-interval 5s"})
	const (
		db, table = "nosyncunverified", "nsu"
		rows      = 1000
	)
	var b bytes.Buffer
	for i := 0; i < rows; i++ {
		fmt.Fprintf(&b, "%s,host=h%d v=%d.5 %d\n", table, i%5, i, int64(1704067200000000000)+int64(i)*1e9)
	}
	path := filepath.Join(t.TempDir(), "in.ilp")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	newTarget := func() *Target {
		tg, err := New(Config{Conn: httpwrite.Conn{URLs: []string{in.URL}, RequestTimeout: 10 * time.Second},
			API: APIv3, Precision: "n", Token: in.Token, NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tg.Close() })
		return tg
	}
	cfg := loadtest.FaultConfig(path, 100, 1)
	cfg.Verify, cfg.ReportingPeriod = false, 50*time.Millisecond
	cfg.ResultsFile, cfg.Loader, cfg.Target = filepath.Join(t.TempDir(), "r.json"), "load_influx", "influx"
	cfg.Prepare = load.PrepareOptions{DBName: db, CreateDB: true, DropDB: true}
	var stderr bytes.Buffer
	cfg.Stderr = &stderr
	first, err := runner.Run(context.Background(), cfg, newTarget())
	if kerr := in.Kill(); kerr != nil {
		t.Fatal(kerr)
	}
	if err != nil || first.Status != results.StatusOK {
		t.Fatalf("the unverified load: %v\n%s", err, stderr.String())
	}
	if first.Rows != rows || first.NotDurableRows != rows || !strings.Contains(stderr.String(), "not verified") {
		t.Fatalf("unverified run: %d rows acknowledged, %d not known durable; want %d and %d, said so\n%s",
			first.Rows, first.NotDurableRows, rows, rows, stderr.String())
	}
	j, _, err := journal.Read(cfg.ResultsFile)
	if err != nil {
		t.Fatal(err)
	}
	if j.Complete || j.Rows != 0 || len(j.InDoubt) != 10 {
		t.Fatalf("the unverified run's journal: complete %v, %d rows acknowledged for good, %d batches in doubt; want false, 0, 10",
			j.Complete, j.Rows, len(j.InDoubt))
	}
	if err := in.Start(); err != nil {
		t.Fatal(err)
	}
	held := in.Count(t, db, table)
	stderr.Reset()
	cfg.Resume, cfg.Verify = j, true
	cfg.Prepare.DropDB = false
	res, err := runner.Run(context.Background(), cfg, newTarget())
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, stderr.String())
	}
	n := in.Count(t, db, table)
	if res.Status != results.StatusOK || res.Verify == nil || !res.Verify.OK || n != rows || res.Resume.InDoubt != 10 || res.NotDurableRows != 0 {
		t.Fatalf("resumed: status %s, verify %+v, resume %+v, not durable %d; the table holds %d rows of %d\n%s",
			res.Status, res.Verify, res.Resume, res.NotDurableRows, n, rows, stderr.String())
	}
	t.Logf("the server held %d of the unverified run's %d rows after the kill; resumed to %d", held, rows, n)
}
