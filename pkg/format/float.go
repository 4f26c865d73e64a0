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
		// two decimals first: the generator's most common case
		if k2 := math.Round(v * 100); k2/100 == v {
			k, d := int64(k2), 2
			for d > 0 && k%10 == 0 {
				k /= 10
				d--
			}
			return appendFixed(dst, k, d)
		}
		k := int64(math.Round(v * 1e6))
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

// appendFixed appends k/10^d with d fractional digits (k's last digit is not
// a zero when d > 0), writing the digits in place.
func appendFixed(dst []byte, k int64, d int) []byte {
	neg := k < 0
	if neg {
		k = -k
	}
	digits := 1
	for p := int64(10); p <= k && digits < 19; p *= 10 {
		digits++
	}
	if digits <= d {
		digits = d + 1 // leading "0."
	}
	n := digits
	if d > 0 {
		n++
	}
	if neg {
		n++
	}
	l := len(dst)
	if cap(dst)-l < n {
		dst = append(dst, make([]byte, n)...)[:l]
	}
	dst = dst[:l+n]
	b := dst[l:]
	i := n
	for j := 0; j < d; j++ {
		i--
		b[i] = byte('0' + k%10)
		k /= 10
	}
	if d > 0 {
		i--
		b[i] = '.'
	}
	for i > 0 {
		i--
		b[i] = byte('0' + k%10)
		k /= 10
	}
	if neg {
		b[0] = '-'
	}
	return dst
}
