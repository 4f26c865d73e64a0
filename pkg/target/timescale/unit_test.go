package timescale

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tsload/tsload/pkg/format"
	csvformat "github.com/tsload/tsload/pkg/format/csv"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/redact"
	"github.com/tsload/tsload/pkg/schema"
	"github.com/tsload/tsload/pkg/usecase"
)

func TestCSVRecordsRoundTrip(t *testing.T) {
	rows := genRows(cpuTable(), 50, 3, 1)
	data := csvRecords(rows)
	fields := make([][]byte, len(cpuTable().Columns))
	scratch := make([]byte, 0, len(data))
	off := 0
	for i, r := range rows {
		next, _, err := csvformat.ParseRecord(data, off, fields, &scratch)
		if err != nil {
			t.Fatalf("record %d: %v", i+1, err)
		}
		off = next
		for c, v := range r.vals {
			want := csvText(v)
			if s, ok := v.(string); ok {
				want = s
			}
			if v == nil {
				if fields[c] != nil {
					t.Fatalf("record %d col %d: want NULL, got %q", i+1, c, fields[c])
				}
				continue
			}
			if string(fields[c]) != want {
				t.Fatalf("record %d col %d: %q, want %q", i+1, c, fields[c], want)
			}
		}
	}
	if off != len(data) {
		t.Fatalf("stopped at %d of %d", off, len(data))
	}
}

func TestNextTuple(t *testing.T) {
	tb := cpuTable()
	rows := genRows(tb, 20, 4, 2)
	data := pgcopyTuples(rows)
	fields := make([][]byte, len(tb.Columns))
	off := 0
	for i, r := range rows {
		next, err := nextTuple(data, off, tb.Columns, fields)
		if err != nil {
			t.Fatalf("tuple %d: %v", i, err)
		}
		for c, v := range r.vals {
			if want := binField(v); !bytes.Equal(fields[c], want) || (want == nil) != (fields[c] == nil) {
				t.Fatalf("tuple %d col %d: %x, want %x", i, c, fields[c], want)
			}
		}
		off = next
	}
	if off != len(data) {
		t.Fatalf("stopped at %d of %d", off, len(data))
	}

	bad := []struct {
		name   string
		data   []byte
		errSub string
	}{
		{"truncated header", data[:1], "truncated tuple header"},
		{"wrong count", append([]byte{0, 3}, data[2:]...), "tuple has 3 fields"},
		{"truncated field", data[:30], "truncated field 3"},
		{"field beyond data", data[:26], "exceeds the data"},
		{"bad float length", appendTuple(nil, [][]byte{binField(testBase), []byte("h"), []byte("r"), []byte("d"), []byte("r"), []byte("o"), []byte("a"), []byte("t"), []byte("s"), []byte("v"), []byte("e"), {1, 2, 3}, nil, nil, nil, nil, nil, nil, nil, nil, nil}), "has length 3, want 8"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			_, err := nextTuple(tc.data, 0, tb.Columns, fields)
			if err == nil || !strings.Contains(err.Error(), tc.errSub) {
				t.Fatalf("err = %v, want %q", err, tc.errSub)
			}
		})
	}
}

func FuzzNextTuple(f *testing.F) {
	tb := cpuTable()
	f.Add(pgcopyTuples(genRows(tb, 3, 2, 3)))
	f.Add([]byte{0, 21, 255, 255, 255, 255})
	f.Fuzz(func(t *testing.T, data []byte) {
		fields := make([][]byte, len(tb.Columns))
		off := 0
		for off < len(data) {
			next, err := nextTuple(data, off, tb.Columns, fields)
			if err != nil {
				return
			}
			if next <= off || next > len(data) {
				t.Fatalf("next %d after %d (len %d)", next, off, len(data))
			}
			// Re-encoding the decoded fields gives back the same bytes.
			if got := appendTuple(nil, fields); !bytes.Equal(got, data[off:next]) {
				t.Fatalf("re-encoded %x, want %x", got, data[off:next])
			}
			off = next
		}
	})
}

func TestCopyStream(t *testing.T) {
	for _, tuples := range [][]byte{nil, []byte("abc"), bytes.Repeat([]byte{7}, 100000)} {
		s := newCopyStream(copyHeader, tuples, copyTrailer)
		got, err := io.ReadAll(s)
		if err != nil {
			t.Fatal(err)
		}
		want := append(append(append([]byte(nil), copyHeader...), tuples...), copyTrailer...)
		if !bytes.Equal(got, want) {
			t.Fatalf("stream of %d tuple bytes differs", len(tuples))
		}
	}
	if len(copyHeader) != 19 || string(copyHeader[:11]) != "PGCOPY\n\xff\r\n\x00" {
		t.Fatalf("header %q", copyHeader)
	}
	s := newCopyStream(copyHeader, []byte("abc"), copyTrailer)
	s.close()
	if n, err := s.Read(make([]byte, 10)); n != 0 || err == nil {
		t.Fatalf("read after close: %d %v", n, err)
	}
}

func TestUnixNanosToPG(t *testing.T) {
	tests := []struct {
		ns   int64
		want int64
	}{
		{946684800 * 1e9, 0},
		{946684800*1e9 + 1500, 1},
		{946684800*1e9 - 1, -1}, // floor, not toward zero
		{time.Date(2016, 1, 1, 0, 0, 10, 0, time.UTC).UnixNano(), (1451606410 - 946684800) * 1e6},
		{-1, -1 - 946684800*1e6},
	}
	for _, tc := range tests {
		if got := unixNanosToPG(tc.ns); got != tc.want {
			t.Errorf("unixNanosToPG(%d) = %d, want %d", tc.ns, got, tc.want)
		}
	}
	if got := pgToUnixNanos(unixNanosToPG(1451606410123456000)); got != 1451606410123456000 {
		t.Errorf("round trip = %d", got)
	}
}

func TestIsRetryable(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{&pgconn.PgError{Code: "08006"}, true},
		{&pgconn.PgError{Code: "08P01"}, true},
		{&pgconn.PgError{Code: "40001"}, true},
		{&pgconn.PgError{Code: "40P01"}, true},
		{&pgconn.PgError{Code: "53300"}, true},
		{&pgconn.PgError{Code: "57P01"}, true},
		{&pgconn.PgError{Code: "57P03"}, true},
		{&pgconn.PgError{Code: "22P04"}, false},
		{&pgconn.PgError{Code: "22003"}, false},
		{&pgconn.PgError{Code: "42P01"}, false},
		{&pgconn.PgError{Code: "23505"}, false},
		{&pgconn.PgError{Code: "28P01"}, false},
		{fmt.Errorf("copy: %w", io.ErrUnexpectedEOF), true},
		{io.EOF, true},
		{&net.OpError{Op: "read", Err: syscall.ECONNRESET}, true},
		{fmt.Errorf("dial: %w", syscall.ECONNREFUSED), true},
		{context.Canceled, false},
		{fmt.Errorf("x: %w", context.DeadlineExceeded), false},
		{errors.New("tuple has 3 fields"), false},
	}
	for _, tc := range tests {
		if got := isRetryable(tc.err); got != tc.want {
			t.Errorf("isRetryable(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

func TestDescribe(t *testing.T) {
	err := fmt.Errorf("copy: %w", &pgconn.PgError{Severity: "ERROR", Code: "22P04", Message: "row field count is 3, expected 21", Where: "COPY cpu, line 7"})
	got := describe(err, func(n int64) string { return fmt.Sprintf("input record %d", 100+n-1) })
	want := "ERROR: row field count is 3, expected 21 (SQLSTATE 22P04); context: COPY cpu, line 7 (input record 106)"
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	if n, ok := copyContextLine(`COPY cpu, line 12, column usage_user: "x"`); !ok || n != 12 {
		t.Fatalf("copyContextLine = %d %v", n, ok)
	}
	if _, ok := copyContextLine("SQL statement"); ok {
		t.Fatal("matched a non-COPY context")
	}
}

func TestMethodFor(t *testing.T) {
	tests := []struct {
		m      Method
		f      format.Format
		want   Method
		errSub string
	}{
		{MethodAuto, format.PGCopy, MethodCopyBinary, ""},
		{MethodAuto, format.CSV, MethodCopyCSV, ""},
		{MethodAuto, format.ILP, MethodCopyBinary, ""},
		{MethodCopyBinary, format.CSV, "", "copy-binary needs pgcopy or ILP input"},
		{MethodCopyCSV, format.PGCopy, "", "copy-csv needs csv input"},
		{MethodCopyCSV, format.ILP, "", "copy-csv needs csv input"},
		{MethodInsert, format.ILP, MethodInsert, ""},
		{MethodInsertMulti, format.CSV, MethodInsertMulti, ""},
	}
	for _, tc := range tests {
		got, err := tc.m.For(tc.f)
		if tc.errSub != "" {
			if err == nil || !strings.Contains(err.Error(), tc.errSub) {
				t.Errorf("%s/%s: err = %v, want %q", tc.m, tc.f, err, tc.errSub)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s/%s = %s, %v; want %s", tc.m, tc.f, got, err, tc.want)
		}
	}
	if _, err := ParseMethod("bulk"); err == nil {
		t.Error("ParseMethod(bulk) succeeded")
	}
}

func TestConfig(t *testing.T) {
	tests := []struct {
		name          string
		cfg           Config
		host, db, ssl string
		port          uint16
		errSub        string
	}{
		{name: "defaults", cfg: Config{SSLMode: "disable"}, host: "127.0.0.1", port: 5432, db: "postgres"},
		{name: "flags", cfg: Config{Host: "db.example", Port: 6543, User: "u", SSLMode: "disable"}, host: "db.example", port: 6543, db: "postgres"},
		{name: "url", cfg: Config{URL: "postgres://x@10.0.0.1:7000/maint?sslmode=disable"}, host: "10.0.0.1", port: 7000, db: "maint"},
		{name: "url sslmode override", cfg: Config{URL: "postgres://x@10.0.0.1:7000/maint?sslmode=require", SSLMode: "disable"}, host: "10.0.0.1", port: 7000, db: "maint"},
		{name: "dsn", cfg: Config{URL: "host=h port=1 user=u dbname=d sslmode=disable"}, host: "h", port: 1, db: "d"},
		{name: "bad method", cfg: Config{Method: "bulk"}, errSub: "unknown Method"},
		{name: "bad commit", cfg: Config{Commit: "never"}, errSub: "unknown Commit"},
		{name: "unlogged hypertable", cfg: Config{Unlogged: true, UseHypertable: "true"}, errSub: "Unlogged needs plain tables"},
		{name: "bad index", cfg: Config{CreateIndexes: "sometimes"}, errSub: "unknown CreateIndexes"},
		{name: "partitions on plain tables", cfg: Config{Partitions: 4, UseHypertable: "false"}, errSub: "need hypertables"},
		{name: "columnstore unlogged", cfg: Config{Columnstore: true, Unlogged: true}, errSub: "need hypertables"},
		{name: "compress after load on plain tables", cfg: Config{CompressAfter: true, UseHypertable: "false"}, errSub: "need hypertables"},
		{name: "negative partitions", cfg: Config{Partitions: -1}, errSub: "negative"},
		{name: "direct compress with insert", cfg: Config{DirectCompress: true, Method: MethodInsertMulti}, errSub: "DirectCompress compresses during COPY: Method insert-multi does not COPY"},
		{name: "direct compress with copy", cfg: Config{DirectCompress: true, Method: MethodCopyBinary, SSLMode: "disable"}, host: "127.0.0.1", port: 5432, db: "postgres"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tg, err := New(tc.cfg)
			if tc.errSub != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errSub) {
					t.Fatalf("err = %v, want %q", err, tc.errSub)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			cc, err := tg.cfg.connConfig("")
			if err != nil {
				t.Fatal(err)
			}
			if cc.Host != tc.host || cc.Port != tc.port || cc.Database != tc.db || cc.TLSConfig != nil {
				t.Fatalf("host %s port %d db %s tls %v", cc.Host, cc.Port, cc.Database, cc.TLSConfig != nil)
			}
			cc, _ = tg.cfg.connConfig("benchmark")
			if cc.Database != "benchmark" {
				t.Fatalf("target db = %s", cc.Database)
			}
		})
	}
}

func TestPasswordNeverPrinted(t *testing.T) {
	const secret = "s3cr3t-pw"
	tg, err := New(Config{Host: "127.0.0.1", Port: 1, Password: secret, SSLMode: "disable"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err = tg.Prepare(ctx, load.PrepareOptions{DBName: "x", CreateDB: true})
	if err == nil {
		t.Fatal("connected to port 1")
	}
	if strings.Contains(err.Error(), secret) {
		t.Fatalf("password in error: %v", err)
	}
	_, err = tg.NewWriter(ctx, 0)
	if err == nil || strings.Contains(err.Error(), secret) || !load.IsRetryable(err) {
		t.Fatalf("NewWriter err = %v (want retryable, no password)", err)
	}
	// A URL with the password inline, and a malformed one.
	for _, u := range []string{"postgres://u:" + secret + "@127.0.0.1:1/db?sslmode=disable", "postgres://u:" + secret + "@127.0.0.1:notaport/db"} {
		tg, err := New(Config{URL: u})
		if err == nil {
			err = tg.Prepare(ctx, load.PrepareOptions{DBName: "x"})
		}
		if err == nil || strings.Contains(err.Error(), secret) {
			t.Fatalf("URL %d: err = %v", len(u), err)
		}
	}
	if got := redact.Error(errors.New("password "+secret+" rejected"), secret).Error(); got != "password REDACTED rejected" {
		t.Fatalf("redacted: %q", got)
	}
}

func TestTableDDL(t *testing.T) {
	tb := &schema.Table{Name: "m", Columns: []schema.Column{{Name: "time", Type: schema.Timestamp}, {Name: "host", Type: schema.Text, Tag: true}, {Name: "up", Type: typeBool}}}
	if got, want := tableDDL(tb, false), `CREATE TABLE IF NOT EXISTS "m" ("time" timestamptz NOT NULL, "host" text, "up" boolean)`; got != want {
		t.Errorf("ddl:\n got %s\nwant %s", got, want)
	}
	if got := tableDDL(cpuTable(), true); got != cpuTable().PostgresDDL(true) {
		t.Errorf("cpu ddl differs from PostgresDDL: %s", got)
	}
	if got, want := indexDDL(tb), `CREATE INDEX IF NOT EXISTS "m_tsload_idx" ON "m" ("host", "time" DESC)`; got != want {
		t.Errorf("index:\n got %s\nwant %s", got, want)
	}
}

func TestColumnstoreDDL(t *testing.T) {
	cpu := usecase.LookupTable("cpu")
	tests := []struct{ segment, order, want string }{
		{"", "time DESC", `ALTER TABLE "cpu" SET (timescaledb.enable_columnstore = true, timescaledb.segmentby = '"hostname"', timescaledb.orderby = 'time DESC')`},
		{"none", "time", `ALTER TABLE "cpu" SET (timescaledb.enable_columnstore = true, timescaledb.segmentby = '', timescaledb.orderby = 'time')`},
		{"region, hostname", "time DESC", `ALTER TABLE "cpu" SET (timescaledb.enable_columnstore = true, timescaledb.segmentby = 'region, hostname', timescaledb.orderby = 'time DESC')`},
	}
	for _, tc := range tests {
		if got := columnstoreDDL(cpu, tc.segment, tc.order); got != tc.want {
			t.Errorf("segment %q order %q:\n got %s\nwant %s", tc.segment, tc.order, got, tc.want)
		}
	}
	for table, tag := range map[string]string{"cpu": "hostname", "readings": "name", "weather": "location_id", "mem": "hostname"} {
		if got := seriesTag(usecase.LookupTable(table)); got != tag {
			t.Errorf("series tag of %s = %q, want %q", table, got, tag)
		}
	}
}
