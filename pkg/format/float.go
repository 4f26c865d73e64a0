package format

import (
	"math"
	"strconv"
)

var pow10 = [...]float64{1, 10, 100, 1e3, 1e4, 1e5, 1e6}

// AppendFloat appends v exactly as strconv.AppendFloat(dst, v, 'g', -1, 64)
// does (Go's shortest round-trip form, which line-protocol's Encoder also
// writes), quickly when v is a decimal with at most 6 fractional digits and
// 1e-4 <= |v| < 1e6 (or +0): such a v is the double nearest to k/10^d for
// the smallest such d, so the shortest decimal that reads back as v is k/10^d
// written out, and 'g' writes it without an exponent in that range. Other
// values go to strconv.
func AppendFloat(dst []byte, v float64) []byte {
	if v == 0 && !math.Signbit(v) {
		return append(dst, '0')
	}
	if a := math.Abs(v); a >= 1e-4 && a < 1e6 {
		// Two decimals first: the generator's most common case. Any
		// integer k with k/100 == v will do; the conversion truncates
		// v*100 ± 0.5 (|v*100| < 1e8 fits) in one instruction.
		if k := int64(v*100 + math.Copysign(0.5, v)); float64(k)/100 == v {
			return appendCents(dst, k)
		}
		k := int64(math.Floor(v*1e6 + 0.5))
		d := 6
		for d > 0 && k%10 == 0 {
			k /= 10
			d--
		}
		if float64(k)/pow10[d] == v {
			return appendFixed(dst, k, d)
		}
	}
	return strconv.AppendFloat(dst, v, 'g', -1, 64)
}

const digitPairs = "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

var upow10 = [...]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

// appendCents appends k/100 (|k| < 1e8) in its shortest form: the
// integer part, then "." and one or two decimals unless they are zeros.
func appendCents(dst []byte, k int64) []byte {
	l := len(dst)
	if cap(dst)-l < 16 {
		dst = append(dst, make([]byte, 16)...)[:l]
	}
	b := dst[l : l+16]
	i := 0
	u := uint64(k)
	if k < 0 {
		b[0] = '-'
		i = 1
		u = uint64(-k)
	}
	ip, f := u/100, u%100
	switch {
	case ip < 10:
		b[i] = byte('0' + ip)
		i++
	case ip < 100:
		b[i], b[i+1] = digitPairs[ip*2], digitPairs[ip*2+1]
		i += 2
	default:
		z := zeros2(f)
		return appendFixed(dst, k/int64(upow10[z]), 2-z)
	}
	if f != 0 {
		b[i] = '.'
		if q := f / 10; q*10 == f {
			b[i+1] = byte('0' + q)
			i += 2
		} else {
			b[i+1], b[i+2] = digitPairs[f*2], digitPairs[f*2+1]
			i += 3
		}
	}
	return dst[:l+i]
}

// zeros2 is the number of trailing decimal zeros of the two decimals f.
func zeros2(f uint64) int {
	switch {
	case f == 0:
		return 2
	case f%10 == 0:
		return 1
	}
	return 0
}

// appendFixed appends k/10^d with d fractional digits (k's last digit is not
// a zero when d > 0), writing the digits in place, two at a time.
func appendFixed(dst []byte, k int64, d int) []byte {
	neg := k < 0
	u := uint64(k)
	if neg {
		u = uint64(-k)
	}
	n := 1 // digits of u
	for n < len(upow10) && u >= upow10[n] {
		n++
	}
	if n <= d {
		n = d + 1 // a leading "0."
	}
	total := n
	if d > 0 {
		total++
	}
	if neg {
		total++
	}
	l := len(dst)
	if cap(dst)-l < total {
		dst = append(dst, make([]byte, total)...)[:l]
	}
	dst = dst[:l+total]
	b := dst[l:]
	i := total
	j := d
	for ; j >= 2; j -= 2 {
		q := u / 100
		r := (u - q*100) * 2
		i -= 2
		b[i], b[i+1] = digitPairs[r], digitPairs[r+1]
		u = q
	}
	if j == 1 {
		q := u / 10
		i--
		b[i] = byte('0' + u - q*10)
		u = q
	}
	if d > 0 {
		i--
		b[i] = '.'
	}
	for u >= 100 {
		q := u / 100
		r := (u - q*100) * 2
		i -= 2
		b[i], b[i+1] = digitPairs[r], digitPairs[r+1]
		u = q
	}
	if u >= 10 {
		i -= 2
		b[i], b[i+1] = digitPairs[u*2], digitPairs[u*2+1]
	} else {
		i--
		b[i] = byte('0' + u)
	}
	if neg {
		b[0] = '-'
	}
	return dst
}
