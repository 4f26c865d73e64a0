//go:build cgo

package sqlembed_test

import (
	"bytes"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"
	_ "github.com/mattn/go-sqlite3"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/format/pgcopy"
	"github.com/tsload/tsload/pkg/journal"
	"github.com/tsload/tsload/pkg/schema"
	"github.com/tsload/tsload/pkg/target/sqlembed"
	"github.com/tsload/tsload/pkg/usecase"
)

// The loaders are built and run as processes; the files they write are
// opened here with the database's own driver and counted.

type engine struct {
	name, cmd, driver, ext string
}

var engines = []engine{
	{"duckdb", "github.com/tsload/tsload/cmd/load_duckdb", "duckdb", ".duckdb"},
	{"sqlite", "github.com/tsload/tsload/cmd/load_sqlite", "sqlite3", ".sqlite"},
}

var (
	binMu sync.Mutex
	bins  = map[string]string{}
	binTD string
)

// bin builds pkg once per test binary.
func bin(t *testing.T, pkg string) string {
	t.Helper()
	binMu.Lock()
	defer binMu.Unlock()
	if b := bins[pkg]; b != "" {
		return b
	}
	if binTD == "" {
		d, err := os.MkdirTemp("", "sqlembed-bin")
		if err != nil {
			t.Fatal(err)
		}
		binTD = d
	}
	b := filepath.Join(binTD, filepath.Base(pkg))
	if out, err := exec.Command("go", "build", "-o", b, pkg).CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	bins[pkg] = b
	return b
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binTD != "" {
		os.RemoveAll(binTD)
	}
	os.Exit(code)
}

// generate writes cpu-only data (scale hosts, hours of 10 s) in format f.
func generate(t *testing.T, dir, f string, scale, hours int) string {
	t.Helper()
	path := filepath.Join(dir, fmt.Sprintf("cpu-%d-%d.%s", scale, hours, f))
	end := time.Date(2016, 1, 1, hours, 0, 0, 0, time.UTC).Format(time.RFC3339)
	cmd := exec.Command(bin(t, "github.com/tsload/tsload/cmd/generate_data"), "--use-case", "cpu-only", "--seed", "1",
		"--scale", fmt.Sprint(scale), "--timestamp-end", end, "--format", f, "--file", path)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("generate_data: %v\n%s", err, out)
	}
	return path
}

// load runs e's loader with args; it must end as wantErr says ("": ok).
func load(t *testing.T, e engine, wantErr string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin(t, e.cmd), args...)
	var out bytes.Buffer
	cmd.Stderr = &out
	err := cmd.Run()
	switch {
	case wantErr == "" && err != nil:
		t.Fatalf("%s %s: %v\n%s", e.name, strings.Join(args, " "), err, out.String())
	case wantErr != "" && (err == nil || !strings.Contains(out.String(), wantErr)):
		t.Fatalf("%s: err %v, want %q\n%s", e.name, err, wantErr, out.String())
	}
	return out.String()
}

// count opens the file with the database's driver and counts table.
func count(t *testing.T, e engine, path, table string) int64 {
	t.Helper()
	db, err := sql.Open(e.driver, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int64
	if err := db.QueryRow("SELECT count(*) FROM " + table).Scan(&n); err != nil {
		t.Fatalf("%s: counting %s in %s: %v", e.name, table, path, err)
	}
	return n
}

func exec1(t *testing.T, e engine, path, stmt string) {
	t.Helper()
	db, err := sql.Open(e.driver, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(stmt); err != nil {
		t.Fatalf("%s: %s: %v", e.name, stmt, err)
	}
}

// TestEveryFormat loads ILP, CSV, pgcopy, Parquet and a TSBS file into
// each database with content verification, and counts the file's rows;
// --drop-db leaves a table that is not the load's alone.
func TestEveryFormat(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the loaders")
	}
	dir := t.TempDir()
	inputs := map[string]string{}
	for _, f := range []string{"ilp", "csv", "pgcopy", "parquet"} {
		inputs[f] = generate(t, dir, f, 5, 1)
	}
	tsbsFile, err := filepath.Abs("../../../cmd/load_timescale/testdata/tsbs-cpu-only.timescaledb.gz")
	if err != nil {
		t.Fatal(err)
	}
	inputs["tsbs"] = tsbsFile
	for _, e := range engines {
		for _, f := range []string{"ilp", "csv", "pgcopy", "parquet", "tsbs"} {
			t.Run(e.name+"/"+f, func(t *testing.T) {
				db := filepath.Join(t.TempDir(), "x"+e.ext)
				exec1(t, e, db, "CREATE TABLE mine (a INTEGER)")
				exec1(t, e, db, "INSERT INTO mine VALUES (1)")
				args := []string{"--file", inputs[f], "--db-path", db, "--drop-db", "--verify", "content", "--batch-size", "700", "--workers", "2"}
				if f == "parquet" {
					args = append(args, "--table", "cpu") // the file's name is not the table's
				}
				load(t, e, "", args...)
				want := int64(1800)
				if f == "tsbs" {
					want = 240
					if n := count(t, e, db, "tags"); n != 4 {
						t.Errorf("tags: %d rows, want 4", n)
					}
				}
				if n := count(t, e, db, "cpu"); n != want {
					t.Errorf("cpu: %d rows, want %d", n, want)
				}
				if n := count(t, e, db, "mine"); n != 1 {
					t.Errorf("--drop-db: the table mine has %d rows, want its 1", n)
				}
				// Loading again without --drop-db appends: twice the rows.
				load(t, e, "", append(args[:4:4], args[5:]...)...) // without --drop-db
				if n := count(t, e, db, "cpu"); n != 2*want {
					t.Errorf("appended: cpu has %d rows, want %d", n, 2*want)
				}
			})
		}
	}
}

// TestCommitModes loads in every commit mode with one and three writers:
// every row once, and a ticket per batch committed per batch.
func TestCommitModes(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the loaders")
	}
	in := generate(t, t.TempDir(), "ilp", 5, 1)
	for _, e := range engines {
		for _, m := range []sqlembed.Commit{sqlembed.CommitRow, sqlembed.CommitBatch, sqlembed.CommitLoad} {
			for _, w := range []int{1, 3} {
				t.Run(fmt.Sprintf("%s/%s/%d", e.name, m, w), func(t *testing.T) {
					db := filepath.Join(t.TempDir(), "x"+e.ext)
					load(t, e, "", "--file", in, "--db-path", db, "--commit", string(m), "--workers", fmt.Sprint(w), "--batch-size", "100")
					if n := count(t, e, db, "cpu"); n != 1800 {
						t.Errorf("cpu: %d rows, want 1800", n)
					}
					tickets, want := count(t, e, db, sqlembed.TicketTable), int64(0)
					if m == sqlembed.CommitBatch {
						want = 18
					}
					if tickets != want {
						t.Errorf("%d tickets, want %d", tickets, want)
					}
				})
			}
		}
	}
}

// TestKillResume kills the loader with SIGKILL mid-load (per batch) and
// resumes it: the file ends with every row once. Killed in one
// transaction, the file holds none of the load and a resume is refused.
func TestKillResume(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no loader kills")
	}
	in := generate(t, t.TempDir(), "ilp", 100, 3)
	const n = 108_000
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			dir := t.TempDir()
			db, results := filepath.Join(dir, "x"+e.ext), filepath.Join(dir, "results.json")
			args := []string{"--file", in, "--db-path", db, "--batch-size", "500", "--workers", "2", "--reporting-period", "50ms", "--results-file", results}
			acked := killAt(t, e, args, results, n/3)
			if c := count(t, e, db, "cpu"); c < acked || c >= n {
				t.Fatalf("after the kill the file holds %d rows; the journal said %d acknowledged, of %d", c, acked, n)
			}
			out := load(t, e, "", "--resume", results)
			if c := count(t, e, db, "cpu"); c != n {
				t.Fatalf("resumed: %d rows, want %d\n%s", c, n, out)
			}
			res := loadtest.ReadResults(t, results)
			t.Logf("killed at %d rows acknowledged; resumed: %d rows skipped, %d batches in doubt (%d written, %d not)",
				acked, res.Resume.SkippedRows, res.Resume.InDoubt, res.Resume.SettledWritten, res.Resume.SettledLost)
		})
		t.Run(e.name+"/one-transaction", func(t *testing.T) {
			dir := t.TempDir()
			db, results := filepath.Join(dir, "x"+e.ext), filepath.Join(dir, "results.json")
			args := []string{"--file", in, "--db-path", db, "--commit", "one-transaction", "--batch-size", "500", "--reporting-period", "50ms", "--results-file", results}
			killAt(t, e, args, results, n/3)
			// The table was created in the transaction too.
			if c := count(t, e, db, "(SELECT 1 AS x FROM "+sqlembed.TicketTable+")"); c != 0 {
				t.Fatalf("killed in the load's one transaction: %d tickets", c)
			}
			db2, err := sql.Open(e.driver, db)
			if err != nil {
				t.Fatal(err)
			}
			var rows int64
			err = db2.QueryRow("SELECT count(*) FROM cpu").Scan(&rows)
			db2.Close()
			if err == nil && rows != 0 || err != nil && !strings.Contains(strings.ToLower(err.Error()), "cpu") {
				t.Fatalf("killed in the load's one transaction: %d rows committed (%v), want none", rows, err)
			}
			load(t, e, "a stopped load committed nothing", "--resume", results)
		})
	}
}

// killAt starts the loader and kills it with SIGKILL once its journal
// says at least rows were acknowledged; it returns what the journal said.
func killAt(t *testing.T, e engine, args []string, results string, rows int64) int64 {
	t.Helper()
	cmd := exec.Command(bin(t, e.cmd), args...)
	var out bytes.Buffer
	cmd.Stderr = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.After(2 * time.Minute)
	for {
		if a := acked(results); a >= rows {
			cmd.Process.Kill()
			<-done
			return acked(results)
		}
		select {
		case err := <-done:
			t.Fatalf("the loader ended (%v) before the kill point\n%s", err, out.String())
		case <-deadline:
			cmd.Process.Kill()
			t.Fatalf("no kill point within 2 minutes\n%s", out.String())
		case <-time.After(2 * time.Millisecond):
		}
	}
}

func acked(results string) int64 {
	data, err := os.ReadFile(journal.Path(results))
	if err != nil {
		return 0
	}
	var j journal.Journal
	if json.Unmarshal(data, &j) != nil {
		return 0
	}
	return j.Rows
}

// TestNullTimeNamesRecord loads a pgcopy and a CSV file whose 58th record
// has no time into each database in batches of 10, in every commit mode:
// the error names that record and the reason (the database's refusal at
// the commit named only the batch, records 51-60), and the batches before
// it are loaded, the record's batch is not.
func TestNullTimeNamesRecord(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the loaders")
	}
	dir := t.TempDir()
	tb := usecase.LookupTable("cpu")
	if tb == nil {
		t.Fatal("no cpu table in the use cases")
	}
	var pg []byte
	pg = append(pg, pgcopy.PlainHeader...)
	var csv strings.Builder
	for i, c := range tb.Columns {
		csv.WriteString(map[bool]string{true: ",", false: ""}[i > 0] + c.Name)
	}
	csv.WriteString("\n")
	for r := 1; r <= 100; r++ {
		fields := make([][]byte, len(tb.Columns))
		text := make([]string, len(tb.Columns))
		for i, c := range tb.Columns {
			switch c.Type {
			case schema.Timestamp:
				if r == 58 {
					continue // NULL; CSV: an empty field
				}
				ts := time.Date(2016, 1, 1, 0, 0, r, 0, time.UTC)
				fields[i] = binary.BigEndian.AppendUint64(nil, uint64(ts.UnixMicro()-pgcopy.PostgresEpochMicros))
				text[i] = ts.Format(time.RFC3339)
			case schema.Float8:
				fields[i] = binary.BigEndian.AppendUint64(nil, math.Float64bits(float64(r)))
				text[i] = fmt.Sprint(r)
			default:
				fields[i] = []byte("host_" + fmt.Sprint(r%3))
				text[i] = string(fields[i])
			}
		}
		pg = pgcopy.AppendTuple(pg, fields...)
		csv.WriteString(strings.Join(text, ",") + "\n")
	}
	pg = append(pg, pgcopy.Trailer...)
	inputs := map[string]string{"pgcopy": filepath.Join(dir, "cpu.pgcopy"), "csv": filepath.Join(dir, "cpu.csv")}
	if err := os.WriteFile(inputs["pgcopy"], pg, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(inputs["csv"], []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, e := range engines {
		for _, f := range []string{"pgcopy", "csv"} {
			for _, m := range []sqlembed.Commit{sqlembed.CommitBatch, sqlembed.CommitRow, sqlembed.CommitLoad} {
				t.Run(e.name+"/"+f+"/"+string(m), func(t *testing.T) {
					db := filepath.Join(t.TempDir(), "x"+e.ext)
					out := load(t, e, `record 58 (byte offset `, "--file", inputs[f], "--db-path", db, "--commit", string(m), "--batch-size", "10", "--workers", "1")
					if !strings.Contains(out, `records 51-60`) || !strings.Contains(out, `: column "time" is NULL: the table's time column is NOT NULL`) {
						t.Errorf("the error does not name the batch, the record and the reason:\n%s", out)
					}
					want := int64(50)
					if m == sqlembed.CommitLoad {
						want = 0 // the load's one transaction never committed
					}
					if n := count(t, e, db, "cpu"); n != want {
						t.Errorf("cpu: %d rows, want %d", n, want)
					}
				})
			}
		}
	}
}
