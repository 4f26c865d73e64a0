package main

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/gentest"
	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/format"
)

// TestProtocolVersions loads a devops file with each line protocol version
// (auto decides 3 on QuestDB 9.3.4) and verifies counts and content; the
// results' setup and flags record the version written.
func TestProtocolVersions(t *testing.T) {
	httpURL, pg, prefix := questdbTables(t, "proto")
	dir := t.TempDir()
	file, rows := gentest.GenFile(t, dir, "devops.ilp", "devops", format.ILP, 3, time.Hour)
	for _, tc := range []struct {
		given string
		want  float64 // as JSON decodes it
	}{{"1", 1}, {"2", 2}, {"auto", 3}} {
		results := filepath.Join(dir, "r"+tc.given+".json")
		r := loadtest.RunCLI(t, spec(), []string{"load_questdb", "--file", file, "--table-prefix", fmt.Sprintf("%s_%s_", prefix, tc.given), "--drop-db",
			"--protocol-version", tc.given, "--verify", "content", "--pg", pg, "--http-url", httpURL, "--results-file", results}, results, "")
		res := loadtest.ReadResults(t, results)
		if res.Verify == nil || !res.Verify.OK || res.Rows != rows {
			t.Fatalf("--protocol-version %s: rows %d of %d, verify %+v\n%s", tc.given, res.Rows, rows, res.Verify, r.Stderr)
		}
		if res.Setup == nil || res.Setup.Settings["protocol-version"] != tc.want || res.Flags["protocol-version"] != tc.want {
			t.Errorf("--protocol-version %s: setup %+v, flags %v, want version %v", tc.given, res.Setup, res.Flags["protocol-version"], tc.want)
		}
	}
}
