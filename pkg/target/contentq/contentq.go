// Package contentq holds what the targets' content queries
// (load.Target.Content) share: reading a database's exact integer sums into
// a fingerprint.Int128, recovering an exact sum from one that wrapped
// around 64 bits, the fingerprint of a table that does not exist, and the
// one query that the DataFusion-based databases (CnosDB, InfluxDB 3)
// answer (datafusion.go).
package contentq

import (
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/tsload/tsload/pkg/fingerprint"
)

var two64 = new(big.Int).Lsh(big.NewInt(1), 64)

// ParseInt128 reads a database's exact integer sum printed as a decimal
// (numeric or decimal rendered as text).
func ParseInt128(s string) (fingerprint.Int128, error) {
	x, ok := fingerprint.ParseInt128(strings.TrimSpace(s))
	if !ok {
		return x, fmt.Errorf("integer sum %q is not a decimal integer of at most 128 bits", s)
	}
	return x, nil
}

// Unwrap recovers an exact integer sum from a database that sums int64
// values in 64 bits and wraps around on overflow (InfluxQL's and Flux's
// sum): wrapped is the true sum modulo 2^64, and approx the same sum taken
// in floating point. The true sum is the value congruent to wrapped that is
// nearest approx, which is exact while approx is off by less than 2^63
// (a relative error of 2^-52 per value: any sum below about 10^34).
func Unwrap(wrapped int64, approx float64) fingerprint.Int128 {
	v := big.NewInt(wrapped)
	if math.IsNaN(approx) || math.IsInf(approx, 0) {
		return fingerprint.Int128FromInt64(wrapped)
	}
	a, _ := new(big.Float).SetFloat64(approx).Int(nil)
	// k = round((approx - wrapped) / 2^64)
	d := new(big.Int).Sub(a, v)
	half := new(big.Int).Rsh(two64, 1)
	k := new(big.Int).Add(d, half)
	k.Div(k, two64) // Euclidean division floors for a positive divisor
	v.Add(v, k.Mul(k, two64))
	x, ok := fingerprint.Int128FromBig(v)
	if !ok {
		return fingerprint.Int128FromInt64(wrapped)
	}
	return x
}

// Halves is the exact sum of int64 values from the sums of their halves,
// for a database whose integer sum is 64 bits wide and fails on overflow
// (SQLite): hi is the sum of the values shifted right by 32 bits
// (arithmetically) and lo the sum of their low 32 bits (v & 0xffffffff).
// Neither can overflow below 2^31 values, and hi*2^32 + lo is the sum.
func Halves(hi, lo int64) fingerprint.Int128 {
	return fingerprint.Int128{Hi: hi >> 32, Lo: uint64(hi) << 32}.AddInt64(lo)
}

// Each answers every query with one, keyed by table name. It stops at
// the first error and returns it with the tables answered before it.
func Each(qs []fingerprint.Query, one func(fingerprint.Query) (*fingerprint.Table, error)) (map[string]*fingerprint.Table, error) {
	out := make(map[string]*fingerprint.Table, len(qs))
	for _, q := range qs {
		fp, err := one(q)
		if err != nil {
			return out, err
		}
		out[q.Table] = fp
	}
	return out, nil
}

// Missing is the fingerprint of a table that is not in the database: no
// rows, and every field of q with no values.
func Missing(q fingerprint.Query) *fingerprint.Table {
	t := &fingerprint.Table{Name: q.Table, SeriesExact: true}
	for _, f := range q.Fields {
		t.Fields = append(t.Fields, fingerprint.Field{Name: f.Name, Kind: f.Kind})
	}
	return t
}

// NoTagSeries is the series count of a table none of whose tags is a
// column: all its rows are one series (the empty tag set), if it has any.
func NoTagSeries(rows int64) int64 {
	if rows > 0 {
		return 1
	}
	return 0
}

// Widen counts x in f's min and max, for a target that reads the values
// and aggregates them itself (Extremes: one was seen).
func Widen(f *fingerprint.Field, x float64) {
	if !f.Extremes || x < f.Min {
		f.Min = x
	}
	if !f.Extremes || x > f.Max {
		f.Max = x
	}
	f.Extremes = true
}

// WidenInt counts the integer v in f's min and max (IntMin, IntMax).
func WidenInt(f *fingerprint.Field, v fingerprint.Int128) {
	if !f.Extremes || v.Cmp(f.IntMin) < 0 {
		f.IntMin = v
	}
	if !f.Extremes || v.Cmp(f.IntMax) > 0 {
		f.IntMax = v
	}
	f.Extremes = true
}
