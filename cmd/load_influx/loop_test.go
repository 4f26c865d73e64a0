package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/results"
)

// TestLoop replays 2,000 lines three times (--loop --limit) into the real
// InfluxDB 1.x at second precision, where a point of the same series and
// time overwrites: the count proves 6,000 points, with no note of rows
// that did not add (what an unshifted replay gets), and the span is in
// the lines' own unit (seconds).
func TestLoop(t *testing.T) {
	url := influxURL(t)
	path := filepath.Join(t.TempDir(), "s.ilp")
	var b strings.Builder
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&b, "loop_m,host=h%d v=%di %d\n", i%10, i, 1704067200+i/10)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	resultsPath := filepath.Join(t.TempDir(), "r.json")
	r := loadtest.RunCLI(t, spec(), []string{"load_influx", "--urls", url, "--db-name", influxDB(t, url), "--precision", "s",
		"--file", path, "--batch-size", "500", "--workers", "2", "--loop", "--limit", "6000", "--results-file", resultsPath}, resultsPath, "")
	var res results.Results
	if err := json.Unmarshal(r.Results, &res); err != nil {
		t.Fatal(err)
	}
	v := res.Verify
	if res.Rows != 6000 || v == nil || !v.OK || v.Actual["loop_m"] != 6000 || v.Note != "" || res.Loop == nil || res.Loop.Passes != 3 || res.Loop.Span != 1000 { // 199 s of seconds, rounded up to 1000 units (runner.loopSpan)
		t.Fatalf("rows %d verify %+v loop %+v\n%s", res.Rows, v, res.Loop, r.Stderr)
	}
}
