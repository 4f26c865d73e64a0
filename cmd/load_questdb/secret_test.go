package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tsload/tsload/internal/loadtest"
)

// TestSecrets passes a password and a token by environment variable, by
// flag, inside --http-url and inside --conf, on loads that succeed and
// loads that fail: neither appears in stderr, the error or the results
// file. (The test server runs without authentication.)
func TestSecrets(t *testing.T) {
	httpURL, pg := questdbServer(t)
	const secret = "Zq8-s3cr3t-pw"
	const token = "Tk9-s3cr3t-token"
	table := fmt.Sprintf("secret_%d", time.Now().UnixNano()%1e9)
	loadtest.DropQuestDBTables(t, httpURL, table)
	var tables []string
	defer func() {
		conn, err := pgx.Connect(context.Background(), pg)
		if err == nil {
			for _, tb := range tables {
				conn.Exec(context.Background(), "DROP TABLE IF EXISTS "+tb)
			}
			conn.Close(context.Background())
		}
	}()
	withSecret := strings.Replace(httpURL, "://", "://admin:"+secret+"@", 1)
	addr := strings.TrimPrefix(httpURL, "http://")
	for _, tc := range []struct {
		name    string
		env     []string
		args    []string
		wantErr string
	}{
		{"env ok", []string{"QUESTDB_PASSWORD", secret, "QUESTDB_TOKEN", token}, []string{"--username", "admin"}, ""},
		{"flag ok", nil, []string{"--username", "admin", "--password", secret}, ""},
		{"token flag ok", nil, []string{"--token", token}, ""},
		{"url ok", nil, []string{"--http-url", withSecret}, ""},
		{"conf ok", nil, []string{"--conf", "http::addr=" + addr + ";username=admin;password=" + secret + ";"}, ""},
		{"env bad port", []string{"QUESTDB_PASSWORD", secret}, []string{"--username", "admin", "--http-url", "http://127.0.0.1:1", "--pg", "none", "--retry-timeout", "1s"}, "connection refused"},
		{"conf bad port", nil, []string{"--conf", "http::addr=127.0.0.1:1;token=" + token + ";", "--pg", "none", "--retry-timeout", "1s"}, "connection refused"},
		{"url bad port", nil, []string{"--http-url", "http://admin:" + secret + "@127.0.0.1:1", "--pg", "none", "--retry-timeout", "1s"}, "connection refused"},
	} {
		tb := fmt.Sprintf("%s_%d", table, len(tables))
		tables = append(tables, tb)
		t.Run(tc.name, func(t *testing.T) {
			for i := 0; i+1 < len(tc.env); i += 2 {
				t.Setenv(tc.env[i], tc.env[i+1])
			}
			r := loadtest.RunOnInput(t, spec(), tb+".ilp", tb+",host=a v=1 1000000000\n"+tb+",host=b v=2 2000000000\n", tc.wantErr,
				append([]string{"--http-url", httpURL, "--pg", pg}, tc.args...)...)
			r.NoSecret(t, "a secret", secret, token)
		})
	}
}
