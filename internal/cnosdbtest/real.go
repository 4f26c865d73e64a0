package cnosdbtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/loadtest"
)

// DefaultURL is where scripts/start_cnosdb.sh runs the local server.
const DefaultURL = "http://127.0.0.1:8902"

// Ping asks base's /api/v1/ping whether a healthy CnosDB answers.
var Ping = loadtest.Healthy("/api/v1/ping", func(status int, body string) bool {
	return status == 200 && strings.Contains(body, `"healthy"`)
})

// RealURL returns the base URL of the real CnosDB the tests use: CNOSDB_URL,
// or the local server of scripts/start_cnosdb.sh. When it does not answer,
// the test is skipped, or failed when CI is set (CI starts the server).
func RealURL(t testing.TB) string {
	t.Helper()
	return loadtest.Server(t, "CnosDB", "CNOSDB_URL", DefaultURL, "scripts/start_cnosdb.sh", Ping)
}

// RealDB is RealURL and a database name of the test's own (UniqueDB),
// dropped when the test ends.
func RealDB(t testing.TB) (base, db string) {
	t.Helper()
	base, db = RealURL(t), UniqueDB(t)
	DropAtEnd(t, base, db)
	return base, db
}

// UniqueDB returns a database name of the test's own.
func UniqueDB(t testing.TB) string { return loadtest.UniqueDB(t) }

// SQL posts stmt to base's /api/v1/sql (tenant cnosdb, db when set) as
// user:password and returns the status and body.
func SQL(base, user, password, db, stmt string) (int, string, error) {
	q := url.Values{"tenant": {"cnosdb"}}
	if db != "" {
		q.Set("db", db)
	}
	req, err := http.NewRequest("POST", base+"/api/v1/sql?"+q.Encode(), strings.NewReader(stmt))
	if err != nil {
		return 0, "", err
	}
	req.SetBasicAuth(user, password)
	req.Header.Set("Accept", "application/json")
	c := http.Client{Timeout: 30 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// DropAtEnd drops db on base (as root without a password) when the test ends.
func DropAtEnd(t testing.TB, base, db string) {
	t.Cleanup(func() {
		if st, body, err := SQL(base, "root", "", "", `DROP DATABASE IF EXISTS "`+db+`"`); err != nil || st != 200 {
			t.Logf("drop %s: %d %s %v", db, st, body, err)
		}
	})
}

// Instance is a CnosDB of a test's own, started by scripts/start_cnosdb.sh
// on free ports with its state in a temporary directory: for what would
// disturb the shared server (kill -9, auth on).
type Instance struct {
	URL string
	t   testing.TB
	dir string
	env []string
}

// InstanceOptions change the config template of an Instance.
type InstanceOptions struct {
	// Auth turns authentication on. root's password must then be changed
	// before root can do anything: StartInstance sets it to RootPassword.
	Auth         bool
	RootPassword string
	// WriteLimit replaces the 160M limit on a write request's (compressed)
	// body, e.g. "1K": a larger body is answered 413 with an empty body.
	WriteLimit string
}

// StartInstance starts a second CnosDB named name and stops it (removing
// its data) when the test ends. Without a server binary it skips the test,
// or fails it when CI is set.
func StartInstance(t testing.TB, name string, o InstanceOptions) *Instance {
	t.Helper()
	root, state, port := loadtest.PrivatePlace(t, 1, 4) // an instance listens on p-1 to p+4
	in := &Instance{URL: fmt.Sprintf("http://127.0.0.1:%d", port), t: t, dir: filepath.Join(state, "cnosdb", name)}
	in.env = append(os.Environ(), "TSLOAD_STATE="+state, "CNOSDB_NAME="+name, "CNOSDB_PORT="+strconv.Itoa(port))
	if o.Auth || o.WriteLimit != "" {
		tmpl := os.Getenv("TSLOAD_CNOSDB_CONF")
		if tmpl == "" {
			tmpl = filepath.Join(vendorDir(root), "cnosdb-2.4.2.1.toml")
		}
		data, err := os.ReadFile(tmpl)
		if err != nil {
			loadtest.SkipOrFail(t, "no CnosDB config template: "+err.Error(), "no CnosDB config template under CI: "+err.Error())
		}
		conf := string(data)
		edit := func(from, to string) {
			if !strings.Contains(conf, from) {
				t.Fatalf("%s has no line %q", tmpl, from)
			}
			conf = strings.Replace(conf, from, to, 1)
		}
		if o.Auth {
			edit("auth_enabled = false", "auth_enabled = true")
		}
		if o.WriteLimit != "" {
			edit(`write_sql_limit = "160M"`, fmt.Sprintf("write_sql_limit = %q", o.WriteLimit))
		}
		path := filepath.Join(state, "cnosdb.toml")
		if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
			t.Fatal(err)
		}
		in.env = append(in.env, "TSLOAD_CNOSDB_CONF="+path)
	}
	in.script(filepath.Join(root, "scripts", "start_cnosdb.sh"), true)
	t.Cleanup(func() { in.script(filepath.Join(root, "scripts", "stop_cnosdb.sh"), false) })
	if o.Auth {
		// A fresh root's password is "root", and it may do nothing but change it.
		stmt := fmt.Sprintf("ALTER USER root SET PASSWORD = '%s'", strings.ReplaceAll(o.RootPassword, "'", "''"))
		if st, body, err := SQL(in.URL, "root", "root", "", stmt); err != nil || st != 200 {
			t.Fatalf("set root's password: %d %s %v", st, body, err)
		}
	}
	return in
}

// Start starts the instance again (its data kept). It may be called from
// any goroutine: it reports failure as an error.
func (in *Instance) Start() error {
	root, err := loadtest.RepoRoot()
	if err != nil {
		return err
	}
	return in.run(filepath.Join(root, "scripts", "start_cnosdb.sh"))
}

func (in *Instance) run(path string) error { return loadtest.RunScript(in.env, path) }

func (in *Instance) script(path string, start bool) {
	err := in.run(path)
	switch {
	case err == nil:
	case start && strings.Contains(err.Error(), "no CnosDB server binary"):
		loadtest.SkipOrFail(in.t, err.Error(), "under CI: "+err.Error())
	case start:
		in.t.Fatal(err)
	default:
		in.t.Error(err)
	}
}

// Kill stops the server with SIGKILL (no clean shutdown) and waits until
// the process is gone. It may be called from any goroutine.
func (in *Instance) Kill() error { return loadtest.KillPIDFile(filepath.Join(in.dir, "cnosdb.pid")) }

// vendorDir is ../shared/vendor beside the repository, or beside the main
// checkout when root is a git worktree (as scripts/start_cnosdb.sh finds it).
func vendorDir(root string) string {
	dir := filepath.Join(root, "..", "shared", "vendor")
	if _, err := os.Stat(dir); err == nil {
		return dir
	}
	out, err := exec.Command("git", "-C", root, "rev-parse", "--path-format=absolute", "--git-common-dir").Output()
	if err != nil {
		return dir
	}
	return filepath.Join(filepath.Dir(strings.TrimSpace(string(out))), "..", "shared", "vendor")
}

// Count returns count(*) of table in db on base (0 when the table was never
// written), failing t when the server answers anything else.
func Count(t testing.TB, base, db, table string) int64 {
	t.Helper()
	st, body, err := SQL(base, "root", "", db, `SELECT count(*) AS n FROM "`+table+`"`)
	if err == nil && st == 422 && strings.Contains(body, "Table not found") {
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
