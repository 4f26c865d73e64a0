package main

import (
	"fmt"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/gentest"
	"github.com/tsload/tsload/pkg/format"
)

// TestProtocolVersions loads a devops file with each line protocol version
// over HTTP (auto decides 3 on QuestDB 9.3.4) and TCP (auto is 1, 2 when
// given) and verifies counts and content; the results' setup and flags
// record the version written.
func TestProtocolVersions(t *testing.T) {
	httpURL, pg, prefix := questdbTables(t, "proto")
	dir := t.TempDir()
	file, rows := gentest.GenFile(t, dir, "devops.ilp", "devops", format.ILP, 3, time.Hour)
	for _, tc := range []struct {
		given, transport string
		want             float64 // as JSON decodes it
	}{{"1", "http", 1}, {"2", "http", 2}, {"auto", "http", 3}, {"2", "tcp", 2}, {"auto", "tcp", 1}} {
		r, res := loadInto(t, httpURL, pg, "--file", file, "--table-prefix", fmt.Sprintf("%s_%s%s_", prefix, tc.given, tc.transport), "--drop-db",
			"--protocol-version", tc.given, "--transport", tc.transport, "--verify", "content")
		if res.Verify == nil || !res.Verify.OK || res.Rows != rows {
			t.Fatalf("--transport %s --protocol-version %s: rows %d of %d, verify %+v\n%s", tc.transport, tc.given, res.Rows, rows, res.Verify, r.Stderr)
		}
		if res.Setup == nil || res.Setup.Settings["protocol-version"] != tc.want || res.Flags["protocol-version"] != tc.want {
			t.Errorf("--protocol-version %s: setup %+v, flags %v, want version %v", tc.given, res.Setup, res.Flags["protocol-version"], tc.want)
		}
	}
}
