package format

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

func TestAppendFloat(t *testing.T) {
	vals := []float64{0, math.Copysign(0, -1), 1, -1, 0.01, 0.05, 0.0001, 0.00012, 0.00001, 99.99, 100, 123456.7,
		999999.99, 1e6, 1e21, 1.5e-7, 33.33, 5000, 2000, 90, -180, math.Nextafter(0.3, 1), math.Nextafter(99.99, 0), math.MaxFloat64,
		math.SmallestNonzeroFloat64, 1 << 40, 549755813888, 12.3456789}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200000; i++ {
		d := r.IntN(8)
		v := math.Round((r.Float64()*2-1)*math.Pow(10, float64(r.IntN(9)-3))*math.Pow(10, float64(d))) / math.Pow(10, float64(d))
		vals = append(vals, v, r.NormFloat64()*1000, r.Float64())
	}
	for _, v := range vals {
		want := strconv.AppendFloat(nil, v, 'g', -1, 64)
		if got := AppendFloat(nil, v); string(got) != string(want) {
			t.Fatalf("AppendFloat(%v) = %s, want %s", v, got, want)
		}
	}
}

func FuzzAppendFloat(f *testing.F) {
	f.Add(1.25)
	f.Add(0.0001)
	f.Add(-99.99)
	f.Fuzz(func(t *testing.T, v float64) {
		want := strconv.AppendFloat(nil, v, 'g', -1, 64)
		if got := AppendFloat(nil, v); string(got) != string(want) {
			t.Fatalf("AppendFloat(%v) = %s, want %s", v, got, want)
		}
	})
}

func BenchmarkAppendFloat(b *testing.B) {
	buf := make([]byte, 0, 64)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf = AppendFloat(buf[:0], float64(i%10000)/100)
	}
}

func BenchmarkStrconvFloat(b *testing.B) {
	buf := make([]byte, 0, 64)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf = strconv.AppendFloat(buf[:0], float64(i%10000)/100, 'g', -1, 64)
	}
}
