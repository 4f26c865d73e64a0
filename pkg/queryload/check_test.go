package queryload

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/lppoints"
	"github.com/tsload/tsload/pkg/query"
)

// TestStoreAnswers: the store's expected answer of every query type of
// cpu-only and iot (its NULLs and late rows) is query.Eval over the lines
// read, whatever the batches' sizes (a series' rows of one minute split
// across batches, the newest-row types' pending rows kept across them),
// for windows over the whole file, its last hour and one minute, with or
// without the visibility counts; nothing of a batch's buffer is kept.
func TestStoreAnswers(t *testing.T) {
	start := time.Date(2016, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, uc := range []string{"cpu-only", "iot"} {
		path, _ := generatedAs(t, uc+".ilp", uc, 5, 2*time.Hour)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		points := ilpPoints(t, data)
		ds := query.Dataset{UseCase: uc, Scale: 5}
		kinds := query.Kinds(uc)
		for _, batch := range []int{1, 7, 333, 5000} {
			for _, counts := range []bool{false, true} {
				s, notes := newCheckStore(kinds, &ds, start, 1, counts)
				if len(notes) > 0 {
					t.Fatalf("%s: %q", uc, notes)
				}
				var buf []byte
				for rest := data; len(rest) > 0; {
					n := 0
					for i := 0; i < batch && n < len(rest); i++ {
						n += bytes.IndexByte(rest[n:], '\n') + 1
					}
					// The writers reuse a batch's buffer: nothing of it is kept.
					buf = append(buf[:0], rest[:n]...)
					if _, _, _, err := s.add(buf); err != nil {
						t.Fatal(err)
					}
					for i := range buf {
						buf[i] = 'x'
					}
					rest = rest[n:]
				}
				end := start.Add(2 * time.Hour)
				for ki, k := range kinds {
					for seq, w := range [][2]time.Time{{start, end}, {end.Add(-time.Hour), end}, {start.Add(time.Hour), start.Add(time.Hour + time.Minute)}} {
						q := k.Build(&ds, uint64(seq), w[0], w[1])
						got, ok := s.answer(ki, q)
						if !ok {
							t.Fatalf("%s %s: no answer", uc, k.Name)
						}
						want := query.Eval(q, func(yield func(query.Point) bool) {
							for _, p := range points {
								if p.table == q.Table && !yield(p.Point) {
									return
								}
							}
						})
						if d := query.Diff(want, got, 1e-9); d != "" {
							t.Errorf("%s %s, batches of %d lines, counts %v, %s-%s: %s", uc, k.Name, batch, counts, w[0].Format(time.TimeOnly), w[1].Format(time.TimeOnly), d)
						}
					}
				}
			}
		}
	}
}

type tablePoint struct {
	table string
	query.Point
}

// ilpPoints is every line of data, decoded.
func ilpPoints(t *testing.T, data []byte) []tablePoint {
	t.Helper()
	var out []tablePoint
	if err := lppoints.Each(data, func(table string, p query.Point) bool {
		out = append(out, tablePoint{table, p})
		return true
	}); err != nil {
		t.Fatal(err)
	}
	return out
}
