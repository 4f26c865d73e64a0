package influx

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/results"
	"github.com/tsload/tsload/pkg/runner"
)

// End-to-end tests through runner.Run against real InfluxDB servers.

func ilpFile(t *testing.T, rows int, seed int) string {
	var buf bytes.Buffer
	for _, b := range genBatches(rows, rows, seed) {
		buf.Write(b.Data)
	}
	path := filepath.Join(t.TempDir(), "in.ilp")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// runLoad loads path into a fresh database of the server at url
// (runFault without a proxy: gzip, 10 s request timeout), mod changing
// the runner's configuration.
func runLoad(t *testing.T, url, path string, batch, workers int, mod func(*runner.Config)) (*results.Results, error, string) {
	t.Helper()
	r := runFault(t, newFaultTarget(t, url, 10*time.Second), nil, path, batch, workers, mod)
	return r.Res, r.Err, r.Log
}

func TestRunnerExactCounts(t *testing.T) {
	url := influxURL(t)
	path := ilpFile(t, 30000, 11)
	for _, tc := range []struct{ batch, workers int }{{1000, 1}, {5000, 2}, {20000, 4}} {
		t.Run(fmt.Sprintf("batch%d_workers%d", tc.batch, tc.workers), func(t *testing.T) {
			res, err, log := runLoad(t, url, path, tc.batch, tc.workers, nil)
			if err != nil {
				t.Fatalf("%v\n%s", err, log)
			}
			if res.Rows != 30000 || res.Verify == nil || !res.Verify.OK {
				t.Fatalf("rows %d verify %+v\n%s", res.Rows, res.Verify, log)
			}
		})
	}
}

func TestRunnerPartialWrite(t *testing.T) {
	url := influxURL(t)
	path := ilpFile(t, 5000, 12)
	data, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(data), "\n")
	lines[1233] = strings.Replace(lines[1233], "usage_user=", "usage_user=oops", 1) // line 1234
	lines[4001] = strings.Replace(lines[4001], "usage_idle=", "usage_idle=nope", 1) // line 4002
	os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644)

	res, err, log := runLoad(t, url, path, 1000, 2, nil)
	if err == nil || !strings.Contains(err.Error(), "2 rows rejected") ||
		!strings.Contains(err.Error(), "line 1234: unable to parse") || !strings.Contains(err.Error(), "line 4002: unable to parse") {
		t.Fatalf("err = %v\n%s", err, log)
	}
	if res.Rows != 4998 || res.RejectedRows != 2 {
		t.Fatalf("rows %d rejected %d, want 4998 and 2", res.Rows, res.RejectedRows)
	}
	res, err, log = runLoad(t, url, path, 1000, 2, func(c *runner.Config) { c.SkipInvalid = true })
	if err != nil || res.Rows != 4998 || res.Verify == nil || !res.Verify.OK {
		t.Fatalf("--skip-invalid: err %v rows %d verify %+v\n%s", err, res.Rows, res.Verify, log)
	}
}

func TestRunnerCacheFull(t *testing.T) {
	_, url := privateV1(t, "tiny", "INFLUX_CACHE_MAX=1m", "INFLUX_CACHE_SNAPSHOT=256k")
	path := ilpFile(t, 80000, 13)
	res, err, log := runLoad(t, url, path, 5000, 3, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	if res.Rows != 80000 || !res.Verify.OK || res.Retries == 0 {
		t.Fatalf("rows %d retries %d verify %+v\n%s", res.Rows, res.Retries, res.Verify, log)
	}
	t.Logf("%d re-sends after cache-max-memory-size exceeded", res.Retries)
}

func TestRunnerServerRestart(t *testing.T) {
	srv, url := privateV1(t, "restart")
	path := ilpFile(t, 60000, 14)
	type out struct {
		res *results.Results
		err error
		log string
	}
	done := make(chan out, 1)
	go func() {
		res, err, log := runLoad(t, url, path, 500, 2, nil)
		done <- out{res, err, log}
	}()
	time.Sleep(400 * time.Millisecond)
	restart(t, srv, time.Second)
	o := <-done
	if o.err != nil {
		t.Fatalf("%v\n%s", o.err, o.log)
	}
	if o.res.Rows != 60000 || !o.res.Verify.OK {
		t.Fatalf("rows %d verify %+v\n%s", o.res.Rows, o.res.Verify, o.log)
	}
	t.Logf("%d re-sends across the restart", o.res.Retries)
}
