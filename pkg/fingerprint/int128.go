package fingerprint

import (
	"math"
	"math/big"
	"math/bits"
)

// Int128FromInt64 is v as an Int128.
func Int128FromInt64(v int64) Int128 { return Int128{Hi: v >> 63, Lo: uint64(v)} }

// Int128FromUint64 is v as an Int128.
func Int128FromUint64(v uint64) Int128 { return Int128{Lo: v} }

// Add returns a+b (wrapping at 128 bits, which no file can reach: 2^64
// values of at most 2^64 each).
func (a Int128) Add(b Int128) Int128 {
	lo, carry := bits.Add64(a.Lo, b.Lo, 0)
	return Int128{Hi: a.Hi + b.Hi + int64(carry), Lo: lo}
}

// AddInt64 returns a+v.
func (a Int128) AddInt64(v int64) Int128 {
	lo, carry := bits.Add64(a.Lo, uint64(v), 0)
	return Int128{Hi: a.Hi + v>>63 + int64(carry), Lo: lo}
}

// AddUint64 returns a+v.
func (a Int128) AddUint64(v uint64) Int128 {
	lo, carry := bits.Add64(a.Lo, v, 0)
	return Int128{Hi: a.Hi + int64(carry), Lo: lo}
}

// Neg returns -a.
func (a Int128) Neg() Int128 {
	lo, borrow := bits.Sub64(0, a.Lo, 0)
	return Int128{Hi: -a.Hi - int64(borrow), Lo: lo}
}

// Sub returns a-b.
func (a Int128) Sub(b Int128) Int128 { return a.Add(b.Neg()) }

// Cmp returns -1, 0 or +1 as a is less than, equal to or greater than b.
func (a Int128) Cmp(b Int128) int {
	switch {
	case a.Hi < b.Hi:
		return -1
	case a.Hi > b.Hi:
		return 1
	case a.Lo < b.Lo:
		return -1
	case a.Lo > b.Lo:
		return 1
	}
	return 0
}

// Big returns a as a big.Int.
func (a Int128) Big() *big.Int {
	z := new(big.Int).SetInt64(a.Hi)
	z.Lsh(z, 64)
	return z.Or(z, new(big.Int).SetUint64(a.Lo))
}

var (
	minInt128 = new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 127))
	maxInt128 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 127), big.NewInt(1))
)

// Int128FromBig converts z; ok is false when z does not fit in 128 bits.
// Targets use it for a database's exact decimal sum (PostgreSQL numeric).
func Int128FromBig(z *big.Int) (v Int128, ok bool) {
	if z.Cmp(minInt128) < 0 || z.Cmp(maxInt128) > 0 {
		return Int128{}, false
	}
	neg := z.Sign() < 0
	m := new(big.Int).Abs(z)
	lo := new(big.Int).And(m, new(big.Int).SetUint64(math.MaxUint64)).Uint64()
	hi := new(big.Int).Rsh(m, 64).Uint64()
	v = Int128{Hi: int64(hi), Lo: lo}
	if neg {
		v = v.Neg()
	}
	return v, true
}

// ParseInt128 parses a decimal integer (an optional sign and digits), as a
// database prints a sum.
func ParseInt128(s string) (Int128, bool) {
	z, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return Int128{}, false
	}
	return Int128FromBig(z)
}

// Float64 returns a rounded to the nearest float64.
func (a Int128) Float64() float64 {
	if a.Hi == 0 {
		return float64(a.Lo)
	}
	if a.Hi == -1 && a.Lo != 0 {
		return -float64(-a.Lo)
	}
	f, _ := new(big.Float).SetInt(a.Big()).Float64()
	return f
}

// String returns a in decimal.
func (a Int128) String() string {
	if a.Hi == 0 {
		return big.NewInt(0).SetUint64(a.Lo).String()
	}
	return a.Big().String()
}
