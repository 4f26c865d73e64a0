// Package contentq holds what the targets' content queries
// (load.ContentCounter) share: reading a database's exact integer sums into
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

var (
	two64     = new(big.Int).Lsh(big.NewInt(1), 64)
	minInt128 = new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 127))
	maxInt128 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 127), big.NewInt(1))
)

// ParseInt128 reads a decimal integer (a database's numeric or decimal sum
// rendered as text; a fraction of zeros is allowed) into an Int128.
func ParseInt128(s string) (fingerprint.Int128, error) {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '.'); i >= 0 {
		if strings.Trim(s[i+1:], "0") != "" {
			return fingerprint.Int128{}, fmt.Errorf("integer sum %q has a fraction", s)
		}
		s = s[:i]
	}
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return fingerprint.Int128{}, fmt.Errorf("integer sum %q is not a decimal integer", s)
	}
	return FromBig(v)
}

// FromBig converts v to an Int128, or fails when it does not fit.
func FromBig(v *big.Int) (fingerprint.Int128, error) {
	if v.Cmp(minInt128) < 0 || v.Cmp(maxInt128) > 0 {
		return fingerprint.Int128{}, fmt.Errorf("integer sum %s exceeds 128 bits", v)
	}
	// Two's complement: v mod 2^128, split in halves.
	u := new(big.Int).Set(v)
	if u.Sign() < 0 {
		u.Add(u, new(big.Int).Lsh(big.NewInt(1), 128))
	}
	lo := new(big.Int).And(u, new(big.Int).Sub(two64, big.NewInt(1))).Uint64()
	hi := new(big.Int).Rsh(u, 64).Uint64()
	return fingerprint.Int128{Hi: int64(hi), Lo: lo}, nil
}

// Big is the value of x.
func Big(x fingerprint.Int128) *big.Int {
	v := new(big.Int).Lsh(big.NewInt(x.Hi), 64)
	return v.Add(v, new(big.Int).SetUint64(x.Lo))
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
		x, _ := FromBig(v)
		return x
	}
	a, _ := new(big.Float).SetFloat64(approx).Int(nil)
	// k = round((approx - wrapped) / 2^64)
	d := new(big.Int).Sub(a, v)
	half := new(big.Int).Rsh(two64, 1)
	k := new(big.Int).Add(d, half)
	k.Div(k, two64) // Euclidean division floors for a positive divisor
	v.Add(v, k.Mul(k, two64))
	x, err := FromBig(v)
	if err != nil {
		x, _ = FromBig(big.NewInt(wrapped))
	}
	return x
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
