package influx3test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/loadtest"
)

// DefaultURL is where scripts/start_influxdb.sh --version 3 runs the local
// InfluxDB 3 Core.
const DefaultURL = "http://127.0.0.1:8181"

// Real is the real InfluxDB 3 the tests use: its base URL and admin token.
type Real struct {
	URL, Token string
}

// RealServer returns the real InfluxDB 3: INFLUX3_URL (default DefaultURL)
// with the token INFLUX3_TOKEN, else the one in INFLUX3_TOKEN_FILE (default
// $TSLOAD_STATE/influx/v3/admin-token, where the start script keeps it).
// When it does not answer, the test is skipped, or failed when CI is set
// (CI starts the server).
func RealServer(t testing.TB) Real {
	t.Helper()
	r := Real{URL: os.Getenv("INFLUX3_URL"), Token: os.Getenv("INFLUX3_TOKEN")}
	if r.URL == "" {
		r.URL = DefaultURL
	}
	if r.Token == "" {
		path := os.Getenv("INFLUX3_TOKEN_FILE")
		if path == "" {
			state := os.Getenv("TSLOAD_STATE")
			if state == "" {
				state = "/tmp/tsload"
			}
			path = filepath.Join(state, "influx", "v3", "admin-token")
		}
		if raw, err := os.ReadFile(path); err == nil {
			r.Token = strings.TrimSpace(string(raw))
		}
	}
	if err := Health(r.URL, r.Token); err != nil {
		loadtest.SkipOrFail(t,
			fmt.Sprintf("InfluxDB 3 at %s unusable: %v (start it with scripts/start_influxdb.sh --version 3)", r.URL, err),
			fmt.Sprintf("InfluxDB 3 at %s unusable under CI: %v (scripts/start_influxdb.sh --version 3 starts it)", r.URL, err))
	}
	return r
}

// Health asks base's /health, with token, whether InfluxDB 3 is up.
func Health(base, token string) error {
	req, err := http.NewRequest(http.MethodGet, base+"/health", nil)
	if err != nil {
		return err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
	if resp.StatusCode != 200 || strings.TrimSpace(string(body)) != "OK" {
		return fmt.Errorf("/health answered %d %q (no token or a wrong one?)", resp.StatusCode, body)
	}
	return nil
}

// UniqueDB returns a database name of the test's own. InfluxDB 3 Core holds
// at most 5 databases (dropped ones do not count): a test keeps one at a
// time and drops it at the end (DropAtEnd).
func UniqueDB(t testing.TB) string { return loadtest.UniqueDB(t) }

// Do sends one request with the token; body is sent as it is (a string or
// []byte), or as JSON otherwise. It returns the status and body.
func (r Real) Do(method, path string, body any, hdr ...string) (int, string, error) {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			return 0, "", err
		}
		rd = bytes.NewReader(raw)
		hdr = append(hdr, "Content-Type", "application/json")
	}
	req, err := http.NewRequest(method, r.URL+path, rd)
	if err != nil {
		return 0, "", err
	}
	if r.Token != "" {
		req.Header.Set("Authorization", "Bearer "+r.Token)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	c := http.Client{Timeout: 60 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(raw), err
}

// Drop deletes db at once (hard_delete_at=now: a soft-deleted database's
// tables count against the server's table limit for 72 hours); a missing
// one is no error.
func (r Real) Drop(db string) error {
	st, body, err := r.Do(http.MethodDelete, "/api/v3/configure/database?hard_delete_at=now&db="+url.QueryEscape(db), nil)
	if err == nil && st != 200 && st != 404 {
		err = fmt.Errorf("drop %s: %d %s", db, st, body)
	}
	return err
}

// DropAtEnd drops db when the test ends.
func (r Real) DropAtEnd(t testing.TB, db string) {
	t.Cleanup(func() {
		if err := r.Drop(db); err != nil {
			t.Logf("%v", err)
		}
	})
}

// Count returns SELECT COUNT(*) of table in db (0 when the table or the
// database does not exist), failing t on any other answer.
func (r Real) Count(t testing.TB, db, table string) int64 {
	t.Helper()
	st, body, err := r.Do(http.MethodPost, "/api/v3/query_sql", map[string]string{"db": db, "q": `SELECT COUNT(*) AS n FROM "` + table + `"`, "format": "json"})
	if err == nil && (st == 404 || st != 200 && strings.Contains(body, "not found")) {
		return 0
	}
	var rows []struct{ N int64 }
	if err == nil && st == 200 {
		err = json.Unmarshal([]byte(body), &rows)
	}
	if err != nil || st != 200 || len(rows) != 1 {
		t.Fatalf("count %s.%s: %d %s %v", db, table, st, body, err)
	}
	return rows[0].N
}

// Instance is an InfluxDB 3 of a test's own, started by
// scripts/start_influxdb.sh --version 3 on a free port with its data in a
// temporary directory: for what would disturb the shared server (kill -9, a
// small request limit, the database limit). Start starts it again (its
// data and token kept); Kill stops it with SIGKILL.
type Instance struct {
	Real
	*loadtest.ScriptServer
}

// InstanceOptions change how an Instance is started.
type InstanceOptions struct {
	// MaxRequestBytes is the server's --max-http-request-size (0: its
	// default, 10 MiB).
	MaxRequestBytes int
	// Args are more arguments of influxdb3 serve, e.g. "--wal-snapshot-size
	// 1" to persist Parquet files at every WAL flush.
	Args string
}

// StartInstance starts an InfluxDB 3 named name and stops it (its data
// removed) when the test ends. Without the server binary it skips the
// test, or fails it when CI is set.
func StartInstance(t testing.TB, name string, o InstanceOptions) *Instance {
	t.Helper()
	s := loadtest.PrivateServer(t, "INFLUX", name, 0, 1) // p+1: the admin-token recovery listener
	s.StartScript, s.StopScript, s.Args = "scripts/start_influxdb.sh", "scripts/stop_influxdb.sh", []string{"--version", "3"}
	if o.MaxRequestBytes > 0 {
		s.Env = append(s.Env, "INFLUX3_MAX_REQUEST="+strconv.Itoa(o.MaxRequestBytes))
	}
	if o.Args != "" {
		s.Env = append(s.Env, "INFLUX3_ARGS="+o.Args)
	}
	dir := filepath.Join(s.State, "influx", name)
	s.PIDFile, s.NoBinary = filepath.Join(dir, "influxdb3.pid"), "no InfluxDB 3 server binary"
	s.Run(t)
	raw, err := os.ReadFile(filepath.Join(dir, "admin-token"))
	if err != nil {
		t.Fatal(err)
	}
	return &Instance{Real: Real{URL: fmt.Sprintf("http://127.0.0.1:%d", s.Port), Token: strings.TrimSpace(string(raw))}, ScriptServer: s}
}
