package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/results"
	"github.com/tsload/tsload/pkg/target/httpwrite"
	"github.com/tsload/tsload/pkg/target/influx"
)

// influxDB returns a fresh database name on url (loadtest.UniqueDB),
// dropped when the test ends.
func influxDB(t *testing.T, url string) string {
	db := loadtest.UniqueDB(t)
	t.Cleanup(func() {
		tg, err := influx.New(influx.Config{Conn: httpwrite.Conn{URLs: []string{url}}, Precision: "n"})
		if err == nil {
			tg.Query(context.Background(), "", `DROP DATABASE "`+db+`"`)
			tg.Close()
		}
	})
	return db
}

// TestRate runs a paced and a stepped load into the real InfluxDB 1.x
// (loadtest.PacedRuns).
func TestRate(t *testing.T) {
	url := influxURL(t)
	loadtest.PacedRuns(t, spec(), "rate", func(t *testing.T, table string) []string {
		return []string{"--urls", url, "--db-name", influxDB(t, url)}
	})
}

// TestRateStall paces a load at 10,000 rows/s through a fault proxy that
// stalls the real InfluxDB for 800 ms. The producer's view, latency from
// the due time, must show the stall for every batch due during it (a
// third of them); the latency from the send must not (only the batches in
// flight on the two workers saw it); and the backlog must be reported. A
// loader that measured from the send only (closed loop: the stall hides
// itself) fails the first check.
func TestRateStall(t *testing.T) {
	url := influxURL(t)
	p := loadtest.Proxy(t, url)
	const rows = 24000
	path := loadtest.RateLines(t, "stall", rows)
	resultsPath := filepath.Join(t.TempDir(), "results.json")
	stop := make(chan struct{})
	stalled := make(chan time.Duration, 1)
	go func() {
		// Past the first quarter of the input (about 42 bytes a row).
		if !loadtest.AfterBytes(p, rows/4*42, stop) {
			stalled <- 0
			return
		}
		p.Stall(true)
		t0 := time.Now()
		time.Sleep(800 * time.Millisecond)
		p.Stall(false)
		stalled <- time.Since(t0)
	}()
	r := loadtest.RunCLI(t, spec(), []string{"load_influx", "--urls", "http://" + p.Addr(), "--db-name", influxDB(t, url),
		"--file", path, "--batch-size", "100", "--workers", "2", "--request-timeout", "30s", "--gzip=false",
		"--reporting-period", "100ms", "--rate", "10k", "--results-file", resultsPath}, resultsPath, "")
	close(stop)
	stall := <-stalled
	var res results.Results
	if err := json.Unmarshal(r.Results, &res); err != nil {
		t.Fatal(err)
	}
	if res.Status != results.StatusOK || res.Rows != rows || res.Verify == nil || !res.Verify.OK {
		t.Fatalf("status %s rows %d verify %+v\n%s", res.Status, res.Rows, res.Verify, r.Stderr)
	}
	if stall < 800*time.Millisecond {
		t.Fatalf("the proxy never stalled (%s)", stall)
	}
	due, send := res.Pace.LatencyFromDue, res.Latency
	t.Logf("stall %s; from due %+v; from send %+v; max backlog %d rows, lag %.3fs", stall, due, send, res.Pace.MaxBacklogRows, res.Pace.MaxLagSeconds)
	// 800 ms at 10,000 rows/s: 80 of the 240 batches fall due during the
	// stall and wait for it, the first of them nearly all of it.
	if due.P90 < 200 || due.Max < 600 {
		t.Errorf("latency from due %+v does not show an 800 ms stall\n%s", due, r.Stderr)
	}
	if send.P90 >= 200 {
		t.Errorf("latency from send %+v: only the batches in flight should have seen the stall", send)
	}
	var peak int64
	for _, p := range res.Periods {
		if p.Pace != nil {
			peak = max(peak, p.Pace.BacklogRows)
		}
	}
	if peak < 2000 || res.Pace.MaxLagSeconds < 0.2 {
		t.Errorf("backlog reported: peak per period %d rows, max lag %.3fs\n%s", peak, res.Pace.MaxLagSeconds, r.Stderr)
	}
}
