package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/loadtest"
)

// TestCompareScript runs scripts/compare.sh with the real loaders on a
// tiny dataset against the shared QuestDB, InfluxDB 1.x and PostgreSQL:
// every loader gets the comparison policy whatever its own defaults (no
// body compression, no QuestDB DEDUP, one request timeout), the table has a
// row per server and ends with the settings aligned, and QuestDB's tables
// are <db-name>_<table> (one namespace: compare.sh drops only its own).
func TestCompareScript(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	qdb := loadtest.HTTPServer(t, "QuestDB", "TSLOAD_QUESTDB_HTTP", "http://127.0.0.1:9000", "scripts/start_questdb.sh")
	influx := loadtest.HTTPServer(t, "InfluxDB", "TSLOAD_INFLUX_URL", "http://127.0.0.1:8086", "scripts/start_influxdb.sh")
	pg := loadtest.PGConnect(t)
	db := fmt.Sprintf("tsload_cmp_%d", time.Now().UnixNano()%1e9)
	loadtest.DropQuestDBTables(t, qdb, db+"_")
	t.Cleanup(func() {
		pg.Exec(context.Background(), `DROP DATABASE IF EXISTS "`+db+`" WITH (FORCE)`)
		http.PostForm(influx+"/query", url.Values{"q": {`DROP DATABASE "` + db + `"`}})
	})
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", bin+"/", "../load_questdb", "../load_influx", "../load_timescale", "../generate_data", ".")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	out := t.TempDir()
	cmd := exec.Command("bash", "../../scripts/compare.sh", "--out", out, "--targets", "questdb,influx,timescale",
		"--scale", "1", "--timestamp-end", "2016-01-01T00:05:00Z", "--db-name", db, "--footprint-settle", "0s")
	cmd.Env = append(os.Environ(), "TSLOAD_BIN="+bin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("compare.sh: %v\n%s", err, stderr.String())
	}
	table := stdout.String()
	for _, want := range []string{"| target | server | API | runs |", "| influx | InfluxDB ", "| questdb | QuestDB ", "| timescale | PostgreSQL ",
		"Settings aligned by compare.sh for every database: batch size 5000, workers 2, request timeout 60s, request bodies not compressed, no DEDUP tables in QuestDB"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	for target, want := range map[string]map[string]any{
		"questdb":   {"gzip": false, "dedup": false, "request-timeout": "1m0s", "table-prefix": db + "_"},
		"influx":    {"gzip": false, "request-timeout": "1m0s", "table-prefix": ""},
		"timescale": {"request-timeout": "1m0s", "table-prefix": ""},
	} {
		res := loadtest.ReadResults(t, filepath.Join(out, "results", target+"_r1.json"))
		for k, v := range want {
			if res.Flags[k] != v {
				t.Errorf("%s: --%s %v, want %v", target, k, res.Flags[k], v)
			}
		}
		if res.Status != "ok" || res.Verify == nil || !res.Verify.OK {
			t.Errorf("%s: status %s verify %+v", target, res.Status, res.Verify)
			continue
		}
		if _, ok := res.Verify.Actual[want["table-prefix"].(string)+"cpu"]; !ok {
			t.Errorf("%s: tables %v", target, res.Verify.Actual)
		}
	}
}
