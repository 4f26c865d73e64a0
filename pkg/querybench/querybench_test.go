package querybench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/query"
)

var t0 = time.Date(2016, 1, 1, 0, 0, 0, 0, time.UTC)

func genCfg() GenConfig {
	return GenConfig{UseCase: "devops", Seed: 1, Scale: 10, Start: t0, End: t0.Add(2 * time.Hour), PerType: 3}
}

func TestGenerateRoundTrip(t *testing.T) {
	set, err := Generate(genCfg())
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Queries) != 3*16 || set.Queries[0].Name != "single-groupby-1-1-1" || set.Queries[16].Name != "single-groupby-1-1-1" {
		t.Fatalf("%d queries, first %s", len(set.Queries), set.Queries[0])
	}
	var a, b bytes.Buffer
	if err := set.Write(&a); err != nil {
		t.Fatal(err)
	}
	again, _ := Generate(genCfg())
	again.Write(&b)
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("the same config wrote two different files")
	}
	other := genCfg()
	other.Seed = 2
	o, _ := Generate(other)
	var c bytes.Buffer
	o.Write(&c)
	if bytes.Equal(a.Bytes(), c.Bytes()) {
		t.Error("seeds 1 and 2 wrote the same file")
	}
	back, err := Read(bytes.NewReader(a.Bytes()), "q.tsq")
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Queries) != len(set.Queries) || back.Header.Seed != 1 || back.Header.UseCase != "devops" {
		t.Fatalf("read back %+v", back.Header)
	}
	for i, q := range set.Queries {
		if back.Queries[i].String() != q.String() {
			t.Errorf("query %d: %s, read back %s", i, q, back.Queries[i])
		}
	}
}

func TestGenerateBad(t *testing.T) {
	for _, tc := range []struct {
		change func(*GenConfig)
		want   string
	}{
		{func(c *GenConfig) { c.UseCase = "weather" }, "has no queries"},
		{func(c *GenConfig) { c.Scale = 0 }, "scale 0"},
		{func(c *GenConfig) { c.End = c.Start }, "is empty"},
		{func(c *GenConfig) { c.PerType = 0 }, "0 queries per type"},
		{func(c *GenConfig) { c.Types = []string{"lastpoint", "nope"} }, `"nope" is not one of devops's`},
	} {
		c := genCfg()
		tc.change(&c)
		if _, err := Generate(c); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", c, err, tc.want)
		}
	}
}

func TestReadBad(t *testing.T) {
	var buf bytes.Buffer
	set, _ := Generate(genCfg())
	set.Write(&buf)
	lines := strings.SplitAfter(buf.String(), "\n")
	head, q := lines[0], lines[1]
	for _, tc := range []struct{ text, want string }{
		{"", "q.tsq: empty"},
		{head, "a header and no query"},
		{"{}\n" + q, "q.tsq:1: query set version 0"},
		{"nonsense\n", "q.tsq:1: not a query set header"},
		{head + q + "{\"name\":\"x\",\"agg\":\"max\"}\n", "q.tsq:3: query x: no table"},
		{head + strings.Replace(q, `"agg":"max"`, `"agg":"median"`, 1), `q.tsq:2: query single-groupby-1-1-1: aggregate "median"`},
		{head + strings.Replace(q, `"table"`, `"tabel"`, 1), `q.tsq:2: not a query: json: unknown field "tabel"`},
		{head + q + q[:20] + "\n", "q.tsq:3: not a query"},
		{head + strings.Replace(q, `"bucket_ns":60000000000`, `"bucket_ns":7000000000`, 1), "q.tsq:2: query single-groupby-1-1-1: bucket 7s"},
		{head + q + strings.Repeat("x", MaxLine+1), "q.tsq:3: a line longer than"},
	} {
		_, err := Read(strings.NewReader(tc.text), "q.tsq")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.60q: %v, want %q", tc.text, err, tc.want)
		}
	}
}

func FuzzRead(f *testing.F) {
	var buf bytes.Buffer
	set, _ := Generate(GenConfig{UseCase: "iot", Seed: 1, Scale: 3, Start: t0, End: t0.Add(time.Hour), PerType: 1})
	set.Write(&buf)
	f.Add(buf.Bytes())
	f.Add([]byte("{\"tsload_queries\":1}\n{}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Read(bytes.NewReader(data), "f")
		if err != nil {
			return
		}
		for _, q := range s.Queries {
			if err := q.Validate(); err != nil {
				t.Fatalf("Read accepted an invalid query: %v", err)
			}
		}
		var out bytes.Buffer
		if err := s.Write(&out); err != nil {
			t.Fatal(err)
		}
		if _, err := Read(&out, "again"); err != nil {
			t.Fatalf("a set read does not read back: %v", err)
		}
	})
}

// evalQuerier answers over points in memory with query.Eval, changing the
// first value of its answers to queries named wrong: the engine's checks
// are tested without a database (every database is tested through
// internal/querytest).
type evalQuerier struct {
	points []query.TablePoint
	wrong  string
	unsup  string
}

func (e *evalQuerier) Query(_ context.Context, q *query.Query) (*query.Answer, error) {
	if q.Name == e.unsup {
		return nil, fmt.Errorf("test: %w", errors.ErrUnsupported)
	}
	var ps []query.Point
	for _, p := range e.points {
		if p.Table == q.Table {
			ps = append(ps, p.Point)
		}
	}
	a := query.Eval(q, slices.Values(ps))
	if q.Name == e.wrong && len(a.Rows) > 0 {
		a.Rows[0].Values[0]++
	}
	return a, nil
}

func (e *evalQuerier) Close() error { return nil }

func writeInput(t *testing.T) (string, []query.TablePoint) {
	r := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	var pts []query.TablePoint
	for i := range 2 * 360 {
		for h := range 10 {
			ts := t0.Add(time.Duration(i) * 10 * time.Second)
			u, s := float64(r.IntN(10000))/100, float64(r.IntN(10000))/100
			fmt.Fprintf(&b, "cpu,hostname=host_%d,region=r usage_user=%g,usage_system=%g,usage_idle=1,usage_nice=2,usage_iowait=3,usage_irq=4,usage_softirq=5,usage_steal=6,usage_guest=7,usage_guest_nice=8 %d\n",
				h, u, s, ts.UnixNano())
			f := map[string]float64{"usage_user": u, "usage_system": s}
			for j, n := range []string{"usage_idle", "usage_nice", "usage_iowait", "usage_irq", "usage_softirq", "usage_steal", "usage_guest", "usage_guest_nice"} {
				f[n] = float64(j + 1)
			}
			pts = append(pts, query.TablePoint{Table: "cpu", Point: query.Point{Time: ts, Tags: map[string]string{"hostname": fmt.Sprintf("host_%d", h)}, Fields: f}})
		}
	}
	path := filepath.Join(t.TempDir(), "cpu.ilp")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, pts
}

func TestRun(t *testing.T) {
	path, pts := writeInput(t)
	set, err := Generate(genCfg())
	if err != nil {
		t.Fatal(err)
	}
	want, err := Expect(path, "", time.Nanosecond, set.Queries)
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range want {
		if len(a.Rows) == 0 {
			t.Errorf("query %d (%s) has no rows: the test checks nothing", i, set.Queries[i])
		}
	}
	newQ := func(qr *evalQuerier) func(context.Context, int) (load.Querier, error) {
		return func(context.Context, int) (load.Querier, error) { return qr, nil }
	}
	var log bytes.Buffer
	res, err := Run(context.Background(), Config{Set: set, NewQuerier: newQ(&evalQuerier{points: pts}), Workers: 3, Warmup: 2,
		Expected: want, Log: &log})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if res.All.Count != int64(len(set.Queries)-2) || res.All.Checked != res.All.Count || res.All.Wrong != 0 || len(res.Types) != 16 || !res.Checked {
		t.Errorf("%+v", res.All)
	}
	if !strings.Contains(log.String(), "double-groupby-all") {
		t.Errorf("log:\n%s", log.String())
	}

	// A wrong answer fails the run naming the query and the row.
	res, err = Run(context.Background(), Config{Set: set, NewQuerier: newQ(&evalQuerier{points: pts, wrong: "cpu-max-all-8", unsup: "lastpoint"}),
		Workers: 2, Rate: 1000, Expected: want})
	if !errors.Is(err, ErrWrong) || !strings.Contains(err.Error(), "cpu-max-all-8") || !strings.Contains(err.Error(), "row 0 is") {
		t.Errorf("wrong answers: %v", err)
	}
	if res == nil || res.All.Wrong != 3 || res.Types[15].Unsupported != 3 || res.Types[15].Name != "lastpoint" {
		t.Errorf("wrong answers: %+v", res)
	}

	// Unchecked: says so.
	res, err = Run(context.Background(), Config{Set: set, NewQuerier: newQ(&evalQuerier{points: pts, wrong: "lastpoint"}), Workers: 1})
	if err != nil || res.Checked || res.All.Checked != 0 || !strings.Contains(res.Note, "nothing") && !strings.Contains(res.Note, "no answer") {
		t.Errorf("unchecked: %v %+v", err, res)
	}
}

func ExampleGenerate() {
	set, _ := Generate(GenConfig{UseCase: "iot", Seed: 1, Scale: 10, Start: t0, End: t0.Add(24 * time.Hour), PerType: 1})
	for _, q := range set.Queries {
		fmt.Println(q)
	}
	// Output:
	// last-loc: last(latitude,longitude) from readings [2016-01-01T00:00:00Z, 2016-01-02T00:00:00Z) fleet in (West) by name
	// single-last-loc: last(latitude,longitude) from readings [2016-01-01T00:00:00Z, 2016-01-02T00:00:00Z) name in (truck_1) by name
	// low-fuel: last(fuel_state) from diagnostics [2016-01-01T00:00:00Z, 2016-01-02T00:00:00Z) fleet in (South) by name,driver having fuel_state < 0.1
	// high-load: last(current_load,load_capacity) from diagnostics [2016-01-01T00:00:00Z, 2016-01-02T00:00:00Z) fleet in (North) by name,driver having current_load/load_capacity > 0.9
	// stationary-trucks: avg(velocity) from readings [2016-01-01T16:40:08Z, 2016-01-01T16:50:08Z) fleet in (South) by name,driver having velocity < 1
	// long-driving-sessions: avg(velocity) from readings [2016-01-01T18:49:45Z, 2016-01-01T22:49:45Z) fleet in (West) by name,driver every 10m0s having velocity > 1 then count by name,driver having count > 22
	// long-daily-sessions: avg(velocity) from readings [2016-01-01T00:00:00Z, 2016-01-02T00:00:00Z) fleet in (North) by name,driver every 10m0s having velocity > 1 then count by name,driver having count > 60
	// avg-vs-projected-fuel-consumption: avg(fuel_consumption,nominal_fuel_consumption) from readings [2016-01-01T00:00:00Z, 2016-01-02T00:00:00Z) velocity > 1 by fleet
	// avg-daily-driving-duration: avg(velocity) from readings [2016-01-01T00:00:00Z, 2016-01-02T00:00:00Z) by fleet,name,driver every 10m0s having velocity > 1 then count by fleet,name,driver every 24h0m0s times 0.16666666666666666 then avg by fleet,name,driver
	// avg-daily-driving-session: avg(velocity) from readings [2016-01-01T00:00:00Z, 2016-01-02T00:00:00Z) by name every 10m0s then hours of runs of velocity > 1 then avg by name every 24h0m0s
	// avg-load: avg(current_load,load_capacity) from diagnostics [2016-01-01T00:00:00Z, 2016-01-02T00:00:00Z) by fleet,model,name then avg by fleet,model
	// daily-activity: avg(status) from diagnostics [2016-01-01T00:00:00Z, 2016-01-02T00:00:00Z) by fleet,model,name every 10m0s having status < 1 then count by fleet,model every 24h0m0s times 0.006944444444444444
	// breakdown-frequency: avg(status) from diagnostics [2016-01-01T00:00:00Z, 2016-01-02T00:00:00Z) by model,name every 10m0s then rises of status > 1 then count by model
}
