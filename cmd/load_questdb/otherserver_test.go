package main

import (
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/gentest"
	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/internal/vmtest"
	"github.com/tsload/tsload/pkg/format"
)

// TestOtherServerOnHost points --http-url at another server on the host of
// the local QuestDB (VictoriaMetrics, which takes ILP at /write too): the
// load is refused before anything is created, naming the endpoint, and the
// local QuestDB holds none of the use case's tables under the run's prefix
// (its SQL once went to 127.0.0.1:8812 while the rows went elsewhere).
func TestOtherServerOnHost(t *testing.T) {
	httpURL, _, prefix := questdbTables(t, "other")
	prefix += "_"
	other := vmtest.RealURL(t)
	dir := t.TempDir()
	file, _ := gentest.GenFile(t, dir, "cpu.ilp", "cpu-only", format.ILP, 2, time.Hour)
	resultsPath := filepath.Join(dir, "r.json")
	r := loadtest.RunCLI(t, spec(), []string{"load_questdb", "--file", file, "--http-url", other, "--use-case", "devops",
		"--table-prefix", prefix, "--retry-timeout", "1s", "--results-file", resultsPath}, resultsPath, "does not answer as QuestDB")
	if !strings.Contains(r.Err.Error(), other) {
		t.Errorf("the error does not name %s: %v", other, r.Err)
	}
	status, body := loadtest.HTTP(t, "GET", httpURL+"/exec?query="+url.QueryEscape("SELECT table_name FROM tables() WHERE table_name LIKE '"+prefix+"%'"), "", nil)
	if status != 200 || !strings.Contains(body, `"dataset":[]`) {
		t.Fatalf("the local QuestDB holds tables of the refused run (HTTP %d): %s", status, body)
	}
}
