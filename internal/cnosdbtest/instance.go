package cnosdbtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsload/tsload/internal/loadtest"
)

// Instance is a CnosDB of a test's own, started by scripts/start_cnosdb.sh
// on free ports with its state in a temporary directory: for what would
// disturb the shared server (kill -9, auth on). Start starts it again (its
// data kept); Kill stops it with SIGKILL.
type Instance struct {
	URL string
	*loadtest.ScriptServer
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
	s := loadtest.PrivateServer(t, "CNOSDB", name, 1, 4) // an instance listens on p-1 to p+4
	s.StartScript, s.StopScript = "scripts/start_cnosdb.sh", "scripts/stop_cnosdb.sh"
	s.PIDFile, s.NoBinary = filepath.Join(s.State, "cnosdb", name, "cnosdb.pid"), "no CnosDB server binary"
	if o.Auth || o.WriteLimit != "" {
		s.Env = append(s.Env, "TSLOAD_CNOSDB_CONF="+writeConf(t, s.State, o))
	}
	s.Run(t)
	in := &Instance{URL: fmt.Sprintf("http://127.0.0.1:%d", s.Port), ScriptServer: s}
	if o.Auth {
		// A fresh root's password is "root", and it may do nothing but change it.
		stmt := fmt.Sprintf("ALTER USER root SET PASSWORD = '%s'", strings.ReplaceAll(o.RootPassword, "'", "''"))
		if st, body, err := SQL(in.URL, "root", "root", "", stmt); err != nil || st != 200 {
			t.Fatalf("set root's password: %d %s %v", st, body, err)
		}
	}
	return in
}

// writeConf writes the config template with o's changes to state/cnosdb.toml
// and returns its path.
func writeConf(t testing.TB, state string, o InstanceOptions) string {
	t.Helper()
	tmpl := os.Getenv("TSLOAD_CNOSDB_CONF")
	if tmpl == "" {
		root, err := loadtest.RepoRoot()
		if err != nil {
			t.Fatal(err)
		}
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
	return path
}

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
