package timescale

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/internal/servertest"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/schema"
	"github.com/tsload/tsload/pkg/usecase"
)

// Integration tests run against the server of scripts/start_postgres.sh
// (TSLOAD_POSTGRES, default postgres://postgres@127.0.0.1:5432/postgres).
// They skip when it is unreachable, unless CI is set.

func pgURL() string {
	if u := os.Getenv("TSLOAD_POSTGRES"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/postgres"
}

func requireServer(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, pgURL())
	if err != nil {
		loadtest.SkipOrFail(t,
			fmt.Sprintf("PostgreSQL unreachable at %s (start it with scripts/start_postgres.sh): %v", pgURL(), err),
			fmt.Sprintf("PostgreSQL unreachable at %s under CI (run scripts/start_postgres.sh): %v", pgURL(), err))
	}
	conn.Close(ctx)
}

// hypertableMode is the --use-hypertable of the tests that load
// hypertables: "true" under CI, where scripts/start_postgres.sh builds
// TimescaleDB and a server without it must fail the test, "auto" elsewhere
// (plain tables on a plain PostgreSQL).
func hypertableMode() Hypertable {
	if os.Getenv("CI") != "" {
		return "true"
	}
	return "auto"
}

// chunkCount is the number of chunks of hypertable table in db, or -1 when
// table is not a hypertable.
func chunkCount(t testing.TB, db, table string) int {
	t.Helper()
	conn := dbConn(t, db)
	ctx := context.Background()
	var ht bool
	q := `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'timescaledb')`
	if err := conn.QueryRow(ctx, q).Scan(&ht); err != nil {
		t.Fatal(err)
	}
	if ht {
		q = `SELECT EXISTS (SELECT 1 FROM timescaledb_information.hypertables WHERE hypertable_name = $1)`
		if err := conn.QueryRow(ctx, q, table).Scan(&ht); err != nil {
			t.Fatal(err)
		}
	}
	if !ht {
		return -1
	}
	var n int
	q = `SELECT count(*) FROM timescaledb_information.chunks WHERE hypertable_name = $1`
	if err := conn.QueryRow(ctx, q, table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// checkTableKind fails the test when table is not what the target chose: a
// hypertable with chunks, or a plain table. Under CI hypertables are
// required unless plain is true.
func checkTableKind(t testing.TB, tg *Target, table string, plain bool) {
	t.Helper()
	if !plain && os.Getenv("CI") != "" && !tg.Hypertables() {
		t.Fatalf("table %s: plain table under CI, want a hypertable", table)
	}
	n := chunkCount(t, tg.cfg.DBName, table)
	switch {
	case tg.Hypertables() && n < 1:
		t.Fatalf("table %s: %d chunks, want a hypertable with chunks", table, n)
	case !tg.Hypertables() && n != -1:
		t.Fatalf("table %s is a hypertable, want a plain table", table)
	}
}

var dbSeq atomic.Int64

func testDBName(t testing.TB) string {
	s := strings.ToLower(regexp.MustCompile(`[^A-Za-z0-9]+`).ReplaceAllString(t.Name(), "_"))
	if len(s) > 40 {
		s = s[:40]
	}
	return fmt.Sprintf("tsl_%s_%d_%d", s, os.Getpid(), dbSeq.Add(1))
}

// newTestTarget prepares a fresh database (dropped when the test ends).
func newTestTarget(t testing.TB, cfg Config, tables ...*schema.Table) *Target {
	t.Helper()
	requireServer(t)
	cfg.URL = pgURL()
	cfg.DBName = testDBName(t)
	if cfg.UseHypertable == "" {
		cfg.UseHypertable = hypertableMode()
		if cfg.Unlogged {
			cfg.UseHypertable = "false"
		}
	}
	tg, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	t.Cleanup(func() {
		tg.Close()
		dropDB(t, tg.cfg.DBName)
	})
	if err := tg.Prepare(ctx, load.PrepareOptions{DBName: cfg.DBName, CreateDB: true, DropDB: true, Tables: tables}); err != nil {
		t.Fatal(err)
	}
	return tg
}

func dropDB(t testing.TB, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, pgURL())
	if err != nil {
		t.Errorf("drop %s: %v", name, err)
		return
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+schema.QuoteIdent(name)+" WITH (FORCE)"); err != nil {
		t.Errorf("drop %s: %v", name, err)
	}
}

func dbConn(t testing.TB, db string) *pgx.Conn { return servertest.PGConnectDB(t, db) }

func writeAll(t testing.TB, w load.Writer, batches []*load.Batch) int {
	t.Helper()
	total := 0
	for _, b := range batches {
		ack, err := w.Write(context.Background(), b)
		if err != nil {
			t.Fatalf("batch %d: %v", b.Seq, err)
		}
		if ack.Rows != b.Rows {
			t.Fatalf("batch %d: ack %d rows, want %d", b.Seq, ack.Rows, b.Rows)
		}
		total += ack.Rows
	}
	return total
}

// checkRows reads every row of each table back and compares it with rows.
func checkRows(t testing.TB, db string, rows []testRow) {
	t.Helper()
	conn := dbConn(t, db)
	byTable := map[string][]testRow{}
	for _, r := range rows {
		byTable[r.t.Name] = append(byTable[r.t.Name], r)
	}
	for name, want := range byTable {
		tb := want[0].t
		ft := firstTag(tb)
		key := func(vals []any) string {
			return fmt.Sprintf("%d|%v", vals[0].(time.Time).UnixNano(), vals[ft])
		}
		exp := map[string][]any{}
		for _, r := range want {
			exp[key(r.vals)] = r.vals
		}
		q := "SELECT " + strings.Join(quoteAll(tb.ColumnNames()), ", ") + " FROM " + schema.QuoteIdent(name)
		res, err := conn.Query(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for res.Next() {
			got, err := res.Values()
			if err != nil {
				t.Fatal(err)
			}
			n++
			e, ok := exp[key(got)]
			if !ok {
				t.Fatalf("%s: unexpected row %v", name, got)
			}
			for i := range e {
				if !sameValue(e[i], got[i]) {
					t.Fatalf("%s row %s column %s: got %v (%T), want %v (%T)", name, key(got), tb.Columns[i].Name, got[i], got[i], e[i], e[i])
				}
			}
		}
		if err := res.Err(); err != nil {
			t.Fatal(err)
		}
		if n != len(want) {
			t.Fatalf("%s: %d rows, want %d", name, n, len(want))
		}
	}
}

func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = schema.QuoteIdent(n)
	}
	return out
}

func sameValue(want, got any) bool {
	switch w := want.(type) {
	case time.Time:
		g, ok := got.(time.Time)
		return ok && g.Equal(w)
	case float64:
		g, ok := got.(float64)
		return ok && (g == w || math.IsNaN(g) && math.IsNaN(w))
	}
	return want == got
}

func count(t testing.TB, tg *Target, tables ...string) map[string]int64 {
	t.Helper()
	got, err := tg.Count(context.Background(), tables)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// inferredTable is a table no use case describes, as the ILP inference
// creates it from the lines ilpLines writes for it.
var inferredTable = &schema.Table{Name: "custom_metrics", Columns: []schema.Column{
	{Name: "time", Type: schema.Timestamp},
	{Name: "device", Type: schema.Text, Tag: true},
	{Name: "reading", Type: schema.Float8},
	{Name: "counter", Type: schema.Int8},
	{Name: "state", Type: schema.Text},
	{Name: "on", Type: typeBool},
}}

func TestWriteEveryMethod(t *testing.T) {
	cpu := genRows(cpuTable(), 900, 7, 11)
	type tc struct {
		format format.Format
		method Method
		commit Commit
	}
	var cases []tc
	for _, f := range []format.Format{format.PGCopy, format.CSV, format.ILP} {
		for _, m := range []Method{MethodAuto, MethodCopyBinary, MethodCopyCSV, MethodInsertMulti, MethodInsert} {
			if _, err := m.For(f); err != nil {
				continue
			}
			cases = append(cases, tc{f, m, CommitBatch})
			if m == MethodInsert || m == MethodInsertMulti {
				cases = append(cases, tc{f, m, CommitRow})
			}
		}
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/%s/%s", c.format, c.method, c.commit), func(t *testing.T) {
			rows := cpu
			var tables []*schema.Table
			if c.format == format.ILP {
				// Several tables in one stream, one of them unknown to the use cases.
				weather := genRows(usecase.LookupTable("weather"), 200, 5, 12)
				mem := genRows(usecase.LookupTable("mem"), 150, 3, 13)
				custom := genRows(inferredTable, 100, 4, 14)
				rows = nil
				for i := range cpu {
					rows = append(rows, cpu[i])
					if i < len(weather) {
						rows = append(rows, weather[i])
					}
					if i < len(mem) {
						rows = append(rows, mem[i])
					}
					if i < len(custom) {
						rows = append(rows, custom[i])
					}
				}
			} else {
				tables = []*schema.Table{cpuTable()}
			}
			tg := newTestTarget(t, Config{Method: c.method, Commit: c.commit}, tables...)
			w, err := tg.NewWriter(context.Background(), 0)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			n := writeAll(t, w, makeBatches(t, c.format, rows, 250))
			if n != len(rows) {
				t.Fatalf("acknowledged %d of %d", n, len(rows))
			}
			checkRows(t, tg.cfg.DBName, rows)
		})
	}
}

func TestInsertMultiParameterLimit(t *testing.T) {
	// 21 columns: 65535/21 = 3120 rows per statement, so 7000 rows need 3.
	rows := genRows(cpuTable(), 7000, 50, 21)
	for _, f := range []format.Format{format.PGCopy, format.CSV} {
		t.Run(f.String(), func(t *testing.T) {
			tg := newTestTarget(t, Config{Method: MethodInsertMulti}, cpuTable())
			w, err := tg.NewWriter(context.Background(), 0)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			writeAll(t, w, makeBatches(t, f, rows, 7000))
			if got := count(t, tg, "cpu")["cpu"]; got != 7000 {
				t.Fatalf("count %d", got)
			}
		})
	}
}

func TestMalformedBatchLoadsNothing(t *testing.T) {
	good := genRows(cpuTable(), 300, 5, 31)
	tests := []struct {
		name   string
		format format.Format
		method Method
		mangle func(b *load.Batch)
		want   []string // substrings of the error
	}{
		{"pgcopy field count", format.PGCopy, MethodCopyBinary, func(b *load.Batch) {
			// Tuple 51 claims 3 fields: the server stops with 22P04.
			off := 0
			fields := make([][]byte, len(cpuTable().Columns))
			for i := 0; i < 50; i++ {
				off, _ = nextTuple(b.Data, off, cpuTable().Columns, fields)
			}
			b.Data[off], b.Data[off+1] = 0, 3
		}, []string{"SQLSTATE 22P04", "input record 151"}},
		{"csv bad float", format.CSV, MethodCopyCSV, func(b *load.Batch) {
			lines := strings.SplitAfter(string(b.Data), "\n")
			lines[9] = strings.Replace(lines[9], ",", ",x", 1)
			lines[9] = lines[9][:strings.LastIndexByte(lines[9][:len(lines[9])-1], ',')+1] + "notafloat\n"
			b.Data = []byte(strings.Join(lines, ""))
		}, []string{"SQLSTATE 22P02", "input line 110"}},
		{"csv missing column", format.CSV, MethodCopyCSV, func(b *load.Batch) {
			lines := strings.SplitAfter(string(b.Data), "\n")
			lines[4] = lines[4][:strings.LastIndexByte(lines[4], ',')] + "\n"
			b.Data = []byte(strings.Join(lines, ""))
		}, []string{"SQLSTATE 22P04", "input line 105"}},
		{"csv insert bad float", format.CSV, MethodInsertMulti, func(b *load.Batch) {
			lines := strings.SplitAfter(string(b.Data), "\n")
			lines[9] = lines[9][:strings.LastIndexByte(lines[9][:len(lines[9])-1], ',')+1] + "notafloat\n"
			b.Data = []byte(strings.Join(lines, ""))
		}, []string{"input record 110", "SQLSTATE 22P02"}},
		{"pgcopy insert truncated", format.PGCopy, MethodInsert, func(b *load.Batch) {
			b.Data = b.Data[:len(b.Data)-3]
		}, []string{"record 200", "exceeds the data"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tg := newTestTarget(t, Config{Method: tc.method}, cpuTable())
			w, err := tg.NewWriter(context.Background(), 0)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			batches := makeBatches(t, tc.format, good, 100)
			writeAll(t, w, batches[:1])
			tc.mangle(batches[1])
			_, err = w.Write(context.Background(), batches[1])
			if err == nil {
				t.Fatal("malformed batch accepted")
			}
			t.Logf("error: %v", err)
			if load.IsRetryable(err) {
				t.Fatalf("data error classified retryable: %v", err)
			}
			for _, s := range tc.want {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q lacks %q", err, s)
				}
			}
			// The runner prefixes the batch's position; the writer names
			// only the input line or record the server's answer points at.
			if strings.Contains(err.Error(), "records 101-200") || strings.Contains(err.Error(), batches[1].Source) {
				t.Errorf("error %q repeats the batch position", err)
			}
			// Nothing of the bad batch; the writer still works afterwards.
			writeAll(t, w, batches[2:])
			if got := count(t, tg, "cpu")["cpu"]; got != 200 {
				t.Fatalf("count %d, want 200 (batches 1 and 3)", got)
			}
		})
	}
}

func TestTerminatedBackendIsRetried(t *testing.T) {
	rows := genRows(cpuTable(), 2000, 10, 41)
	for _, m := range []Method{MethodCopyBinary, MethodInsertMulti} {
		t.Run(string(m), func(t *testing.T) {
			tg := newTestTarget(t, Config{Method: m}, cpuTable())
			wr, err := tg.NewWriter(context.Background(), 0)
			if err != nil {
				t.Fatal(err)
			}
			defer wr.Close()
			w := wr.(*Writer)
			admin := dbConn(t, tg.cfg.DBName)
			batches := makeBatches(t, format.PGCopy, rows, 200)
			retries := 0
			for i, b := range batches {
				if i == 3 || i == 7 {
					pid := w.PID()
					var ok bool
					if err := admin.QueryRow(context.Background(), "SELECT pg_terminate_backend($1)", int32(pid)).Scan(&ok); err != nil || !ok {
						t.Fatalf("terminate %d: %v %v", pid, ok, err)
					}
					time.Sleep(100 * time.Millisecond)
				}
				for attempt := 0; ; attempt++ {
					ack, err := w.Write(context.Background(), b)
					if err == nil {
						if ack.Rows != b.Rows {
							t.Fatalf("ack %d", ack.Rows)
						}
						break
					}
					if !load.IsRetryable(err) || attempt > 3 {
						t.Fatalf("batch %d attempt %d: %v (retryable %v)", b.Seq, attempt, err, load.IsRetryable(err))
					}
					t.Logf("retryable: %v", err)
					// The runner names the batch; the writer names the target.
					if !strings.HasPrefix(err.Error(), "timescale: ") || strings.Contains(err.Error(), "gen.pgcopy: records") {
						t.Errorf("error repeats the batch position or lacks the target: %v", err)
					}
					retries++
				}
			}
			if retries < 2 {
				t.Fatalf("%d retries after two terminated backends", retries)
			}
			if got := count(t, tg, "cpu")["cpu"]; got != int64(len(rows)) {
				t.Fatalf("count %d, want %d", got, len(rows))
			}
		})
	}
}

func TestPrepareOptions(t *testing.T) {
	requireServer(t)
	ctx := context.Background()
	t.Run("abort on exist", func(t *testing.T) {
		tg := newTestTarget(t, Config{}, cpuTable())
		err := tg.Prepare(ctx, load.PrepareOptions{DBName: tg.cfg.DBName, CreateDB: true, AbortOnExist: true})
		if err == nil || !strings.Contains(err.Error(), "already exists") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("missing database without create", func(t *testing.T) {
		tg, err := New(Config{URL: pgURL()})
		if err != nil {
			t.Fatal(err)
		}
		defer tg.Close()
		err = tg.Prepare(ctx, load.PrepareOptions{DBName: testDBName(t)})
		if err == nil || !strings.Contains(err.Error(), "does not exist") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("drop db empties", func(t *testing.T) {
		tg := newTestTarget(t, Config{}, cpuTable())
		w, _ := tg.NewWriter(ctx, 0)
		writeAll(t, w, makeBatches(t, format.PGCopy, genRows(cpuTable(), 10, 2, 1), 10))
		w.Close()
		if err := tg.Prepare(ctx, load.PrepareOptions{DBName: tg.cfg.DBName, CreateDB: true, DropDB: true, Tables: []*schema.Table{cpuTable()}}); err != nil {
			t.Fatal(err)
		}
		if got := count(t, tg, "cpu", "nosuchtable"); got["cpu"] != 0 || got["nosuchtable"] != 0 {
			t.Fatalf("counts %v", got)
		}
	})
	t.Run("table created by the first batch", func(t *testing.T) {
		tg := newTestTarget(t, Config{}) // Prepare knows no table
		w, err := tg.NewWriter(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		rows := genRows(cpuTable(), 40, 4, 2)
		writeAll(t, w, makeBatches(t, format.CSV, rows, 15))
		checkRows(t, tg.cfg.DBName, rows)
	})
	t.Run("unlogged and indexes", func(t *testing.T) {
		for _, when := range []Indexes{IndexesBefore, IndexesAfter} {
			tg := newTestTarget(t, Config{Unlogged: true, CreateIndexes: when}, cpuTable())
			conn := dbConn(t, tg.cfg.DBName)
			var persistence string
			if err := conn.QueryRow(ctx, "SELECT relpersistence::text FROM pg_class WHERE relname = 'cpu'").Scan(&persistence); err != nil || persistence != "u" {
				t.Fatalf("relpersistence %q %v", persistence, err)
			}
			indexes := func() int {
				var n int
				if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_indexes WHERE tablename = 'cpu' AND indexname = 'cpu_tsload_idx'").Scan(&n); err != nil {
					t.Fatal(err)
				}
				return n
			}
			wantBefore := map[Indexes]int{IndexesBefore: 1, IndexesAfter: 0}[when]
			if got := indexes(); got != wantBefore {
				t.Fatalf("%s: %d indexes before the load", when, got)
			}
			count(t, tg, "cpu") // Count builds nothing
			if got := indexes(); got != wantBefore {
				t.Fatalf("%s: %d indexes after Count", when, got)
			}
			if when == "after" {
				// Close builds nothing either: a failed load leaves them unbuilt.
				tg2 := newTestTarget(t, Config{CreateIndexes: when}, cpuTable())
				if err := tg2.Close(); err != nil {
					t.Fatal(err)
				}
				if err := tg2.Close(); err != nil { // twice is safe
					t.Fatal(err)
				}
				var n int
				if err := dbConn(t, tg2.cfg.DBName).QueryRow(ctx, "SELECT count(*) FROM pg_indexes WHERE indexname = 'cpu_tsload_idx'").Scan(&n); err != nil || n != 0 {
					t.Fatalf("after Close: %d indexes %v", n, err)
				}
			}
			if err := tg.Finish(ctx); err != nil { // the runner's call
				t.Fatal(err)
			}
			if got := indexes(); got != 1 {
				t.Fatalf("%s: %d indexes after Finish", when, got)
			}
		}
	})
	t.Run("hypertable", func(t *testing.T) {
		conn := dbConn(t, "postgres")
		var available bool
		// Installed is not enough: CREATE EXTENSION needs it preloaded.
		q := `SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'timescaledb')
			AND current_setting('shared_preload_libraries') LIKE '%timescaledb%'`
		if err := conn.QueryRow(ctx, q).Scan(&available); err != nil {
			t.Fatal(err)
		}
		tg, err := New(Config{URL: pgURL(), UseHypertable: "true", DBName: testDBName(t)})
		if err != nil {
			t.Fatal(err)
		}
		defer tg.Close()
		defer dropDB(t, tg.cfg.DBName)
		err = tg.Prepare(ctx, load.PrepareOptions{DBName: tg.cfg.DBName, CreateDB: true, Tables: []*schema.Table{cpuTable()}})
		if !available {
			if err == nil || !strings.Contains(err.Error(), "timescaledb extension is not available") {
				t.Fatalf("err = %v", err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		var n int
		if err := dbConn(t, tg.cfg.DBName).QueryRow(ctx, "SELECT count(*) FROM timescaledb_information.hypertables WHERE hypertable_name = 'cpu'").Scan(&n); err != nil || n != 1 {
			t.Fatalf("hypertables %d %v", n, err)
		}
	})
}

func TestWrongMethodForFormat(t *testing.T) {
	tg := newTestTarget(t, Config{Method: MethodCopyBinary}, cpuTable())
	w, err := tg.NewWriter(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	_, err = w.Write(context.Background(), makeBatches(t, format.CSV, genRows(cpuTable(), 5, 1, 1), 5)[0])
	if err == nil || load.IsRetryable(err) || !strings.Contains(err.Error(), "copy-binary needs pgcopy or ILP input") {
		t.Fatalf("err = %v", err)
	}
	if errors.Is(err, context.Canceled) {
		t.Fatal("unexpected")
	}
}
