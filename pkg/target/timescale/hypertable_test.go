package timescale

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/gen"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/results"
	"github.com/tsload/tsload/pkg/runner"
	"github.com/tsload/tsload/pkg/usecase"
)

// requireTimescale skips a test that needs TimescaleDB on a server without
// it, unless CI is set (scripts/start_postgres.sh builds it there).
func requireTimescale(t *testing.T) {
	t.Helper()
	requireServer(t)
	tg, err := New(Config{URL: pgURL(), DBName: testDBName(t), UseHypertable: "true"})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	err = tg.Prepare(context.Background(), load.PrepareOptions{DBName: tg.cfg.DBName, CreateDB: true, DropDB: true})
	dropDB(t, tg.cfg.DBName)
	if err != nil {
		loadtest.SkipOrFail(t, "no TimescaleDB on the server: "+err.Error(), "no TimescaleDB on the server under CI: "+err.Error())
	}
}

// genDays writes cpu-only pgcopy data of scale hosts over days days, one
// reading a minute.
func genDays(t *testing.T, scale, days int) (string, gen.Stats) {
	t.Helper()
	name := filepath.Join(t.TempDir(), "cpu"+gen.Extension(format.PGCopy))
	start := time.Date(2016, 1, 1, 0, 0, 0, 0, time.UTC)
	st, err := gen.Generate(context.Background(), gen.Config{
		UseCase: usecase.CPUOnly, Format: format.PGCopy, Seed: 11, Scale: scale, File: name, Workers: 1,
		Start: start, End: start.AddDate(0, 0, days), Interval: time.Minute, Stderr: io.Discard,
	})
	if err != nil {
		t.Fatal(err)
	}
	return name, st
}

// loadResults runs load_timescale's engine on file with cfg and returns the
// results file's contents; the load must succeed and verify.
func loadResults(t *testing.T, file string, cfg Config, batch, workers int) (results.Results, *Target) {
	t.Helper()
	cfg.URL, cfg.DBName = pgURL(), testDBName(t)
	tg, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close(); dropDB(t, cfg.DBName) })
	resultsPath := filepath.Join(t.TempDir(), "results.json")
	var stderr bytes.Buffer
	_, err = runner.Run(context.Background(), runner.Config{
		Inputs: []string{file}, BatchSize: batch, Workers: workers, DoLoad: true, Verify: true,
		ReportingPeriod: time.Hour, RetryTimeout: 10 * time.Second, ResultsFile: resultsPath,
		Prepare: load.PrepareOptions{DBName: cfg.DBName, CreateDB: true, DropDB: true},
		Stderr:  &stderr, Loader: "load_timescale", Target: "timescale",
	}, tg)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	r := loadtest.ReadResults(t, resultsPath)
	if r.Status != results.StatusOK || r.Verify == nil || !r.Verify.OK || r.Errors != 0 || r.Retries != 0 {
		t.Fatalf("status %s errors %d retries %d verify %+v\n%s", r.Status, r.Errors, r.Retries, r.Verify, stderr.String())
	}
	if r.SetupSeconds <= 0 {
		t.Errorf("setup_seconds %v, want the time of Prepare", r.SetupSeconds)
	}
	t.Logf("%s", stderr.String())
	return r, tg
}

// TestMultiChunkLoad loads two days into 12h chunks, hash-partitioned on
// hostname in two, with two workers, compresses every chunk afterwards and
// checks that chunks, counts, report and rows are right: the same rows as a
// plain table holds after the same load.
func TestMultiChunkLoad(t *testing.T) {
	requireTimescale(t)
	file, st := genDays(t, 10, 2)
	r, tg := loadResults(t, file, Config{ChunkTime: 12 * time.Hour, Partitions: 2, CompressAfter: true}, 500, 2)
	if r.Rows != st.Rows {
		t.Fatalf("rows %d, generated %d", r.Rows, st.Rows)
	}
	// 4 time slices x 2 hash partitions (10 hosts spread over both).
	if n := chunkCount(t, tg.cfg.DBName, "cpu"); n != 8 {
		t.Fatalf("%d chunks, want 8", n)
	}
	rep := r.TargetReport
	if rep["chunks"] != 8 || rep["chunks_compressed"] != 8 || rep["compressed_batches"] < 8 || rep["compress_seconds"] <= 0 ||
		rep["size_bytes"] <= 0 || rep["size_bytes"] >= rep["size_before_compress_bytes"] {
		t.Fatalf("target report %v", rep)
	}
	var dims int
	conn := dbConn(t, tg.cfg.DBName)
	if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM timescaledb_information.dimensions
		WHERE hypertable_name = 'cpu' AND ((column_name = 'time' AND time_interval = '12 hours')
		OR (column_name = 'hostname' AND num_partitions = 2))`).Scan(&dims); err != nil || dims != 2 {
		t.Fatalf("dimensions: %d of 2 as configured (%v)", dims, err)
	}
	compressed := tableDigest(t, tg.cfg.DBName, cpuTable())
	_, plain := loadResults(t, file, Config{UseHypertable: "false"}, 500, 2)
	if p := tableDigest(t, plain.cfg.DBName, cpuTable()); p != compressed {
		t.Fatalf("compressed hypertable rows differ from the plain table's: %s vs %s", compressed, p)
	}
}

// TestDirectCompress loads with compression during COPY: every row is
// counted, chunks hold compressed data, and the rows equal a plain load's.
func TestDirectCompress(t *testing.T) {
	requireTimescale(t)
	file, st := genDays(t, 4, 1)
	r, tg := loadResults(t, file, Config{DirectCompress: true, Method: MethodCopyBinary}, 5000, 2)
	if r.Rows != st.Rows || r.TargetReport["chunks_compressed"] < 1 {
		t.Fatalf("rows %d of %d, report %v", r.Rows, st.Rows, r.TargetReport)
	}
	_, plain := loadResults(t, file, Config{UseHypertable: "false"}, 5000, 1)
	if a, b := tableDigest(t, tg.cfg.DBName, cpuTable()), tableDigest(t, plain.cfg.DBName, cpuTable()); a != b {
		t.Fatalf("direct-compressed rows differ from the plain table's: %s vs %s", a, b)
	}
}

// TestWeatherHypertable loads the weather use case (an int4 series tag,
// float4 values, one reading per location and hour) from ILP into a
// hypertable with daily chunks, hash-partitioned on location_id, and
// compresses it.
func TestWeatherHypertable(t *testing.T) {
	requireTimescale(t)
	name := filepath.Join(t.TempDir(), "weather"+gen.Extension(format.ILP))
	start := time.Date(2016, 1, 1, 0, 0, 0, 0, time.UTC)
	st, err := gen.Generate(context.Background(), gen.Config{
		UseCase: usecase.Weather, Format: format.ILP, Seed: 3, Scale: 50, File: name, Workers: 1,
		Start: start, End: start.AddDate(0, 0, 3), Stderr: io.Discard,
	})
	if err != nil {
		t.Fatal(err)
	}
	r, tg := loadResults(t, name, Config{ChunkTime: 24 * time.Hour, Partitions: 2, CompressAfter: true}, 1000, 2)
	if r.Rows != st.Rows || r.Verify.Actual["weather"] != st.Rows {
		t.Fatalf("rows %d, verified %v, generated %d", r.Rows, r.Verify.Actual, st.Rows)
	}
	if n := chunkCount(t, tg.cfg.DBName, "weather"); n != 6 || r.TargetReport["chunks_compressed"] != 6 {
		t.Fatalf("%d chunks (%v compressed), want 3 days x 2 partitions", n, r.TargetReport["chunks_compressed"])
	}
	var typ string
	if err := dbConn(t, tg.cfg.DBName).QueryRow(context.Background(),
		"SELECT data_type FROM information_schema.columns WHERE table_name = 'weather' AND column_name = 'location_id'").Scan(&typ); err != nil || typ != "integer" {
		t.Fatalf("location_id is %q (%v), want integer", typ, err)
	}
}
