package main

import (
	"strings"
	"testing"

	"github.com/tsload/tsload/internal/cnosdbtest"
	"github.com/tsload/tsload/internal/loadtest"
)

// TestSecrets passes the password by environment variable, by flag and
// inside the URL, on loads that succeed and loads that fail (a wrong
// password, a closed port): neither the right nor the wrong password
// appears in stderr, the error or the results file. The server is a CnosDB
// of the test's own with auth on (the shared one runs with auth off).
func TestSecrets(t *testing.T) {
	const secret = "Zq8-s3cr3t-pw"
	const wrong = "Wr0ng-s3cr3t-pw"
	cnosdbtest.RealURL(t) // the same skip rule as the shared server
	srv := cnosdbtest.StartInstance(t, "secrets", cnosdbtest.InstanceOptions{Auth: true, RootPassword: secret})
	withSecret := strings.Replace(srv.URL, "://", "://root:"+secret+"@", 1)
	for _, tc := range []struct {
		name    string
		env     string
		args    []string
		wantErr string
	}{
		{"env ok", secret, []string{"--urls", srv.URL}, ""},
		{"flag ok", "", []string{"--urls", srv.URL, "--password", secret}, ""},
		{"url ok", "", []string{"--urls", withSecret, "--user", ""}, ""},
		{"env wrong password", wrong, []string{"--urls", srv.URL}, "Access denied for user 'root'"},
		{"flag wrong password", "", []string{"--urls", srv.URL, "--password", wrong}, "Access denied for user 'root'"},
		{"env bad port", secret, []string{"--urls", "http://127.0.0.1:1", "--retry-timeout", "1s"}, "connection refused"},
		{"url bad port", "", []string{"--urls", "http://root:" + secret + "@127.0.0.1:1", "--user", "", "--retry-timeout", "1s"}, "connection refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.env != "" {
				t.Setenv("CNOSDB_PASSWORD", tc.env)
			}
			r := loadtest.RunOnInput(t, spec(), "in.ilp", "cpu,h=a v=1 1\ncpu,h=b v=2 1\n", tc.wantErr,
				append([]string{"--db-name", "bench", "--drop-db"}, tc.args...)...)
			r.NoSecret(t, "a password", secret, wrong)
		})
	}
}
