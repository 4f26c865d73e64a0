package sqlembed

import (
	"fmt"
	"testing"
)

// TestTexts: a text value is boxed once and shared, and the map stays
// within maxTexts however many distinct values go through it.
func TestTexts(t *testing.T) {
	var m texts
	a, b := m.value([]byte("host_1")), m.value([]byte("host_1"))
	if a != "host_1" || b != "host_1" {
		t.Fatalf("values %v, %v", a, b)
	}
	if n := testing.AllocsPerRun(100, func() { m.value([]byte("host_1")) }); n != 0 {
		t.Errorf("a value seen before: %v allocations, want 0", n)
	}
	for i := 0; i < 3*maxTexts; i++ {
		if v := m.value(fmt.Appendf(nil, "v%d", i)); v != fmt.Sprintf("v%d", i) {
			t.Fatalf("value %d is %v", i, v)
		}
		if len(m) > maxTexts {
			t.Fatalf("%d values held, more than %d", len(m), maxTexts)
		}
	}
}

// BenchmarkTexts is a tag's value of a cpu-only row, shared (texts) and
// copied and boxed per row as before.
func BenchmarkTexts(b *testing.B) {
	vals := make([][]byte, 1000)
	for i := range vals {
		vals[i] = fmt.Appendf(nil, "host_%d", i)
	}
	b.Run("shared", func(b *testing.B) {
		b.ReportAllocs()
		var m texts
		for i := 0; i < b.N; i++ {
			sink = m.value(vals[i%len(vals)])
		}
	})
	b.Run("copied", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			sink, _ = textValue(0, vals[i%len(vals)])
		}
	})
}

var sink any
