package gen

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tsload/tsload/internal/servertest"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/format/csv"
	"github.com/tsload/tsload/pkg/schema"
	"github.com/tsload/tsload/pkg/usecase"
)

// pgSchema creates a fresh schema, makes it the search path and drops it at
// the end of the test.
func pgSchema(t *testing.T, conn *pgx.Conn, prefix string) string {
	t.Helper()
	ctx := context.Background()
	name := fmt.Sprintf("gen_%s_%d_%d", prefix, time.Now().UnixNano()%1e9, rand.IntN(1e6))
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Exec(context.Background(), "DROP SCHEMA "+name+" CASCADE") })
	return name
}

func pgCopy(t *testing.T, conn *pgx.Conn, sch string, tb *schema.Table, f format.Format, data []byte) int64 {
	t.Helper()
	ctx := context.Background()
	if _, err := conn.Exec(ctx, "SET search_path TO "+sch); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, tb.PostgresDDL(false)); err != nil {
		t.Fatalf("DDL of %s: %v", tb.Name, err)
	}
	opts := "(FORMAT csv, HEADER true)"
	if f == format.PGCopy {
		opts = "(FORMAT binary)"
	}
	tag, err := conn.PgConn().CopyFrom(ctx, bytes.NewReader(data), "COPY "+schema.QuoteIdent(tb.Name)+" FROM STDIN "+opts)
	if err != nil {
		t.Fatalf("COPY %s %v: %v", tb.Name, f, err)
	}
	return tag.RowsAffected()
}

// splitStream splits a multi-table csv or pgcopy stream into standard
// single-table files, by directives and frame lengths only.
func splitStream(t *testing.T, f format.Format, b []byte, tables []*schema.Table) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	if f == format.CSV {
		cur := ""
		for _, line := range bytes.SplitAfter(b, []byte("\n")) {
			switch {
			case len(line) == 0:
			case bytes.HasPrefix(line, []byte("#data ")):
				cur = strings.TrimSpace(string(line[6:]))
				if out[cur] == nil {
					out[cur] = csvHeader(usecase.LookupTable(cur))
				}
			case bytes.HasPrefix(line, []byte("#")):
			default:
				if cur == "" {
					t.Fatal("record before #data")
				}
				out[cur] = append(out[cur], line...)
			}
		}
		return out
	}
	p := 11
	u16 := func() int { v := int(binary.BigEndian.Uint16(b[p:])); p += 2; return v }
	nt := u16()
	names := make([]string, nt)
	decls := make([][]byte, nt) // each table's declaration
	for i := 0; i < nt; i++ {
		start := p
		l := u16()
		names[i] = string(b[p : p+l])
		p += l
		nc := u16()
		for j := 0; j < nc; j++ {
			p += u16() + 2
		}
		decls[i] = b[start:p]
	}
	for {
		ti := u16()
		if ti == 0xffff {
			break
		}
		l := int(binary.BigEndian.Uint32(b[p:]))
		p += 4
		if out[names[ti]] == nil {
			// The single-table header: signature, flags, and the header
			// extension holding the tsload table chunk with the same
			// declaration bytes as the TSLCOPY header's.
			d := decls[ti]
			h := append([]byte("PGCOPY\n\xff\r\n\x00"), 0, 0, 0, 0)
			h = binary.BigEndian.AppendUint32(h, uint32(13+4+len(d)))
			h = append(h, "tsload.table\x00"...)
			h = binary.BigEndian.AppendUint32(h, uint32(len(d)))
			out[names[ti]] = append(h, d...)
		}
		out[names[ti]] = append(out[names[ti]], b[p:p+l]...)
		p += l
	}
	for k := range out {
		out[k] = append(out[k], 0xff, 0xff)
	}
	return out
}

func csvHeader(tb *schema.Table) []byte {
	var b []byte
	for i, c := range tb.Columns {
		if i > 0 {
			b = append(b, ',')
		}
		b = csv.AppendField(b, []byte(c.Name))
	}
	return append(b, '\n')
}

// TestPostgres loads csv and pgcopy output of every use case into
// PostgreSQL (single-table files, --out-dir files and split multi-table
// streams), checks the row counts, that both formats load the same rows,
// and that the first row of each table holds the values the ILP output has.
func TestPostgres(t *testing.T) {
	conn := servertest.PGConnect(t)
	ctx := context.Background()
	for _, uc := range usecase.Names {
		t.Run(uc, func(t *testing.T) {
			tables, _ := usecase.Tables(uc)
			cfg := small(uc, format.ILP)
			cfg.Scale = 12
			pts := decodeILP(t, generate(t, cfg))
			want := map[string]int64{}
			first := map[string]point{}
			for _, p := range pts {
				want[p.m]++
				if _, ok := first[p.m]; !ok {
					first[p.m] = p
				}
			}
			schemas := map[format.Format]string{}
			for _, f := range []format.Format{format.CSV, format.PGCopy} {
				sch := pgSchema(t, conn, strings.ReplaceAll(uc, "-", "_")+"_"+f.String())
				schemas[f] = sch
				c := cfg
				c.Format = f
				files := map[string][]byte{}
				if len(tables) == 1 {
					files[tables[0].Name] = generate(t, c)
				} else {
					// the multi-table stream, split by its framing
					files = splitStream(t, f, generate(t, c), tables)
					// and --out-dir must hold the same rows
					c.OutDir = t.TempDir()
					generate(t, c)
					for _, tb := range tables {
						b, err := os.ReadFile(filepath.Join(c.OutDir, tb.Name+Extension(f)))
						if err != nil {
							t.Fatal(err)
						}
						if !bytes.Equal(b, files[tb.Name]) {
							t.Errorf("%s: --out-dir file differs from the split stream", tb.Name)
						}
					}
				}
				for _, tb := range tables {
					if n := pgCopy(t, conn, sch, tb, f, files[tb.Name]); n != want[tb.Name] {
						t.Errorf("%s %v: COPY loaded %d rows, want %d", tb.Name, f, n, want[tb.Name])
					}
				}
			}
			for _, tb := range tables {
				q := fmt.Sprintf("SELECT count(*) FROM (SELECT * FROM %s.%s EXCEPT ALL SELECT * FROM %s.%s) d",
					schemas[format.CSV], tb.Name, schemas[format.PGCopy], tb.Name)
				var diff int64
				if err := conn.QueryRow(ctx, q).Scan(&diff); err != nil {
					t.Fatal(err)
				}
				if diff != 0 {
					t.Errorf("%s: %d csv rows not in the pgcopy load", tb.Name, diff)
				}
				checkFirstRow(t, conn, schemas[format.PGCopy], tb, first[tb.Name])
			}
		})
	}
}

func checkFirstRow(t *testing.T, conn *pgx.Conn, sch string, tb *schema.Table, p point) {
	t.Helper()
	tag := tb.Tags()[0]
	var cols []string
	var fields []schema.Column
	for _, c := range tb.Columns[1:] {
		if !c.Tag {
			cols = append(cols, fmt.Sprintf("%s::float8", schema.QuoteIdent(c.Name)))
			fields = append(fields, c)
		}
	}
	q := fmt.Sprintf("SELECT %s FROM %s.%s WHERE time = $1 AND %s::text = $2", strings.Join(cols, ", "), sch, tb.Name, schema.QuoteIdent(tag))
	vals := make([]*float64, len(cols))
	dst := make([]any, len(cols))
	for i := range vals {
		dst[i] = &vals[i]
	}
	if err := conn.QueryRow(context.Background(), q, time.Unix(0, p.ns), p.tags[tag]).Scan(dst...); err != nil {
		t.Fatalf("%s: the first ILP row (%s=%s at %d) is not in PostgreSQL: %v", tb.Name, tag, p.tags[tag], p.ns, err)
	}
	for i, c := range fields {
		v, ok := p.fields[c.Name]
		switch {
		case !ok && vals[i] != nil:
			t.Errorf("%s.%s = %v in PostgreSQL, NULL in ILP", tb.Name, c.Name, *vals[i])
		case ok && vals[i] == nil:
			t.Errorf("%s.%s NULL in PostgreSQL, %v in ILP", tb.Name, c.Name, v)
		case ok && c.Type == schema.Float4 && float32(*vals[i]) != float32(v):
			t.Errorf("%s.%s = %v in PostgreSQL, %v in ILP", tb.Name, c.Name, *vals[i], v)
		case ok && c.Type != schema.Float4 && math.Abs(*vals[i]-v) > 1e-9*math.Abs(v):
			t.Errorf("%s.%s = %v in PostgreSQL, %v in ILP", tb.Name, c.Name, *vals[i], v)
		}
	}
}
