package main

import (
	"fmt"
	"net/url"
	"testing"

	"github.com/tsload/tsload/internal/loadtest"
)

// TestSecrets passes a password by environment variable (PGPASSWORD), by
// flag and inside the --postgres URL, on loads that succeed and loads that
// fail: the password appears in none of stderr, the error and the results
// file. (The test server trusts local connections, so any password is
// accepted.)
func TestSecrets(t *testing.T) {
	base, db := freshDB(t, "tsload_secret")
	const secret = "Zq8-s3cr3t-pw"
	u, _ := url.Parse(base)
	dsn := fmt.Sprintf("host=%s port=%s user=%s password=%s", u.Hostname(), u.Port(), u.User.Username(), secret)
	u.User = url.UserPassword(u.User.Username(), secret)
	withSecret := u.String()
	u.Host = "127.0.0.1:1"
	badPort := u.String()
	for _, tc := range []struct {
		name    string
		env     bool
		args    []string
		wantErr string
	}{
		{"env ok", true, []string{"--postgres", base}, ""},
		{"flag ok", false, []string{"--postgres", base, "--password", secret}, ""},
		{"url ok", false, []string{"--postgres", withSecret}, ""},
		{"dsn ok", false, []string{"--postgres", dsn}, ""},
		{"env bad port", true, []string{"--host", "127.0.0.1", "--port", "1", "--retry-timeout", "1s"}, "connection refused"},
		{"flag missing db", false, []string{"--postgres", base, "--password", secret, "--db-name", db + "_missing", "--do-create-db=false"}, "does not exist"},
		{"url bad port", false, []string{"--postgres", badPort, "--retry-timeout", "1s"}, "connect"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.env {
				t.Setenv("PGPASSWORD", secret)
			}
			r := loadtest.RunOnInput(t, spec(), "in.ilp", "secret_m,host=a v=1 1000000000\nsecret_m,host=b v=2 2000000000\n", tc.wantErr,
				append([]string{"--db-name", db, "--drop-db"}, tc.args...)...)
			r.NoSecret(t, "the password", secret)
		})
	}
}
