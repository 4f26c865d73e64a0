package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/loadcli"
	"github.com/tsload/tsload/pkg/target/questdb"
)

// The command's flags, tested without a server.

// TestCLIErrors: bad flag combinations fail before any connection, and
// --do-load=false runs without one.
func TestCLIErrors(t *testing.T) {
	loadtest.CLIErrors(t, spec(), []loadtest.CLIError{
		{[]string{"--conf", "http::addr=x;auto_flush_rows=10;", "--batch-size", "20"}, "disagree"},
		{[]string{"--conf", "http::addr=x;", "--transport", "tcp"}, "give the setting in one place"},
		{[]string{"--conf", "http::addr=x;bogus=1;"}, `unknown key "bogus"`},
		{[]string{"--transport", "udp"}, `unknown --transport "udp" (want http or tcp)`},
		{[]string{"--gzip", "--transport", "tcp"}, "--gzip applies to ILP/HTTP only (not --transport tcp)"},
		// A --conf of ILP/TCP with --gzip was taken, and the gzip silently dropped.
		{[]string{"--gzip", "--conf", "tcp::addr=x:9009;"}, "--gzip applies to ILP/HTTP only (not --transport tcp)"},
		{[]string{"--gzip", "--gzip-level", "0"}, "invalid --gzip-level 0 (want 1-9)"},
		{[]string{"--conf", "http::addr=x;auto_flush=on;"}, `key "auto_flush" does not apply to load_questdb: batches are cut by --batch-size (or auto_flush_rows)`},
		{[]string{"--format", "pgcopy"}, "--format pgcopy: QuestDB is loaded over ILP"},
		{[]string{"--serialization-pass"}, "needs --file inputs"},
	})
	var stderr bytes.Buffer
	err := loadcli.Run(context.Background(), spec(), []string{"load_questdb", "--do-load=false", "--http-url", "http://127.0.0.1:1"},
		strings.NewReader("cpu,h=a v=1 1\ncpu,h=b v=2 2\n"), &stderr)
	if err != nil || !strings.Contains(stderr.String(), "2 rows") {
		t.Errorf("--do-load=false: %v\n%s", err, stderr.String())
	}
}

// TestEndpointsOneServer: the endpoints not given are on the host of the
// one that is, and the SQL goes to /exec of the HTTP URL unless --pg names
// a PG-wire URL, so `--http-url http://db:9000` alone counts and verifies on
// db's server at that port, not on 127.0.0.1 nor on db's port 8812.
func TestEndpointsOneServer(t *testing.T) {
	for _, tc := range []struct {
		name             string
		in               questdb.Config
		pg               string
		url, tcp, wantPG string
	}{
		{"defaults", questdb.Config{Transport: questdb.HTTP}, "",
			"http://127.0.0.1:9000", "", ""},
		{"http url", questdb.Config{Transport: questdb.HTTP, URL: "https://db.example:9443"}, "",
			"https://db.example:9443", "", ""},
		{"http url ipv6", questdb.Config{Transport: questdb.HTTP, URL: "http://[2001:db8::1]:9000"}, "",
			"http://[2001:db8::1]:9000", "", ""},
		{"tcp addr", questdb.Config{Transport: questdb.TCP, TCPAddr: "db.example:9009"}, "",
			"http://db.example:9000", "db.example:9009", ""},
		{"tcp from http url", questdb.Config{Transport: questdb.TCP, URL: "http://db.example:9000"}, "",
			"http://db.example:9000", "db.example:9009", ""},
		{"pg given", questdb.Config{Transport: questdb.HTTP, URL: "http://db.example:9000"}, "postgres://u:p@db.example:5555/qdb",
			"http://db.example:9000", "", "postgres://u:p@db.example:5555/qdb"},
		{"pg none", questdb.Config{Transport: questdb.HTTP, URL: "http://db.example:9000"}, pgNone,
			"http://db.example:9000", "", ""},
	} {
		qc := tc.in
		fillEndpoints(&qc, tc.pg)
		if qc.URL != tc.url || qc.TCPAddr != tc.tcp || qc.PG != tc.wantPG {
			t.Errorf("%s: URL %q TCPAddr %q PG %q, want %q %q %q", tc.name, qc.URL, qc.TCPAddr, qc.PG, tc.url, tc.tcp, tc.wantPG)
		}
		if _, err := questdb.New(qc); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

// TestEndpointsRefused: a write and a count on different servers are
// refused before anything connects, naming the flags.
func TestEndpointsRefused(t *testing.T) {
	loadtest.CLIErrors(t, spec(), []loadtest.CLIError{
		{[]string{"--http-url", "http://db.example:9000", "--pg", "postgres://admin:quest@127.0.0.1:8812/qdb"},
			`write to host "db.example" (--http-url) and run its SQL (tables, counts, verification) on host "127.0.0.1" (--pg)`},
		{[]string{"--transport", "tcp", "--tcp-addr", "db.example:9009", "--http-url", "http://127.0.0.1:9000"},
			`write to host "db.example" (--tcp-addr)`},
		{[]string{"--conf", "http::addr=db.example:9000;", "--pg", "postgres://admin:quest@other.example:8812/qdb"},
			`on host "other.example" (--pg)`},
	})
}

// TestHelpTellsFormats: --help offers the formats the target takes, no more.
func TestHelpTellsFormats(t *testing.T) { loadtest.HelpTellsFormats(t, spec()) }
