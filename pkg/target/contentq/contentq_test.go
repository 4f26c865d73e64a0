package contentq

import (
	"math"
	"math/big"
	"testing"

	"github.com/tsload/tsload/pkg/fingerprint"
)

func TestParseInt128(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want fingerprint.Int128
		bad  bool
	}{
		{"0", fingerprint.Int128{}, false},
		{"-1", fingerprint.Int128{Hi: -1, Lo: math.MaxUint64}, false},
		{"18446744073709551609", fingerprint.Int128{Lo: math.MaxUint64 - 6}, false},
		{"-18446744073709551616", fingerprint.Int128{Hi: -1}, false},
		{"1.5", fingerprint.Int128{}, true},
		{"x", fingerprint.Int128{}, true},
		{"170141183460469231731687303715884105728", fingerprint.Int128{}, true}, // 2^127
	} {
		got, err := ParseInt128(tc.in)
		if (err != nil) != tc.bad || got != tc.want {
			t.Errorf("ParseInt128(%q) = %+v, %v; want %+v (error %v)", tc.in, got, err, tc.want, tc.bad)
		}
	}
}

// TestUnwrap: sums that wrapped around 64 bits, as InfluxQL and Flux
// return them, come back exact from the wrapped value and a float sum.
func TestUnwrap(t *testing.T) {
	for _, tc := range []struct{ values []int64 }{
		{[]int64{1, 2, 3}},
		{[]int64{math.MaxInt64, math.MaxInt64, -5}},
		{[]int64{math.MinInt64, math.MinInt64, math.MinInt64}},
		{[]int64{math.MaxInt64, 1}},
		{[]int64{-7}},
	} {
		var wrapped int64
		var approx float64
		exact := new(big.Int)
		for _, v := range tc.values {
			wrapped += v // wraps, as the databases do
			approx += float64(v)
			exact.Add(exact, big.NewInt(v))
		}
		if got := Unwrap(wrapped, approx).Big(); got.Cmp(exact) != 0 {
			t.Errorf("%v: Unwrap(%d, %g) = %s, want %s", tc.values, wrapped, approx, got, exact)
		}
	}
}

// TestHalves: the sum put together from the sums of the halves is the
// exact sum, at int64's extremes and across its overflow.
func TestHalves(t *testing.T) {
	for _, vs := range [][]int64{
		{math.MaxInt64, math.MaxInt64},
		{math.MinInt64, math.MinInt64, math.MinInt64},
		{math.MaxInt64, math.MinInt64, -1, 0, 1},
		{-5, 7, 1 << 40, -(1 << 33)},
		{},
	} {
		var hi, lo int64
		want := new(big.Int)
		for _, v := range vs {
			hi += v >> 32
			lo += v & 0xffffffff
			want.Add(want, big.NewInt(v))
		}
		if got := Halves(hi, lo); got.Big().Cmp(want) != 0 {
			t.Errorf("%v: %s, want %s", vs, got, want)
		}
	}
}
