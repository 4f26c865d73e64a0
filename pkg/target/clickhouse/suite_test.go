package clickhouse

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/clickhousetest"
	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/fingerprint"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
)

// suite is the conformance suite's view of the real ClickHouse: a database of the test's
// own, counted directly.
func suite(t *testing.T) loadtest.TargetSuite {
	addr, db := clickhousetest.RealDB(t)
	newTarget := func(t *testing.T, at string, timeout time.Duration) (load.Target, load.PrepareOptions) {
		tg, err := New(Config{Addr: at, DBName: db, Dedup: true, RequestTimeout: timeout, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		return tg, load.PrepareOptions{DBName: db, CreateDB: true}
	}
	rows := func(t *testing.T, _ load.Target, table string) (int64, int64) {
		return clickhousetest.Rows(t, addr, db, table)
	}
	return loadtest.TargetSuite{Loader: "load_clickhouse", Upstream: addr, New: newTarget, Rows: rows, Values: "ClickHouse"}
}

// TestTargetSuite runs the conformance suite (loadtest.TargetSuite) on the real ClickHouse,
// with its fault scenarios (a re-sent batch is stored once: ReplacingMergeTree; a float into
// an integer column is refused for good; a server of the test's own killed with SIGKILL) and
// its loader kills (resume: batches in doubt are sent again).
//
// A server without DateTime64 (Debian's 18.16) stores whole seconds and refuses finer
// times by design: there the suite's rows are a second apart.
func TestTargetSuite(t *testing.T) {
	s := suite(t)
	if !clickhousetest.HasDateTime64(t, clickhousetest.RealAddr(t)) {
		s.Step = time.Second
	}
	s.Faults = &loadtest.FaultSuite{
		Refuse:    func(line string) string { return strings.Replace(line, "i ", " ", 1) },
		RefuseErr: []string{"input line 3457", `field "n": a float into a int8 column`},
		Private:   privateClickHouse,
	}
	s.Resume = &loadtest.ResumeSuite{Args: func(_ *testing.T, proxy, _, _ string) []string {
		return []string{"--host", proxy}
	}}
	s.Run(t, "suite")
}

// TestWholeSeconds loads and reloads rows of whole seconds with two writers and verifies
// them by content, on any server: a ReplacingMergeTree holds the reloaded rows once.
func TestWholeSeconds(t *testing.T) {
	addr, db := clickhousetest.RealDB(t)
	ctx := context.Background()
	var b strings.Builder
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&b, "ws,host=h%d v=%d.5,n=%di %d\n", i%10, i, i, int64(1704067200000000000)+int64(i)*1e9)
	}
	for round := 1; round <= 2; round++ {
		tg, err := New(Config{Addr: addr, DBName: db, Dedup: true, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		if err := tg.Ping(ctx); err != nil {
			t.Fatal(err)
		}
		if err := tg.Prepare(ctx, load.PrepareOptions{DBName: db, CreateDB: true}); err != nil {
			t.Fatal(err)
		}
		w, _ := tg.NewWriter(ctx, 0)
		batch := &load.Batch{Format: format.ILP, Data: []byte(b.String()), Rows: 3000, Source: "ws.ilp", FirstLine: 1}
		if ack, err := w.Write(ctx, batch); err != nil || ack.Rows != 3000 {
			t.Fatalf("round %d: ack %+v, %v", round, ack, err)
		}
		n, err := tg.Count(ctx, []string{"ws"})
		if err != nil || n["ws"] != 3000 {
			t.Fatalf("round %d: count %v, %v", round, n, err)
		}
		fps, err := tg.Content(ctx, []fingerprint.Query{{Table: "ws", Time: "time", Tags: []string{"host"},
			Fields: []fingerprint.FieldQuery{{Name: "n", Kind: fingerprint.Int}, {Name: "v", Kind: fingerprint.Float}}}})
		if err != nil {
			t.Fatal(err)
		}
		fp := fps["ws"]
		if fp.Rows != 3000 || fp.Series != 10 || fp.MinTime != 1704067200000000000 || fp.MaxTime != 1704067200000000000+2999*1e9 ||
			fp.Fields[0].IntSum.Lo != 2999*3000/2 || fp.Fields[1].Sum != 2999*3000/2+1500 ||
			!fp.Fields[0].Extremes || fp.Fields[0].IntMin != (fingerprint.Int128{}) || fp.Fields[0].IntMax.Lo != 2999 ||
			!fp.Fields[1].Extremes || fp.Fields[1].Min != 0.5 || fp.Fields[1].Max != 2999.5 {
			t.Fatalf("round %d: fingerprint %+v", round, fp)
		}
		if sz, err := tg.Footprint(ctx, []string{"ws"}); err != nil || sz.Bytes <= 0 {
			t.Fatalf("footprint %+v, %v", sz, err)
		}
		w.Close()
		tg.Close()
	}
	if rows, keys := clickhousetest.Rows(t, addr, db, "ws"); rows != 3000 || keys != 3000 {
		t.Fatalf("the table holds %d rows, %d keys; want 3000", rows, keys)
	}
}
