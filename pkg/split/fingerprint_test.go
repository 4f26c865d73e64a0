package split

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/influxdata/line-protocol/v2/lineprotocol"
	"github.com/klauspost/compress/zstd"

	"github.com/tsload/tsload/internal/gentest"
	"github.com/tsload/tsload/pkg/fingerprint"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/usecase"
)

// fingerprintOf reads in with cfg, hands the batches round-robin to
// workers Checkers with their own accumulators, as the runner's workers
// do, and merges them.
func fingerprintOf(t testing.TB, in *Input, cfg Config, workers int) map[string]*fingerprint.Read {
	t.Helper()
	if cfg.Lookup == nil {
		cfg.Lookup = usecase.LookupTable
	}
	sp, err := New(in, cfg)
	if err != nil {
		t.Fatal(err)
	}
	chk := make([]Checker, workers)
	for i := range chk {
		chk[i].FP = fingerprint.NewAcc(fingerprint.Options{})
	}
	var b load.Batch
	for n := 0; ; n++ {
		_, err := sp.Next(&b)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := chk[n%workers].Check(&b, false); err != nil {
			t.Fatal(err)
		}
		b.Release()
	}
	all := fingerprint.NewAcc(fingerprint.Options{})
	for i := range chk {
		all.Merge(chk[i].FP)
	}
	if f := all.Failed(); f != "" {
		t.Fatal(f)
	}
	return all.Result()
}

// sameFingerprint: b verifies against a, and the exact aggregates agree.
func sameFingerprint(t *testing.T, what string, a, b map[string]*fingerprint.Read) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%s: %d tables, want %d", what, len(b), len(a))
	}
	for n, x := range a {
		y := b[n]
		if y == nil {
			t.Fatalf("%s: no table %s", what, n)
		}
		if r := fingerprint.Compare(fingerprint.ExpectRead(x, false), &y.Table); !r.OK() {
			t.Fatalf("%s: %v", what, r.Mismatches)
		}
		for i, f := range x.Fields {
			g := y.Fields[i]
			if f.Count != g.Count || f.IntSum != g.IntSum || f.Len != g.Len || math.Abs(f.Sum-g.Sum) > 1e-9*f.AbsSum {
				t.Fatalf("%s: field %s %+v, want %+v", what, f.Name, g, f)
			}
		}
	}
}

func zstdOf(t *testing.T, data []byte) []byte {
	var out bytes.Buffer
	w, err := zstd.NewWriter(&out)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	w.Close()
	return out.Bytes()
}

// TestFingerprintIndependentOfReading: a file's fingerprint does not
// depend on the workers, the batch size, deferred checks, or how the
// input is read (mapped, streamed, gzip, zstd); and the three formats of
// the same generated rows agree.
func TestFingerprintIndependentOfReading(t *testing.T) {
	dir := t.TempDir()
	var ref map[string]*fingerprint.Read
	for _, f := range []format.Format{format.ILP, format.CSV, format.PGCopy} {
		data, rows := gentest.CPUHour(t, f)
		plain := filepath.Join(dir, "cpu."+f.String())
		os.WriteFile(plain, data, 0o644)
		gzPath, zsPath := plain+".gz", plain+".zst"
		os.WriteFile(gzPath, gz(data), 0o644)
		os.WriteFile(zsPath, zstdOf(t, data), 0o644)
		var first map[string]*fingerprint.Read
		for _, path := range []string{plain, "-", gzPath, zsPath} {
			for _, bs := range []int{7, 100, 5000} {
				for _, workers := range []int{1, 3} {
					for _, deferred := range []bool{false, true} {
						in, err := Open(path, bytes.NewReader(data), 0)
						if err != nil {
							t.Fatal(err)
						}
						got := fingerprintOf(t, in, Config{BatchSize: bs, DeferChecks: deferred}, workers)
						in.Close()
						if got["cpu"] == nil || got["cpu"].Rows != rows {
							t.Fatalf("%s %s: %+v, want %d rows", f, path, got["cpu"], rows)
						}
						if first == nil {
							first = got
							continue
						}
						sameFingerprint(t, f.String()+" "+path, first, got)
					}
				}
			}
		}
		if ref == nil {
			ref = first
			continue
		}
		sameFingerprint(t, f.String()+" against ILP", ref, first)
	}
}

// TestFingerprintMatchesLineProtocol: what the reader decodes is what
// influxdata's line-protocol decoder reads from the same lines.
func TestFingerprintMatchesLineProtocol(t *testing.T) {
	data, rows := gentest.CPUHour(t, format.ILP)
	in, _ := NewInput("cpu", bytes.NewReader(data), int64(len(data)), 0)
	got := fingerprintOf(t, in, Config{BatchSize: 50, DeferChecks: true}, 2)["cpu"]
	dec := lineprotocol.NewDecoderWithBytes(data)
	sums := map[string]float64{}
	counts := map[string]int64{}
	var n int64
	minT, maxT := int64(math.MaxInt64), int64(math.MinInt64)
	for dec.Next() {
		n++
		for {
			k, v, err := dec.NextField()
			if err != nil {
				t.Fatal(err)
			}
			if k == nil {
				break
			}
			counts[string(k)]++
			sums[string(k)] += v.FloatV()
		}
		ts, err := dec.Time(lineprotocol.Nanosecond, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		minT, maxT = min(minT, ts.UnixNano()), max(maxT, ts.UnixNano())
	}
	if n != rows || got.Rows != n || got.MinTime != minT || got.MaxTime != maxT || got.Series != 3 || !got.SeriesExact {
		t.Fatalf("read %+v; line protocol: %d rows, time %d..%d", got.Table, n, minT, maxT)
	}
	for _, f := range got.Fields {
		if f.Count != counts[f.Name] || math.Abs(f.Sum-sums[f.Name]) > fingerprint.FloatTolerance(f.Count, f.AbsSum, f.Sum, false) {
			t.Fatalf("field %s: %+v; line protocol: %d values, sum %v", f.Name, f, counts[f.Name], sums[f.Name])
		}
	}
	if len(got.Fields) != len(counts) {
		t.Fatalf("%d fields, line protocol %d", len(got.Fields), len(counts))
	}
}

// TestFingerprintTagsAnyOrder: the same series written with its tags in
// another order, or escaped, is one series.
func TestFingerprintTagsAnyOrder(t *testing.T) {
	data := []byte("m,a=1,b=2 x=1 10\nm,b=2,a=1 x=2 20\nm,a=1,b=3 x=3 30\nm\\ n,a=x\\ y x=1i,s=\"q\\\"r\" 5\n")
	in, _ := NewInput("t", bytes.NewReader(data), int64(len(data)), 0)
	got := fingerprintOf(t, in, Config{DeferChecks: true}, 1)
	m := got["m"]
	if m.Series != 2 || m.Rows != 3 || m.MinTime != 10 || m.MaxTime != 30 || m.Fields[0].Sum != 6 {
		t.Fatalf("%+v", m.Table)
	}
	e := got["m n"]
	if e == nil || e.Series != 1 || len(e.Fields) != 2 || e.Fields[0].Len != 3 || e.Fields[1].IntSum != fingerprint.Int128FromInt64(1) {
		t.Fatalf("%+v", got)
	}
}

// BenchmarkCheckFingerprint: a worker's check of deferred ILP batches
// (and the pass over checked batches of the other formats) without and
// with the content fingerprint: what --verify content adds per byte.
func BenchmarkCheckFingerprint(b *testing.B) {
	for _, f := range []format.Format{format.ILP, format.CSV, format.PGCopy} {
		name, data, _ := benchInput(b, f)
		in, _ := NewInput(name, bytes.NewReader(data), int64(len(data)), 0)
		sp, err := New(in, Config{BatchSize: 5000, DeferChecks: true, Lookup: usecase.LookupTable})
		if err != nil {
			b.Fatal(err)
		}
		var batches []load.Batch
		var bt load.Batch
		for {
			if _, err := sp.Next(&bt); err != nil {
				break
			}
			c := bt
			c.Data, c.Hold = append([]byte(nil), bt.Data...), nil
			batches = append(batches, c)
		}
		for _, fp := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/fingerprint=%v", f, fp), func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				var chk Checker
				if fp {
					chk.FP = fingerprint.NewAcc(fingerprint.Options{})
				}
				for i := 0; i < b.N; i++ {
					for j := range batches {
						bb := batches[j]
						if _, err := chk.Check(&bb, false); err != nil {
							b.Fatal(err)
						}
					}
				}
			})
		}
	}
}

// TestFingerprintWeatherFormatsAgree: weather (an int4 tag, float4
// fields) read from ILP, CSV and pgcopy is the same content, within the
// float4 tolerance (pgcopy carries the 32-bit values, ILP and CSV their
// decimal text).
func TestFingerprintWeatherFormatsAgree(t *testing.T) {
	dir := t.TempDir()
	var ref *fingerprint.Read
	for _, f := range []format.Format{format.ILP, format.CSV, format.PGCopy} {
		path, rows := gentest.GenFile(t, dir, "weather."+f.String(), usecase.Weather, f, 5, 2*time.Hour)
		in, err := Open(path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		got := fingerprintOf(t, in, Config{BatchSize: 333, DeferChecks: true}, 2)["weather"]
		in.Close()
		if got == nil || got.Rows != rows || got.Series != 5 || len(got.Tags) != 1 || got.Tags[0] != "location_id" {
			t.Fatalf("%s: %+v", f, got)
		}
		if ref == nil {
			ref = got
			continue
		}
		found := got.Table
		found.Fields = append([]fingerprint.Field(nil), found.Fields...)
		for i := range found.Fields {
			found.Fields[i].Float4 = true
		}
		if r := fingerprint.Compare(fingerprint.ExpectRead(ref, false), &found); !r.OK() {
			t.Fatalf("%s against ILP: %v", f, r.Mismatches)
		}
	}
}
