package runner

import (
	"os"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/query"
)

// BenchmarkExpect: the expected answer of a check, read back from the
// input (one host's max per minute over the first hour of cpu-only scale
// 100, 3 h): bytes are the decompressed input's of that hour.
func BenchmarkExpect(b *testing.B) {
	for _, name := range []string{"cpu.ilp", "cpu.ilp.gz"} {
		b.Run(name, func(b *testing.B) {
			path, _ := generatedAs(b, name, "cpu-only", 100, 3*time.Hour)
			plain, _ := generatedAs(b, "plain.ilp", "cpu-only", 100, 3*time.Hour)
			ql := &queryLoad{path: path, input: checkInput{path: path}, unit: 1, ds: query.Dataset{UseCase: "cpu-only", Scale: 100}}
			ql.wm.reset()
			st, err := os.Stat(plain)
			if err != nil {
				b.Fatal(err)
			}
			// One batch per epoch of 100 rows of about 330 bytes.
			start := time.Date(2016, 1, 1, 0, 0, 0, 0, time.UTC)
			epochs := int64(3 * 360)
			for k := int64(0); k < epochs; k++ {
				ns := start.UnixNano() + k*int64(10*time.Second)
				ql.wm.add(k+1, -1, -1, ns, ns, true)
			}
			ql.wm.mu.Lock()
			ql.wm.index, ql.wm.end = nil, 1<<40 // byte offsets unknown here: read from the start
			ql.wm.mu.Unlock()
			k := query.Kinds("cpu-only")[1] // single-groupby-1-1-1
			q := k.Build(&ql.ds, 1, start, start.Add(time.Hour))
			b.SetBytes(st.Size() / 3)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := ql.expect(q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
