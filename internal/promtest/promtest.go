// Package promtest is what the Prometheus tests share: the real server of
// scripts/start_prometheus.sh (PROM_URL for another), a db label of each
// test's own, and counts read from the server directly through PromQL
// (not through the target).
package promtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/loadtest"
)

// DefaultURL is where scripts/start_prometheus.sh runs the local server.
const DefaultURL = "http://127.0.0.1:9090"

var client = http.Client{Timeout: 60 * time.Second}

// Ready asks base's /-/ready whether Prometheus answers.
var Ready = loadtest.Healthy("/-/ready", func(status int, _ string) bool { return status == 200 })

// RealURL returns the base URL of the real Prometheus the tests use:
// PROM_URL, or the local server of scripts/start_prometheus.sh. When it
// does not answer, the test is skipped, or failed when CI is set.
func RealURL(t testing.TB) string {
	t.Helper()
	return loadtest.Server(t, "Prometheus", "PROM_URL", DefaultURL, "scripts/start_prometheus.sh", Ready)
}

// RealDB is RealURL and a db label of the test's own, whose series are
// deleted when the test ends.
func RealDB(t testing.TB) (base, db string) {
	t.Helper()
	base, db = RealURL(t), loadtest.UniqueDB(t)
	DropAtEnd(t, base, db)
	return base, db
}

// DropAtEnd deletes the series of db label db when t ends. A deletion
// waits for a running compaction (of out-of-order samples: the tests write
// 2016 and 2024 alike), so it is given a few seconds and then left.
func DropAtEnd(t testing.TB, base, db string) {
	t.Cleanup(func() {
		v := url.Values{"match[]": {`{db="` + db + `"}`}}
		c := http.Client{Timeout: 5 * time.Second}
		resp, err := c.PostForm(base+"/api/v1/admin/tsdb/delete_series", v)
		if err != nil {
			t.Logf("delete %s: %v", db, err)
			return
		}
		resp.Body.Close()
		if resp.StatusCode != 204 {
			t.Logf("delete %s: %d", db, resp.StatusCode)
		}
	})
}

// Series is one series of a range vector: labels and samples
// (milliseconds, values).
type Series struct {
	Metric     map[string]string
	Timestamps []int64
	Values     []float64
}

// Export returns every sample of metric (an exact name) of db label db,
// read as the range vector metric{db="db"}[W] over every time the loader
// takes.
func Export(t testing.TB, base, db, metric string) []Series {
	t.Helper()
	at := time.Now().Add(400 * 24 * time.Hour).Unix()
	q := fmt.Sprintf(`{__name__=%q,db=%q}[%ds]`, metric, db, at+86400)
	resp, err := client.Get(base + "/api/v1/query?" + url.Values{"query": {q}, "time": {strconv.FormatInt(at, 10)}}.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%s: %d %s %v", q, resp.StatusCode, body, err)
	}
	var ans struct {
		Data struct {
			Result []struct {
				Metric map[string]string `json:"metric"`
				Values [][2]any          `json:"values"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &ans); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	var out []Series
	for _, r := range ans.Data.Result {
		s := Series{Metric: r.Metric}
		for _, p := range r.Values {
			v, err := strconv.ParseFloat(p[1].(string), 64)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			s.Timestamps = append(s.Timestamps, int64(p[0].(float64)*1000+0.5))
			s.Values = append(s.Values, v)
		}
		out = append(out, s)
	}
	return out
}

// Rows counts the samples of metric in db (rows) and the distinct
// (timestamp, host label) pairs among them (keys), read directly.
func Rows(t testing.TB, base, db, metric string) (rows, keys int64) {
	t.Helper()
	seen := map[string]bool{}
	for _, s := range Export(t, base, db, metric) {
		rows += int64(len(s.Timestamps))
		for _, ts := range s.Timestamps {
			seen[s.Metric["host"]+"\x00"+strconv.FormatInt(ts, 10)] = true
		}
	}
	return rows, int64(len(seen))
}

// Instance is a Prometheus of a test's own, started by
// scripts/start_prometheus.sh on a free port with its state in a
// temporary directory. Start starts it again (its data kept); Kill stops it
// with SIGKILL.
type Instance struct {
	URL string
	*loadtest.ScriptServer
}

// StartInstance starts a private server named name (after RealURL: the
// test skips, or fails under CI, where the scripts' server is not there)
// and stops it when the test ends. The tests that write samples of other
// years than the shared server's use one: the server compacts its
// out-of-order samples in two-hour blocks over their whole span, which
// takes long over years (and holds off deletions meanwhile).
func StartInstance(t testing.TB, name string) *Instance {
	t.Helper()
	RealURL(t)
	s := loadtest.PrivateServer(t, "PROM", name, 0, 0)
	s.StartScript, s.StopScript = "scripts/start_prometheus.sh", "scripts/stop_prometheus.sh"
	s.PIDFile = filepath.Join(s.State, "prometheus", name, "prometheus.pid")
	s.Run(t)
	return &Instance{URL: fmt.Sprintf("http://127.0.0.1:%d", s.Port), ScriptServer: s}
}
