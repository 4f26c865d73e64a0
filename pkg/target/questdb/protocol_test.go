package questdb

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/schema"
)

// doubleTexts are double field values in many spellings: the shortest,
// 17 and 25 significant digits, fixed notation, exponents, subnormals,
// halfway cases and random bits (seeded).
func doubleTexts() []string {
	out := []string{"58.1", "0", "-0", "42", "+1.5", "1.", ".5", "-.5", "1e5", "1E-5", "1.e3", "007", "0.1",
		"4.9e-324", "5e-324", "2.2250738585072011e-308", "2.2250738585072014e-308", "1.7976931348623157e308",
		"9007199254740993", "0.30000000000000004", "123456789012345678901234567890", "1.00000000000000011102230246251565404236316680908203125",
		"0.1000000000000000055511151231257827021181583404541015625", "8.98846567431158e307", "1e22", "1e23", "3.4028235e38"}
	r := rand.New(rand.NewPCG(1, 2))
	for len(out) < 3000 {
		f := math.Float64frombits(r.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		switch len(out) % 5 {
		case 0:
			out = append(out, strconv.FormatFloat(f, 'g', -1, 64))
		case 1:
			out = append(out, strconv.FormatFloat(f, 'e', 16, 64))
		case 2:
			out = append(out, strconv.FormatFloat(f, 'e', 24, 64))
		case 3:
			g := float64(r.IntN(2_000_000)-1_000_000) / 100
			out = append(out, strconv.FormatFloat(g, 'f', -1, 64))
		default:
			out = append(out, strconv.FormatFloat(r.NormFloat64()*1e6, 'f', r.IntN(20), 64))
		}
	}
	return out
}

// TestProtocolVersionsStoreSameDoubles loads the same double texts with
// line protocol version 1 (the server parses the text) and 2 (tsload sends
// the bits strconv.ParseFloat reads) into two tables of the real QuestDB,
// and reads both back as float64 bits over PG wire (binary results): every
// value is the same in both, and the one strconv reads.
func TestProtocolVersionsStoreSameDoubles(t *testing.T) {
	s := server(t)
	ctx := context.Background()
	texts := doubleTexts()
	base := uniqueName(t, "proto")
	got := map[int][]float64{}
	for _, v := range []int{1, 2} {
		table := fmt.Sprintf("%s_v%d", base, v)
		var b strings.Builder
		for i, x := range texts {
			fmt.Fprintf(&b, "%s,k=a v=%s,i=%di %d\n", table, x, i, 1704067200000000000+int64(i)*1000)
		}
		tg, err := New(Config{URL: s.http, PG: s.pg, ProtocolVersion: v, WALTimeout: time.Minute, Lookup: noTable})
		if err != nil {
			t.Fatal(err)
		}
		defer tg.Close()
		w, err := tg.NewWriter(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		batch := &load.Batch{Format: format.ILP, Data: []byte(b.String()), Rows: len(texts), Source: "doubles.ilp", FirstLine: 1,
			Tables: []load.TableRows{{Name: table, Rows: int64(len(texts))}}}
		if _, err := w.Write(ctx, batch); err != nil {
			t.Fatalf("version %d: %v", v, err)
		}
		if got := tg.Describe().Settings["protocol-version"]; got != v {
			t.Errorf("setup records protocol-version %v, want %d", got, v)
		}
		if n, err := tg.Count(ctx, []string{table}); err != nil || n[table] != int64(len(texts)) {
			t.Fatalf("version %d: count %v %v", v, n, err)
		}
		got[v] = readDoubles(t, s.pg, table, len(texts))
	}
	for i, x := range texts {
		want, _ := strconv.ParseFloat(x, 64)
		b1, b2 := math.Float64bits(got[1][i]), math.Float64bits(got[2][i])
		if b1 != b2 || b2 != math.Float64bits(want) {
			t.Errorf("%q: version 1 stored %v (%x), version 2 %v (%x), strconv reads %v (%x)", x, got[1][i], b1, got[2][i], b2, want, math.Float64bits(want))
		}
	}
}

func noTable(string) *schema.Table { return nil }

// readDoubles returns column v of table in order of i, as float64s decoded
// from PG wire's binary format (exact bits).
func readDoubles(t *testing.T, pg, table string, n int) []float64 {
	ctx := context.Background()
	cfg, err := pgx.ParseConfig(pg)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, "SELECT i, v FROM "+quote(table), pgx.QueryResultFormats{pgx.BinaryFormatCode, pgx.BinaryFormatCode})
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := make([]float64, n)
	seen := 0
	for rows.Next() {
		raw := rows.RawValues()
		if len(raw[0]) != 8 || len(raw[1]) != 8 && raw[1] != nil {
			t.Fatalf("not binary: % x, % x", raw[0], raw[1])
		}
		i := int64(binary.BigEndian.Uint64(raw[0]))
		out[i] = math.NaN() // NULL
		if raw[1] != nil {
			out[i] = math.Float64frombits(binary.BigEndian.Uint64(raw[1]))
		}
		seen++
	}
	if err := rows.Err(); err != nil || seen != n {
		t.Fatalf("%d of %d rows: %v", seen, n, err)
	}
	return out
}

// TestProtocolVersionDecided: auto takes the highest version /settings
// lists (inside "config", or at the top level as before 9.x), 1 without
// /settings and over TCP (without asking); a version given must be listed.
func TestProtocolVersionDecided(t *testing.T) {
	for _, tc := range []struct {
		settings string // "" answers 404
		tcp      bool
		given    int
		want     int
		err      string
	}{
		{settings: `{"config":{"release.version":"9.3.4","line.proto.support.versions":[1,2,3]},"preferences":{}}`, want: 3},
		{settings: `{"release.version":"9.0.0","line.proto.support.versions":[1,2]}`, want: 2},
		{settings: `{"config":{"line.proto.support.versions":[1,2,3,4]}}`, want: 3},
		{settings: `{"config":{"release.version":"8.2.0"}}`, want: 1},
		{settings: "", want: 1},
		{settings: "", tcp: true, want: 1},
		{settings: `{"config":{"line.proto.support.versions":[1,2,3]}}`, given: 2, want: 2},
		{settings: `{"config":{"line.proto.support.versions":[1,2,3]}}`, given: 1, want: 1},
		{settings: `{"config":{"line.proto.support.versions":[1]}}`, given: 2, err: "ProtocolVersion 2: the server supports line protocol versions [1]"},
		{settings: "", given: 3, err: "no /settings"},
		{settings: `{"config":{"line.proto.support.versions":[7]}}`, err: "none of which tsload writes"},
	} {
		asked := 0
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/settings" || tc.settings == "" {
				http.NotFound(w, r)
				return
			}
			asked++
			w.Write([]byte(tc.settings))
		}))
		cfg := Config{URL: srv.URL, PG: "postgres://a@127.0.0.1/qdb", ProtocolVersion: tc.given}
		if tc.tcp {
			cfg.Transport, cfg.TCPAddr = TCP, "127.0.0.1:1"
		}
		tg, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		v, err := tg.ProtocolVersion(context.Background())
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%+v: %v, want %q", tc, err, tc.err)
		case tc.err == "" && (err != nil || v != tc.want):
			t.Errorf("%+v: %d %v, want %d", tc, v, err, tc.want)
		case tc.tcp && asked > 0:
			t.Errorf("%+v: TCP asked /settings", tc)
		}
		tg.Close()
		srv.Close()
	}
}
