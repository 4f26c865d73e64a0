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
