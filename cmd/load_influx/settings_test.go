package main

import (
	"testing"

	"github.com/tsload/tsload/internal/influx3test"
	"github.com/tsload/tsload/internal/loadtest"
)

// TestErrorsNameFlags: pkg/target/influx names its Config fields; the
// command shows the flags instead (credentials with their environment
// variables), before connecting and after.
func TestErrorsNameFlags(t *testing.T) {
	s := influx3test.New()
	s.SetToken("right-token")
	t.Cleanup(s.Close)
	in, _ := loadtest.InputFile(t, "in.ilp", "cpu,h=a v=1 1\n")
	t.Setenv("INFLUX_TOKEN", "")
	t.Setenv("INFLUX_ORG", "")
	loadtest.CLIErrors(t, spec(), []loadtest.CLIError{
		{[]string{"--precision", "ns"}, `invalid --precision "ns" (InfluxDB 1.x accepts n, u, ms, s, m, h;`},
		{[]string{"--api", "v4"}, `invalid --api "v4" (want v1, v2, v3, or nothing to detect it)`},
		{[]string{"--gzip-level", "0"}, "invalid --gzip-level 0 (want 1-9)"},
		{[]string{"--urls", ""}, "no URL given (--urls)"},
		{[]string{"--api", "v2", "--rp", "x"}, "--rp and --consistency are InfluxDB 1.x settings; the server speaks the v2 API"},
		{[]string{"--api", "v1", "--no-sync"}, "--accept-partial and --no-sync are InfluxDB 3 settings"},
		{[]string{"--api", "v3", "--bucket", "b"}, "--bucket is an InfluxDB 2 setting (the server speaks the v3 API): name the database with --db-name"},
		{[]string{"--api", "v2"}, "give the organization (--org or INFLUX_ORG)"},
		{[]string{"--token", "t", "--user", "u"}, "give a token (--token or INFLUX_TOKEN) or a user and password (--user or INFLUX_USERNAME, --password or INFLUX_PASSWORD), not both"},
		// After connecting: the server wants a token for /ping.
		{[]string{"--urls", s.URL, "--file", in}, "a server that wants a token for it is InfluxDB 3: give the token (--token or INFLUX_TOKEN)"},
	})
}

// TestHelpTellsFormats: --help offers the formats the target takes, no more.
func TestHelpTellsFormats(t *testing.T) { loadtest.HelpTellsFormats(t, spec()) }
