package format

import (
	"encoding/binary"
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
	if l := len(dst); cap(dst)-l >= 16 {
		if n := PutCents((*[16]byte)(dst[l:l+16]), v); n > 0 {
			return dst[:l+n]
		}
	} else {
		var b [16]byte
		if n := PutCents(&b, v); n > 0 {
			return append(dst, b[:n]...)
		}
	}
	if a := math.Abs(v); a >= 1e-4 && a < 1e6 {
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

// PutCents writes into b what AppendFloat appends for v when v is +0 or
// k/100 for an integer k with 0 < |k| < 1e8 (values with at most two
// decimals, the generator's most common case), and returns its length; it
// returns 0, writing nothing meaningful, for any other v. Any integer k
// with k/100 == v will do: truncating v*100 +- 0.5 is one instruction.
func PutCents(b *[16]byte, v float64) int {
	k := int64(v*100 + math.Copysign(0.5, v))
	if float64(k)/100 != v || k == 0 || k <= -1e8 || k >= 1e8 {
		if v == 0 && !math.Signbit(v) {
			b[0] = '0'
			return 1
		}
		return 0
	}
	neg := k < 0
	u := uint64(k)
	if neg {
		u = uint64(-k)
	}
	ip, f := u/100, u%100
	if ip >= 100 {
		return putCentsLong(b, neg, ip, f)
	}
	// Up to 6 bytes ("-dd.dd"), gathered in a word stored at once (the
	// shifts are masked so that they compile to single instructions).
	var w uint64
	sh := uint(0)
	if neg {
		w, sh = '-', 8
	}
	if ip >= 10 {
		w |= uint64(pairs[ip]) << (sh & 63)
		sh += 16
	} else {
		w |= (ip + '0') << (sh & 63)
		sh += 8
	}
	if f != 0 {
		p := uint64(pairs[f])<<8 | '.'
		if p>>16 == '0' { // one decimal
			w |= (p & 0xffff) << (sh & 63)
			sh += 16
		} else {
			w |= p << (sh & 63)
			sh += 24
		}
	}
	binary.LittleEndian.PutUint64(b[:8], w)
	return int(sh / 8)
}

// putCentsLong is PutCents for an integer part ip >= 100.
func putCentsLong(b *[16]byte, neg bool, ip, f uint64) int {
	i := 0
	if neg {
		b[0] = '-'
		i = 1
	}
	n := 3
	for x := ip; x >= 1000; x /= 10 {
		n++
	}
	i += n
	for j := i; j > i-n; j-- {
		b[j-1] = byte('0' + ip%10)
		ip /= 10
	}
	if f != 0 {
		b[i] = '.'
		b[i+1] = byte('0' + f/10)
		i += 2
		if f%10 != 0 {
			b[i] = byte('0' + f%10)
			i++
		}
	}
	return i
}

// pairs holds the two ASCII digits of 0..99, the first in the low byte.
var pairs = func() (t [100]uint16) {
	for i := range t {
		t[i] = uint16('0'+i/10) | uint16('0'+i%10)<<8
	}
	return
}()

const digitPairs = "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

var upow10 = [...]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

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
