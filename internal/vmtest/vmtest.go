// Package vmtest is what the VictoriaMetrics tests share: the real server
// of scripts/start_victoriametrics.sh (VM_URL for another), a db label of
// each test's own, counts read from the server directly (not through the
// target), and a server of a test's own for what would disturb the shared
// one (kill -9).
package vmtest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/loadtest"
)

// DefaultURL is where scripts/start_victoriametrics.sh runs the local server.
const DefaultURL = "http://127.0.0.1:8428"

var client = http.Client{Timeout: 60 * time.Second}

// Health asks base's /health whether VictoriaMetrics answers.
var Health = loadtest.Healthy("/health", func(status int, body string) bool {
	return status == 200 && strings.TrimSpace(body) == "OK"
})

// RealURL returns the base URL of the real VictoriaMetrics the tests use:
// VM_URL, or the local server of scripts/start_victoriametrics.sh. When it
// does not answer, the test is skipped, or failed when CI is set.
func RealURL(t testing.TB) string {
	t.Helper()
	return loadtest.Server(t, "VictoriaMetrics", "VM_URL", DefaultURL, "scripts/start_victoriametrics.sh", Health)
}

// RealDB is RealURL and a db label of the test's own, whose series are
// deleted when the test ends.
func RealDB(t testing.TB) (base, db string) {
	t.Helper()
	base, db = RealURL(t), loadtest.UniqueDB(t)
	DropAtEnd(t, base, db)
	return base, db
}

// DropAtEnd deletes the series of db label db when t ends.
func DropAtEnd(t testing.TB, base, db string) {
	t.Cleanup(func() {
		v := url.Values{"match[]": {`{db="` + db + `"}`}}
		resp, err := client.PostForm(base+"/api/v1/admin/tsdb/delete_series", v)
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

// Flush asks base's /internal/force_flush.
func Flush(t testing.TB, base string) {
	t.Helper()
	resp, err := client.Get(base + "/internal/force_flush")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

// Series is one exported series.
type Series struct {
	Metric     map[string]string `json:"metric"`
	Values     []float64         `json:"values"`
	Timestamps []int64           `json:"timestamps"`
}

// Export returns every series of metric (an exact name) of db label db,
// after a flush, from /api/v1/export.
func Export(t testing.TB, base, db, metric string) []Series {
	t.Helper()
	Flush(t, base)
	v := url.Values{"match[]": {fmt.Sprintf(`{__name__=%q,db=%q}`, metric, db)}, "start": {"86399"},
		"end": {strconv.FormatInt(time.Now().Add(72*time.Hour).Unix(), 10)}}
	resp, err := client.Get(base + "/api/v1/export?" + v.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("export %s: %d %s", metric, resp.StatusCode, body)
	}
	var out []Series
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 256<<20)
	for sc.Scan() {
		var s Series
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("export %s: %v", metric, err)
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
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

// Instance is a VictoriaMetrics of a test's own, started by
// scripts/start_victoriametrics.sh on a free port with its state in a
// temporary directory. Start starts it again (its data kept); Kill stops it
// with SIGKILL.
type Instance struct {
	URL string
	*loadtest.ScriptServer
}

// StartInstance starts a private server named name and stops it when the
// test ends.
func StartInstance(t testing.TB, name string) *Instance {
	t.Helper()
	s := loadtest.PrivateServer(t, "VM", name, 0, 0)
	s.StartScript, s.StopScript = "scripts/start_victoriametrics.sh", "scripts/stop_victoriametrics.sh"
	s.Env = append(s.Env, "VM_MEMORY_PERCENT=5")
	s.PIDFile = filepath.Join(s.State, "victoriametrics", name, "victoria-metrics.pid")
	s.Run(t)
	return &Instance{URL: fmt.Sprintf("http://127.0.0.1:%d", s.Port), ScriptServer: s}
}
