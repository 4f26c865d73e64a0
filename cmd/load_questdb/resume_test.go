package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/gentest"
	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/journal"
	"github.com/tsload/tsload/pkg/results"
	"github.com/tsload/tsload/pkg/target/questdb"
)

// TestResumeDefaultFlags kills a load made with the default server flags
// (no --http-url, no --pg) and resumes it with --resume alone: the default
// SQL endpoint holds no secret in the journal to be given again, and the
// resumed load ends with every row once.
func TestResumeDefaultFlags(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the loader")
	}
	httpURL, _, prefix := questdbTables(t, "rsdef")
	if httpURL != "http://"+questdb.DefaultHost+":"+questdb.DefaultHTTPPort {
		t.Skip("the QuestDB under test is not at the default addresses")
	}
	prefix += "_"
	dir := t.TempDir()
	file, rows := gentest.GenFile(t, dir, "cpu.ilp", "cpu-only", format.ILP, 10, 2*time.Hour) // 7,200 rows
	resultsPath := filepath.Join(dir, "r.json")
	bin := loadtest.BuildCommand(t, "github.com/tsload/tsload/cmd/load_questdb")
	var first bytes.Buffer
	c := exec.Command(bin, "--file", file, "--table-prefix", prefix, "--batch-size", "100", "--rate", "2000",
		"--reporting-period", "50ms", "--results-file", resultsPath)
	c.Stderr = &first
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- c.Wait() }()
	deadline := time.After(2 * time.Minute)
	for acked := int64(0); acked < 500; {
		select {
		case err := <-exited:
			t.Fatalf("the load ended (%v) before the kill\n%s", err, first.String())
		case <-deadline:
			c.Process.Kill()
			t.Fatalf("nothing acknowledged in 2 minutes\n%s", first.String())
		case <-time.After(20 * time.Millisecond):
		}
		if j, _, err := journal.Read(resultsPath); err == nil {
			acked = j.Rows
		}
	}
	c.Process.Kill()
	if err := <-exited; err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("the load was not killed (%v)\n%s", err, first.String())
	}
	var out bytes.Buffer
	r := exec.Command(bin, "--resume", resultsPath)
	r.Stderr = &out
	if err := r.Run(); err != nil {
		t.Fatalf("resume with the default flags: %v\n%s", err, out.String())
	}
	res := loadtest.ReadResults(t, resultsPath)
	table := prefix + "cpu"
	if res.Resume == nil || res.Status != results.StatusOK || res.Verify == nil || !res.Verify.OK || res.Verify.Actual[table] != rows {
		t.Fatalf("resumed: status %s resume %+v verify %+v, want %d rows in %s\n%s", res.Status, res.Resume, res.Verify, rows, table, out.String())
	}
	os.Remove(resultsPath)
}
