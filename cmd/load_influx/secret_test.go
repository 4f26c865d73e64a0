package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/target/httpwrite"
	"github.com/tsload/tsload/pkg/target/influx"
)

// TestSecrets passes a password by environment variable, by flag and inside
// the URL, on loads that succeed and loads that fail: the password appears
// in none of stderr, the error and the results file. (The server runs
// without authentication, so any password is accepted.)
func TestSecrets(t *testing.T) {
	url := influxURL(t)
	const secret = "Zq8-s3cr3t-pw"
	db := influxDB(t, url)
	withSecret := strings.Replace(url, "://", "://admin:"+secret+"@", 1)
	for _, tc := range []struct {
		name    string
		env     bool
		args    []string
		wantErr string
	}{
		{"env ok", true, []string{"--urls", url, "--user", "admin"}, ""},
		{"flag ok", false, []string{"--urls", url, "--user", "admin", "--password", secret}, ""},
		{"url ok", false, []string{"--urls", withSecret}, ""},
		{"env bad port", true, []string{"--urls", "http://127.0.0.1:1", "--user", "admin", "--retry-timeout", "1s"}, "connection refused"},
		{"flag missing db", false, []string{"--urls", url, "--user", "admin", "--password", secret, "--db-name", db + "_missing", "--do-create-db=false"}, "does not exist"},
		{"url bad port", false, []string{"--urls", "http://admin:" + secret + "@127.0.0.1:1", "--retry-timeout", "1s"}, "connection refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.env {
				t.Setenv("INFLUX_PASSWORD", secret)
			}
			r := loadtest.RunOnInput(t, spec(), "in.ilp", "cpu,host=a v=1 1\ncpu,host=b v=2 2\n", tc.wantErr, append([]string{"--db-name", db}, tc.args...)...)
			r.NoSecret(t, "the password", secret)
			if tc.env || strings.Contains(strings.Join(tc.args, " "), "--password") {
				if !strings.Contains(string(r.Results), `"password": "REDACTED"`) {
					t.Errorf("results file does not show the password as REDACTED:\n%s", r.Results)
				}
			}
		})
	}
}

// TestTokenSecretsV2 loads into the real InfluxDB 2.7.12 of
// scripts/start_influxdb.sh --version 2 with the token from INFLUX_TOKEN
// (the README's 2.x example) and with a wrong one: exact counts, and the
// tokens appear nowhere.
func TestTokenSecretsV2(t *testing.T) {
	url := os.Getenv("TSLOAD_INFLUX2_URL")
	if url == "" {
		url = "http://127.0.0.1:8087"
	}
	if resp, err := http.Get(url + "/ping"); err != nil {
		loadtest.SkipOrFail(t, "InfluxDB 2 unreachable: "+err.Error(), "InfluxDB 2 unreachable under CI (scripts/start_influxdb.sh --version 2): "+err.Error())
	} else {
		resp.Body.Close()
	}
	token := os.Getenv("TSLOAD_INFLUX2_TOKEN")
	if token == "" {
		token = "tsload-test-token"
	}
	const wrong = "Wr0ng-v2-t0ken"
	var b strings.Builder
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&b, "cpu,host=h%d usage=%d.5,idle=%di %d\n", i%30, i, i%7, 1600000000000000000+int64(i/30)*1e9)
	}
	bucket := fmt.Sprintf("tsload_cmd_v2_%d", time.Now().UnixNano()%1e9)
	for _, tc := range []struct {
		name, token string
		args        []string
		wantErr     string
	}{
		{"env ok", token, []string{"--drop-db"}, ""},
		{"env wrong", wrong, nil, "authentication failed (401 unauthorized access)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("INFLUX_TOKEN", tc.token)
			r := loadtest.RunOnInput(t, spec(), "in.ilp", b.String(), tc.wantErr,
				append([]string{"--urls", url, "--org", "tsload", "--bucket", bucket, "--batch-size", "700", "--workers", "2"}, tc.args...)...)
			r.NoSecret(t, "the token", tc.token)
			if !strings.Contains(string(r.Results), `"token": "REDACTED"`) {
				t.Errorf("results file does not show the token as REDACTED:\n%s", r.Results)
			}
			if tc.wantErr == "" && (!strings.Contains(r.Stderr, "verify OK") || !strings.Contains(r.Stderr, "cpu 3000/3000")) {
				t.Fatalf("no exact verify in the summary:\n%s", r.Stderr)
			}
		})
	}
	tg, _ := influx.New(influx.Config{Conn: httpwrite.Conn{URLs: []string{url}}, Precision: "n", Token: token, Org: "tsload", Bucket: bucket})
	tg.Prepare(context.Background(), load.PrepareOptions{DBName: bucket, DropDB: true})
}
