package main

import (
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tsload/tsload/internal/owndatatest"
	"github.com/tsload/tsload/internal/servertest"
	"github.com/tsload/tsload/pkg/usecase"
)

// ownDB creates a fresh database holding the user's tables of ddl, filled
// by fill, and returns the server's URL, the database and a connection.
func ownDB(t *testing.T, prefix string, sql ...string) (base, db string, conn *pgx.Conn) {
	t.Helper()
	base, db = freshDB(t, prefix)
	ctx := context.Background()
	maint, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer maint.Close(ctx)
	if _, err := maint.Exec(ctx, `CREATE DATABASE "`+db+`"`); err != nil {
		t.Fatal(err)
	}
	conn = servertest.PGConnectDB(t, db)
	for _, q := range sql {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return base, db, conn
}

// export writes COPY table TO STDOUT with opts (PostgreSQL's own bytes)
// to path.
func export(t *testing.T, conn *pgx.Conn, table, opts, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := conn.PgConn().CopyTo(context.Background(), f, "COPY "+table+" TO STDOUT "+opts); err != nil {
		t.Fatal(err)
	}
}

// content is every row of table, in order, as text.
func content(t *testing.T, conn *pgx.Conn, table string) string {
	t.Helper()
	var s string
	if err := conn.QueryRow(context.Background(), "SELECT coalesce(string_agg(x::text, ';' ORDER BY x::text), '') FROM "+table+" x").Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestExistingTablesDecide loads PostgreSQL's own exports (COPY ... TO
// (FORMAT binary) and (FORMAT csv, HEADER)) back into the emptied tables
// they came from: a table of the user's (meter) and one named like a
// use-case table (readings) whose columns are not the use case's. The
// columns come from the database's catalog; the rows come back as they
// were, and the tables stay as the user made them (no hypertable, no
// index made, also with --create-indexes=after and the default
// --do-create-db).
func TestExistingTablesDecide(t *testing.T) {
	base, db, conn := ownDB(t, "tsload_own",
		`CREATE TABLE meter (device text NOT NULL, time timestamptz NOT NULL, kwh double precision, phase int4)`,
		`INSERT INTO meter SELECT 'm' || (i % 3), '2024-01-01T00:00:00Z'::timestamptz + i * interval '1 minute', i / 7.0, i % 3 FROM generate_series(1, 500) i`,
		`CREATE TABLE readings (time timestamptz NOT NULL, sensor varchar(20), value float8)`,
		`INSERT INTO readings SELECT '2024-01-01T00:00:00Z'::timestamptz + i * interval '1 second', 's' || (i % 5), i * 1.5 FROM generate_series(1, 300) i`)
	dir := t.TempDir()
	want := map[string]string{}
	for _, table := range []string{"meter", "readings"} {
		want[table] = content(t, conn, table)
		export(t, conn, table, "(FORMAT binary)", filepath.Join(dir, table+".pgcopy"))
		export(t, conn, table, "(FORMAT csv, HEADER)", filepath.Join(dir, table+".csv"))
	}
	for _, ext := range []string{"pgcopy", "csv"} {
		for _, table := range []string{"meter", "readings"} {
			for _, create := range []string{"--do-create-db=false", "--create-indexes=after"} {
				t.Run(ext+"/"+table+"/"+create, func(t *testing.T) {
					if _, err := conn.Exec(context.Background(), "TRUNCATE "+table); err != nil {
						t.Fatal(err)
					}
					r, res := loadInto(t, base, db, "", "--file", filepath.Join(dir, table+"."+ext), "--table", table, create)
					if res.Verify == nil || !res.Verify.OK || res.Verify.Actual[table] != int64(strings.Count(want[table], ";")+1) {
						t.Fatalf("verify %+v\n%s", res.Verify, r.Stderr)
					}
					if got := content(t, conn, table); got != want[table] {
						t.Fatalf("content differs:\n got %.200s\nwant %.200s", got, want[table])
					}
					var hyper bool
					conn.QueryRow(context.Background(), "SELECT EXISTS (SELECT 1 FROM timescaledb_information.hypertables WHERE hypertable_name = $1)", table).Scan(&hyper)
					var indexes int
					conn.QueryRow(context.Background(), "SELECT count(*) FROM pg_indexes WHERE tablename = $1", table).Scan(&indexes)
					if hyper || indexes != 0 {
						t.Fatalf("the user's plain table %s was changed: hypertable %v, %d indexes", table, hyper, indexes)
					}
				})
			}
		}
	}
}

// TestExistingTableMismatch: a file whose shape is not the existing
// table's is refused before anything is sent, naming the column and both
// types.
func TestExistingTableMismatch(t *testing.T) {
	base, db, conn := ownDB(t, "tsload_ownx",
		`CREATE TABLE meter (device text NOT NULL, time timestamptz NOT NULL, kwh double precision)`,
		`INSERT INTO meter VALUES ('a', '2024-01-01T00:00:00Z', 1.5)`,
		`CREATE TABLE other (device text, time timestamptz NOT NULL, kwh int8)`,
		`CREATE TABLE narrow (device text, time timestamptz NOT NULL, kwh int4)`)
	dir := t.TempDir()
	export(t, conn, "meter", "(FORMAT binary)", filepath.Join(dir, "meter.pgcopy"))
	csvExtra := filepath.Join(dir, "extra.csv")
	os.WriteFile(csvExtra, []byte("device,time,kwh,volts\na,2024-01-01T00:00:00Z,1.5,230\n"), 0o644)
	csvMissing := filepath.Join(dir, "missing.csv")
	os.WriteFile(csvMissing, []byte("device,kwh\na,1.5\n"), 0o644)
	csvText := filepath.Join(dir, "text.csv")
	os.WriteFile(csvText, []byte("device,time,kwh\na,2024-01-01T00:00:00Z,1.5\n"), 0o644)
	for _, c := range []struct {
		file, table, want string
	}{
		// PostgreSQL's own binary COPY carries no types: a value of the
		// wrong length is what shows a field is not the column's type.
		{"meter.pgcopy", "narrow", "record 1 (byte offset 19): field 3 (kwh) has 8 bytes, a value of table narrow's column kwh (integer) has 4"},
		{"extra.csv", "meter", "column volts: the input has it (int8), table meter does not"},
		{"missing.csv", "meter", "column time: table meter needs it (timestamp with time zone, no default)"},
		{"text.csv", "other", "record 1 (line 2, byte offset 16): column kwh: the input has \"1.5\" (float8), table other has bigint"},
	} {
		if r, res := loadInto(t, base, db, c.want, "--file", filepath.Join(dir, c.file), "--table", c.table); res.Rows != 0 || !strings.Contains(r.Err.Error(), filepath.Join(dir, c.file)) {
			t.Errorf("%s: rows %d, err %v", c.file, res.Rows, r.Err)
		}
	}
	var n int
	conn.QueryRow(context.Background(), "SELECT (SELECT count(*) FROM meter) + (SELECT count(*) FROM other) + (SELECT count(*) FROM narrow)").Scan(&n)
	if n != 1 {
		t.Fatalf("%d rows: a refused file wrote some", n)
	}
}

// TestCSVSameAsILP: tsload's own CSV files load with the same verified
// counts as its ILP files of the same data (owndatatest.CSVSuite).
func TestCSVSameAsILP(t *testing.T) {
	base, db := freshDB(t, "tsload_csvilp")
	// cpu-only: CSV is PostgreSQL's own format here (the multi-table
	// stream is load_timescale's older ground, tested elsewhere).
	owndatatest.CSVSuite{Spec: spec(), UseCases: []string{usecase.CPUOnly}, Args: func(t *testing.T, _ string) []string {
		return []string{"--postgres", base, "--db-name", db}
	}}.SameAsILP(t, "csv_")
}

// TestCSVOwnTimes: a CSV whose time column ts holds times without an
// offset, and one of epoch milliseconds with --time-unit ms, load and
// verify their content (owndatatest.CSVSuite.OwnTimes).
func TestCSVOwnTimes(t *testing.T) {
	base, db := freshDB(t, "tsload_csvtimes")
	owndatatest.CSVSuite{Spec: spec(), Args: func(t *testing.T, _ string) []string {
		return []string{"--postgres", base, "--db-name", db}
	}}.OwnTimes(t, "csv_")
}

// TestTSBSFile loads a file of TSBS's own generator (testdata/README.md),
// gzip'd and not, into the tables TSBS's loader makes, and counts as TSBS
// says: a cpu row per values line, a tags row per host. A damaged file is
// refused naming its line.
func TestTSBSFile(t *testing.T) {
	gz := filepath.Join("testdata", "tsbs-cpu-only.timescaledb.gz")
	f, err := os.Open(gz)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(t.TempDir(), "tsbs.timescaledb")
	os.WriteFile(plain, raw, 0o644)
	lines := strings.Split(string(raw), "\n")
	wantRows, hosts := int64(0), map[string]bool{}
	for _, l := range lines[3:] { // the header: tags, cpu, blank
		if strings.HasPrefix(l, "cpu,") {
			wantRows++
		}
		if h, ok := strings.CutPrefix(l, "tags,hostname="); ok {
			hosts[strings.SplitN(h, ",", 2)[0]] = true
		}
	}
	for _, file := range []string{gz, plain} {
		base, db := freshDB(t, "tsload_tsbs")
		r, res := loadInto(t, base, db, "", "--file", file)
		if v := res.Verify; v == nil || !v.OK || v.Actual["cpu"] != wantRows || v.Actual["tags"] != int64(len(hosts)) || wantRows != 240 {
			t.Fatalf("%s: verify %+v, want cpu %d, tags %d\n%s", file, res.Verify, wantRows, len(hosts), r.Stderr)
		}
		// The columns of TSBS's loader.
		conn := servertest.PGConnectDB(t, db)
		var cols string
		conn.QueryRow(context.Background(), `SELECT string_agg(attname || ' ' || format_type(atttypid, atttypmod), ',' ORDER BY attnum) FROM pg_attribute
			WHERE attrelid = 'cpu'::regclass AND attnum > 0 AND NOT attisdropped`).Scan(&cols)
		var hostOf1 string
		conn.QueryRow(context.Background(), `SELECT t.hostname FROM cpu c JOIN tags t ON t.id = c.tags_id ORDER BY c.time, t.hostname LIMIT 1`).Scan(&hostOf1)
		// TSBS's loader can add a series after: the sequence is past the ids.
		var next int64
		if err := conn.QueryRow(context.Background(), `INSERT INTO tags (hostname) VALUES ('host_new') RETURNING id`).Scan(&next); err != nil || next != int64(len(hosts))+1 {
			t.Fatalf("a new series got id %d (%v), want %d", next, err, len(hosts)+1)
		}
		if !strings.HasPrefix(cols, "time timestamp with time zone,tags_id integer,usage_user double precision,") || !strings.HasSuffix(cols, ",additional_tags jsonb") || hostOf1 != "host_0" {
			t.Fatalf("cpu columns %s, first host %q", cols, hostOf1)
		}
	}
	// A values line with a field too few (line 6) is refused by its line.
	bad := filepath.Join(t.TempDir(), "bad.timescaledb")
	lines[5] = lines[5][:strings.LastIndex(lines[5], ",")]
	os.WriteFile(bad, []byte(strings.Join(lines, "\n")), 0o644)
	base, db := freshDB(t, "tsload_tsbsx")
	loadInto(t, base, db, bad+": line 6 (byte offset ", "--file", bad)
}

// TestColumnsMapsPGCopyFields: a binary COPY of some of a table's columns
// (PostgreSQL's own) loads with --columns naming them; the others are NULL.
func TestColumnsMapsPGCopyFields(t *testing.T) {
	base, db, conn := ownDB(t, "tsload_owncol",
		`CREATE TABLE src (time timestamptz NOT NULL, sensor text, value float8)`,
		`INSERT INTO src SELECT '2024-01-01T00:00:00Z'::timestamptz + i * interval '1 second', 's' || i, i * 0.5 FROM generate_series(1, 200) i`,
		`CREATE TABLE dst (sensor text, value float8, time timestamptz NOT NULL)`)
	file := filepath.Join(t.TempDir(), "part.pgcopy")
	export(t, conn, "src (value, time)", "(FORMAT binary)", file)
	if r, res := loadInto(t, base, db, "", "--file", file, "--table", "dst", "--columns", "value,time"); res.Verify == nil || !res.Verify.OK || res.Verify.Actual["dst"] != 200 {
		t.Fatalf("verify %+v\n%s", res.Verify, r.Stderr)
	}
	var same bool
	if err := conn.QueryRow(context.Background(), `SELECT (SELECT string_agg(value || '@' || time, ';' ORDER BY time) FROM src) =
		(SELECT string_agg(value || '@' || time, ';' ORDER BY time) FROM dst) AND (SELECT count(sensor) FROM dst) = 0`).Scan(&same); err != nil || !same {
		t.Fatalf("dst differs from src's columns (%v)", err)
	}
}
