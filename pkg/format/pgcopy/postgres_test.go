package pgcopy_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/format/pgcopy"
	"github.com/tsload/tsload/pkg/gen"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/schema"
	"github.com/tsload/tsload/pkg/split"
	"github.com/tsload/tsload/pkg/usecase"
)

// TestServerSkipsTableChunk: PostgreSQL's COPY FROM (FORMAT binary) reads
// the header extension length and skips the tsload table chunk, so the
// generator's single-table file loads unchanged; and the server's own
// COPY TO output holds the very same tuples after a plain header.
func TestServerSkipsTableChunk(t *testing.T) {
	conn := loadtest.PGConnect(t)
	ctx := context.Background()
	for _, uc := range []string{usecase.CPUOnly, usecase.Weather} {
		t.Run(uc, func(t *testing.T) {
			tables, _ := usecase.Tables(uc)
			tb := tables[0]
			var file bytes.Buffer
			st, err := gen.Generate(ctx, gen.Config{UseCase: uc, Format: format.PGCopy, Seed: 1, Scale: 4, Workers: 1,
				Start: gen.DefaultStart, End: gen.DefaultStart.Add(2 * time.Hour), Stdout: &file, Stderr: io.Discard})
			if err != nil {
				t.Fatal(err)
			}
			data := file.Bytes()
			hdr := headerLen(t, data)
			if !bytes.HasPrefix(data[19:], []byte(pgcopy.ChunkTag)) {
				t.Fatalf("no tsload table chunk in the header: % x", data[:40])
			}

			sch := fmt.Sprintf("pgcopy_chunk_%d_%d", time.Now().UnixNano()%1e9, rand.IntN(1e6))
			if _, err := conn.Exec(ctx, "CREATE SCHEMA "+sch); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { conn.Exec(context.Background(), "DROP SCHEMA "+sch+" CASCADE") })
			if _, err := conn.Exec(ctx, "SET search_path TO "+sch); err != nil {
				t.Fatal(err)
			}
			if _, err := conn.Exec(ctx, tb.PostgresDDL(false)); err != nil {
				t.Fatal(err)
			}
			tag, err := conn.PgConn().CopyFrom(ctx, bytes.NewReader(data), "COPY "+schema.QuoteIdent(tb.Name)+" FROM STDIN (FORMAT binary)")
			if err != nil {
				t.Fatalf("COPY FROM refused the generator's file: %v", err)
			}
			if tag.RowsAffected() != st.Rows || st.Rows == 0 {
				t.Fatalf("COPY loaded %d rows, generated %d", tag.RowsAffected(), st.Rows)
			}

			var back bytes.Buffer
			if _, err := conn.PgConn().CopyTo(ctx, &back, "COPY "+schema.QuoteIdent(tb.Name)+" TO STDOUT (FORMAT binary)"); err != nil {
				t.Fatal(err)
			}
			out := back.Bytes()
			if headerLen(t, out) != 19 {
				t.Fatalf("the server's header has an extension: % x", out[:19])
			}
			if !bytes.Equal(out[19:], data[hdr:]) {
				t.Fatalf("the server's tuples (%d bytes) differ from the generator's (%d bytes)", len(out)-19, len(data)-hdr)
			}
			// The server's plain output loads with --table (or its file
			// name); from stdin without either it cannot.
			for _, c := range []struct {
				source, table, err string
			}{{"stdin", tb.Name, ""}, {"/x/" + tb.Name + ".bin", "", ""}, {"stdin", "", "pass --table"}} {
				rows, err := splitRows(c.source, out, c.table)
				if c.err != "" {
					if err == nil || !strings.Contains(err.Error(), c.err) {
						t.Errorf("%s without --table: %v", c.source, err)
					}
					continue
				}
				if err != nil || rows != st.Rows {
					t.Errorf("%s --table %q: %d rows, %v", c.source, c.table, rows, err)
				}
			}
		})
	}
}

// splitRows splits a pgcopy input as a loader does and counts its rows.
func splitRows(source string, data []byte, table string) (int64, error) {
	in, err := split.NewInput(source, bytes.NewReader(data), int64(len(data)), 0)
	if err != nil {
		return 0, err
	}
	sp, err := split.New(in, split.Config{Table: table, Lookup: usecase.LookupTable})
	if err != nil {
		return 0, err
	}
	var b load.Batch
	for {
		if _, err := sp.Next(&b); err == io.EOF {
			return sp.Rows(), nil
		} else if err != nil {
			return sp.Rows(), err
		}
	}
}

// headerLen checks a COPY binary header and returns its length with the
// extension area.
func headerLen(t *testing.T, b []byte) int {
	t.Helper()
	if len(b) < 19 || string(b[:11]) != pgcopy.Signature || binary.BigEndian.Uint32(b[11:]) != 0 {
		t.Fatalf("bad COPY header % x", b[:min(len(b), 19)])
	}
	return 19 + int(binary.BigEndian.Uint32(b[15:]))
}

// TestServerCopyFilesRead: files that PostgreSQL's own COPY ... TO STDOUT
// (FORMAT binary) writes, over every column type tsload uses with NULLs,
// empty and long text and extreme numbers, are read exactly: pgcopy.Tuple
// gives each field the bytes the server sends for it in a binary-format
// SELECT, and the splitter cuts batches that hold exactly the file's tuples.
func TestServerCopyFilesRead(t *testing.T) {
	conn := loadtest.PGConnect(t)
	ctx := context.Background()
	name := fmt.Sprintf("pgcopy_server_%d_%d", time.Now().UnixNano()%1e9, rand.IntN(1e6))
	tb := &schema.Table{Name: name, Columns: []schema.Column{
		{Name: "time", Type: schema.Timestamp}, {Name: "tag", Type: schema.Text, Tag: true},
		{Name: "f8", Type: schema.Float8}, {Name: "f4", Type: schema.Float4},
		{Name: "i8", Type: schema.Int8}, {Name: "i4", Type: schema.Int4},
	}}
	if _, err := conn.Exec(ctx, "CREATE TEMP TABLE "+tb.Name+" (time timestamptz, tag text, f8 float8, f4 float4, i8 int8, i4 int4)"); err != nil {
		t.Fatal(err)
	}
	fill := []string{
		// A few rows of everything, NULLs in every column.
		"INSERT INTO " + name + " VALUES ('2016-01-01T00:00:00Z', 'host_0', 1.5, 2.25, 42, -7), (NULL, NULL, NULL, NULL, NULL, NULL), " +
			"('1970-01-01T00:00:00.000001Z', '', 'NaN', '-Infinity', -9223372036854775808, 2147483647), ('2262-04-11T23:47:16Z', 'ünï ''q'' \"x\"', -0.0, 1e-38, 9223372036854775807, -2147483648)",
		// Many rows, long text: tuples cross the splitter's batches and buffers.
		"INSERT INTO " + name + " SELECT '2016-01-01'::timestamptz + g * interval '10 s', repeat('t', g % 3000), g * 0.5, g, g * 1000, g FROM generate_series(1, 20000) g",
	}
	for i, q := range fill {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
		t.Run(fmt.Sprint("file ", i+1), func(t *testing.T) {
			var file bytes.Buffer
			if _, err := conn.PgConn().CopyTo(ctx, &file, "COPY (SELECT * FROM "+name+" ORDER BY ctid) TO STDOUT (FORMAT binary)"); err != nil {
				t.Fatal(err)
			}
			// The server's values, column by column in binary format.
			res := conn.PgConn().ExecParams(ctx, "SELECT * FROM "+name+" ORDER BY ctid", nil, nil, nil, []int16{1}).Read()
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			data := file.Bytes()
			if err := pgcopy.CheckFlags(binary.BigEndian.Uint32(data[11:])); err != nil {
				t.Fatal(err)
			}
			body := data[headerLen(t, data):]
			var fields [][]byte
			for r, row := range res.Rows {
				var size int
				var err error
				fields, size, err = pgcopy.Tuple(fields[:0], body, 1<<20)
				if err != nil {
					t.Fatalf("row %d: %v", r, err)
				}
				if len(fields) != len(row) {
					t.Fatalf("row %d: %d fields, the server's row %d", r, len(fields), len(row))
				}
				for c := range row {
					if (fields[c] == nil) != (row[c] == nil) || !bytes.Equal(fields[c], row[c]) {
						t.Fatalf("row %d column %s: %x, the server sent %x", r, tb.Columns[c].Name, fields[c], row[c])
					}
				}
				body = body[size:]
			}
			if _, _, err := pgcopy.Tuple(nil, body, 0); err != io.EOF || len(body) != 2 {
				t.Fatalf("after %d rows: %d bytes left, %v (want the trailer)", len(res.Rows), len(body), err)
			}

			// The splitter: the batches' bytes are the file's tuples, in order.
			in, err := split.NewInput(name+".bin", bytes.NewReader(data), int64(len(data)), 0)
			if err != nil {
				t.Fatal(err)
			}
			sp, err := split.New(in, split.Config{BatchSize: 1000, Lookup: func(n string) *schema.Table {
				if n == name {
					return tb
				}
				return nil
			}})
			if err != nil {
				t.Fatal(err)
			}
			var got []byte
			var b load.Batch
			for {
				if _, err := sp.Next(&b); err == io.EOF {
					break
				} else if err != nil {
					t.Fatal(err)
				}
				got = append(got, b.Data...)
				b.Release()
			}
			tuples := data[headerLen(t, data) : len(data)-2]
			if sp.Rows() != int64(len(res.Rows)) || !bytes.Equal(got, tuples) {
				t.Fatalf("the splitter cut %d rows (%d bytes), the file has %d (%d bytes)", sp.Rows(), len(got), len(res.Rows), len(tuples))
			}
		})
	}
}
