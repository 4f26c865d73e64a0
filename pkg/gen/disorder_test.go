package gen

import (
	"bytes"
	"context"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/envinfo"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/usecase"
)

// allDisorder turns on every kind of disorder, with windows a few epochs
// long so that the small configs show them.
func allDisorder(cfg *Config) {
	iv := 10 * time.Second
	if cfg.UseCase == usecase.Weather {
		iv = time.Hour
	}
	cfg.Disorder = Disorder{OutOfOrder: 0.2, OutOfOrderWindow: 3 * iv, Late: 0.1, LateBy: 2 * iv, Repeat: 0.1, RepeatChanges: true}
}

// TestDisorderGolden pins the output with every disorder flag, per use case
// and format (the default output is pinned, unchanged, by TestGolden).
func TestDisorderGolden(t *testing.T) {
	for _, uc := range usecase.Names {
		for _, f := range formats {
			name := uc + ".disorder." + f.String()
			t.Run(name, func(t *testing.T) {
				cfg := small(uc, f)
				allDisorder(&cfg)
				got := generate(t, cfg)
				golden(t, name, got)
				if bytes.Equal(got, generate(t, small(uc, f))) {
					t.Fatal("the disorder flags changed nothing")
				}
			})
		}
	}
}

// TestDisorderDeterminism: with disorder, the bytes are the same for every
// worker count, and the shards hold the whole data set's rows, each series'
// rows in the same order.
func TestDisorderDeterminism(t *testing.T) {
	withGroupSize(t, 2)
	for _, uc := range usecase.Names {
		for _, f := range formats {
			t.Run(uc+"."+f.String(), func(t *testing.T) {
				cfg := small(uc, f)
				allDisorder(&cfg)
				cfg.Scale = 7
				cfg.Workers = 1
				one := generate(t, cfg)
				for _, w := range []int{2, 4} {
					cfg.Workers = w
					if got := generate(t, cfg); !bytes.Equal(one, got) {
						t.Fatalf("workers %d differ from workers 1", w)
					}
				}
				if f == format.PGCopy {
					return // the shards' rows are compared in ILP and CSV
				}
				var parts []string
				for i := 0; i < 3; i++ {
					cfg.Shard = Shard{i, 3}
					parts = append(parts, rowsOf(f, generate(t, cfg))...)
				}
				if f == format.CSV {
					whole := rowsOf(f, one)
					sort.Strings(whole)
					sort.Strings(parts)
					if strings.Join(whole, "\n") != strings.Join(parts, "\n") {
						t.Fatalf("shards (%d rows) != whole (%d rows)", len(parts), len(whole))
					}
					return
				}
				whole, shards := seriesOrder(rowsOf(f, one)), seriesOrder(parts)
				if len(whole) != len(shards) {
					t.Fatalf("%d series in the whole, %d in the shards", len(whole), len(shards))
				}
				for k, rows := range whole {
					if strings.Join(rows, "\n") != strings.Join(shards[k], "\n") {
						t.Fatalf("series %s: the shards' rows differ from the whole's", k)
					}
				}
			})
		}
	}
}

// seriesOrder groups ILP rows by series, in stream order.
func seriesOrder(rows []string) map[string][]string {
	m := map[string][]string{}
	for _, r := range rows {
		k, _ := keyOf(r)
		m[k] = append(m[k], r)
	}
	return m
}

// keyOf returns the series (measurement and tags) of an ILP row and its
// time.
func keyOf(row string) (string, int64) {
	sp := strings.IndexByte(row, ' ')
	n, _ := strconv.ParseInt(row[strings.LastIndexByte(row, ' ')+1:], 10, 64)
	return row[:sp], n
}

// seriesTime is a row's key: its series and time.
type seriesTime struct {
	key string
	ns  int64
}

func ilpPoints(t *testing.T, b []byte) []seriesTime {
	t.Helper()
	var ps []seriesTime
	for _, r := range rowsOf(format.ILP, b) {
		k, ns := keyOf(r)
		if ns == 0 {
			t.Fatalf("no time in %q", r)
		}
		ps = append(ps, seriesTime{k, ns})
	}
	return ps
}

// behind counts the rows whose time is before that of the row of their
// series written just before (prev) and before the latest time of their
// series written so far (latest), and returns the largest distance behind
// the latest.
func behind(ps []seriesTime) (prev, latest int, maxBack int64) {
	last := map[string]int64{}
	top := map[string]int64{}
	for _, p := range ps {
		if l, ok := last[p.key]; ok && p.ns < l {
			prev++
		}
		if m, ok := top[p.key]; ok && p.ns < m {
			latest++
			maxBack = max(maxBack, m-p.ns)
		}
		last[p.key] = p.ns
		top[p.key] = max(top[p.key], p.ns)
	}
	return
}

func disorderCfg(d Disorder) Config {
	return Config{UseCase: usecase.CPUOnly, Format: format.ILP, Seed: 7, Scale: 10, Workers: 2,
		Start: DefaultStart, End: DefaultStart.Add(12 * time.Hour), Disorder: d}
}

// TestOutOfOrderFraction: the fraction of rows behind their series' latest
// time and behind the row written before them is F within 0.01 (the
// standard error at 43200 rows is at most 0.0024), and none is further
// back than the window. The default writes none out of order.
func TestOutOfOrderFraction(t *testing.T) {
	for _, f := range []float64{0, 0.05, 0.3, 0.6} {
		cfg := disorderCfg(Disorder{OutOfOrder: f, OutOfOrderWindow: time.Hour})
		ps := ilpPoints(t, generate(t, cfg))
		prev, latest, back := behind(ps)
		n := float64(len(ps))
		t.Logf("F %v: %d rows, %.4f behind the previous row, %.4f behind the latest, at most %v back", f, len(ps), float64(prev)/n, float64(latest)/n, time.Duration(back))
		if len(ps) != 10*4320 {
			t.Errorf("F %v: %d rows, want %d", f, len(ps), 10*4320)
		}
		const tol = 0.01
		if math.Abs(float64(latest)/n-f) > tol || math.Abs(float64(prev)/n-f) > tol {
			t.Errorf("F %v: %.4f behind the latest, %.4f behind the previous row, want %v ± %v", f, float64(latest)/n, float64(prev)/n, f, tol)
		}
		if back > int64(time.Hour) {
			t.Errorf("F %v: a row %v behind, more than the window", f, time.Duration(back))
		}
	}
}

// TestLate: a late row is written after its series' first row on time at
// or after LateBy later (or at the end of the data), so it is at least
// LateBy behind the latest, and at most twice; most are exactly LateBy;
// the late rows are F of all within 0.01.
func TestLate(t *testing.T) {
	const f = 0.1
	by := time.Hour
	cfg := disorderCfg(Disorder{Late: f, LateBy: by})
	ps := ilpPoints(t, generate(t, cfg))
	end := cfg.End.Add(-DefaultInterval).UnixNano()
	top := map[string]int64{}
	late, exact := 0, 0
	for _, p := range ps {
		if m, ok := top[p.key]; ok && p.ns < m {
			late++
			d := m - p.ns
			if d == int64(by) {
				exact++
			}
			if (d < int64(by) || d > 2*int64(by)) && !(m == end && d < int64(by)) {
				t.Fatalf("a row of %s at %d is written %v after its time, want %v to %v", p.key, p.ns, time.Duration(d), by, 2*by)
			}
		}
		top[p.key] = max(top[p.key], p.ns)
	}
	t.Logf("%d rows, %d late, %d of them by exactly %v", len(ps), late, exact, by)
	if exact < late*8/10 {
		t.Errorf("%d of %d late rows late by exactly %v, want most", exact, late, by)
	}
	if r := float64(late) / float64(len(ps)); math.Abs(r-f) > 0.01 {
		t.Errorf("%.4f of the rows late, want %v ± 0.01", r, f)
	}
}

// TestRepeat: a repeated row follows its original at once, with the same
// series and time: the same line, or with RepeatChanges other values; F of
// the rows are repeated within 0.01.
func TestRepeat(t *testing.T) {
	const f = 0.1
	for _, changes := range []bool{false, true} {
		base := rowsOf(format.ILP, generate(t, disorderCfg(Disorder{})))
		got := rowsOf(format.ILP, generate(t, disorderCfg(Disorder{Repeat: f, RepeatChanges: changes})))
		seen := map[seriesTime]bool{}
		repeats := 0
		for i, r := range got {
			k, ns := keyOf(r)
			if !seen[seriesTime{k, ns}] {
				seen[seriesTime{k, ns}] = true
				continue
			}
			repeats++
			pk, pns := keyOf(got[i-1])
			if pk != k || pns != ns {
				t.Fatalf("changes %v: row %d repeats a key but not the row before it", changes, i)
			}
			if same := r == got[i-1]; same == changes {
				t.Fatalf("changes %v: row %d: %q after %q", changes, i, r, got[i-1])
			}
		}
		if len(got)-repeats != len(base) || len(seen) != len(base) {
			t.Fatalf("changes %v: %d rows, %d repeats, %d keys; want %d keys", changes, len(got), repeats, len(seen), len(base))
		}
		// without the repeats, the rows are the default's
		var firsts []string
		seen = map[seriesTime]bool{}
		for _, r := range got {
			k, ns := keyOf(r)
			if !seen[seriesTime{k, ns}] {
				seen[seriesTime{k, ns}] = true
				firsts = append(firsts, r)
			}
		}
		if strings.Join(firsts, "\n") != strings.Join(base, "\n") {
			t.Fatalf("changes %v: the first copies differ from the default output", changes)
		}
		if r := float64(repeats) / float64(len(base)); math.Abs(r-f) > 0.01 {
			t.Errorf("changes %v: %.4f of the rows repeated, want %v ± 0.01", changes, r, f)
		}
	}
}

// TestDisorderKeepsRows: out of order and late, the rows are the default's
// rows, in another order.
func TestDisorderKeepsRows(t *testing.T) {
	for _, uc := range usecase.Names {
		cfg := small(uc, format.ILP)
		want := rowsOf(format.ILP, generate(t, cfg))
		allDisorder(&cfg)
		cfg.Disorder.Repeat, cfg.Disorder.RepeatChanges = 0, false
		got := rowsOf(format.ILP, generate(t, cfg))
		if strings.Join(want, "\n") == strings.Join(got, "\n") {
			t.Errorf("%s: nothing moved", uc)
		}
		sort.Strings(want)
		sort.Strings(got)
		if strings.Join(want, "\n") != strings.Join(got, "\n") {
			t.Errorf("%s: the rows differ from the default's", uc)
		}
	}
}

func TestDisorderErrors(t *testing.T) {
	for _, c := range []struct {
		d    Disorder
		want string
	}{
		{Disorder{OutOfOrder: -0.1}, "--out-of-order -0.1: want a fraction"},
		{Disorder{Late: 1.5}, "--late 1.5: want a fraction"},
		{Disorder{Repeat: math.NaN()}, "--repeat NaN: want a fraction"},
		{Disorder{OutOfOrder: 0.6, Late: 0.5}, "add up to at most 1"},
		{Disorder{RepeatChanges: true}, "--repeat-changes needs --repeat"},
		{Disorder{OutOfOrder: 0.1, OutOfOrderWindow: time.Second}, "--out-of-order-window 1s: shorter than the interval (10s)"},
		{Disorder{Late: 0.1, LateBy: -time.Hour}, "--late-by -1h0m0s: must be positive"},
	} {
		cfg := small(usecase.CPUOnly, format.ILP)
		cfg.Disorder = c.d
		cfg.Stdout = &bytes.Buffer{}
		err := Run(context.Background(), cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.d, err, c.want)
		}
	}
}

// The dataset description records the disorder settings.
func TestDisorderDescribed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.ilp")
	cfg := small(usecase.CPUOnly, format.ILP)
	cfg.File = path
	cfg.Disorder = Disorder{OutOfOrder: 0.05, Late: 0.1, Repeat: 0.01, RepeatChanges: true}
	if _, err := Generate(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	d, err := envinfo.ReadDataset(path)
	if err != nil || d == nil {
		t.Fatalf("description: %+v, %v", d, err)
	}
	want := envinfo.Disorder{OutOfOrder: 0.05, OutOfOrderWindow: "1h0m0s", Late: 0.1, LateBy: "24h0m0s", Repeat: 0.01, RepeatChanges: true}
	if d.Disorder == nil || *d.Disorder != want {
		t.Errorf("disorder %+v, want %+v", d.Disorder, want)
	}
}
