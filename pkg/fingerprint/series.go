package fingerprint

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// Hash is a fixed (unseeded) 64-bit hash of b, so that the same series
// hashes alike on every worker and in every run (the estimate of a large
// series count then does not depend on the process). It reads eight bytes
// at a time and ends with the splitmix64 finaliser; it is not meant to
// resist chosen inputs.
func Hash(b []byte) uint64 { return HashMore(0x9e3779b97f4a7c15, b) }

// HashMore continues a hash h with b, for keys hashed in parts.
func HashMore(h uint64, b []byte) uint64 {
	h ^= uint64(len(b)) * 0xff51afd7ed558ccd
	for len(b) >= 8 {
		h = mix(h ^ binary.LittleEndian.Uint64(b))
		b = b[8:]
	}
	if len(b) > 0 {
		var w uint64
		for i, c := range b {
			w |= uint64(c) << (8 * i)
		}
		h = mix(h ^ w)
	}
	return fmix(h)
}

// HashPair combines two hashes (a series and a timestamp) into one.
func HashPair(a, b uint64) uint64 { return fmix(mix(a^0x2545f4914f6cdd1d) ^ b) }

func mix(h uint64) uint64 {
	hi, lo := bits.Mul64(h, 0x9fb21c651e98df25)
	return hi ^ lo
}

func fmix(h uint64) uint64 {
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	return h ^ h>>31
}

// DefaultSeriesLimit is how many distinct series a table's fingerprint
// counts exactly (a set of 64-bit hashes, about 16 bytes a series per
// worker); beyond it the count is a HyperLogLog estimate.
const DefaultSeriesLimit = 1 << 17

// HyperLogLog with 2^hllP one-byte registers (16 KiB a table): the
// standard error of its estimate is 1.04/sqrt(2^14) = 0.81%.
const (
	hllP = 14
	hllM = 1 << hllP
)

// SeriesError is the relative error Compare allows between an estimated
// series count and another count: six standard errors of the estimator
// (a false failure about once in 10^9 comparisons).
const SeriesError = 6 * 1.04 / 128

// seriesSet counts distinct 64-bit hashes: exactly in a set up to limit,
// then in a HyperLogLog sketch (memory bounded by the limit).
type seriesSet struct {
	limit int
	exact map[uint64]struct{}
	hll   []uint8 // nil while exact
}

func newSeriesSet(limit int) *seriesSet {
	return &seriesSet{limit: limit, exact: make(map[uint64]struct{})}
}

func (s *seriesSet) add(h uint64) {
	if s.hll != nil {
		s.hllAdd(h)
		return
	}
	s.exact[h] = struct{}{}
	if len(s.exact) > s.limit {
		s.toHLL()
	}
}

func (s *seriesSet) toHLL() {
	s.hll = make([]uint8, hllM)
	for h := range s.exact {
		s.hllAdd(h)
	}
	s.exact = nil
}

func (s *seriesSet) hllAdd(h uint64) {
	i := h >> (64 - hllP)
	r := uint8(bits.LeadingZeros64(h<<hllP|1<<(hllP-1)) + 1)
	if r > s.hll[i] {
		s.hll[i] = r
	}
}

// merge adds o's series to s (a union: independent of order).
func (s *seriesSet) merge(o *seriesSet) {
	if o.hll == nil {
		for h := range o.exact {
			s.add(h)
		}
		return
	}
	if s.hll == nil {
		s.toHLL()
	}
	for i, r := range o.hll {
		if r > s.hll[i] {
			s.hll[i] = r
		}
	}
}

// count returns the number of series and whether it is exact.
func (s *seriesSet) count() (int64, bool) {
	if s.hll == nil {
		return int64(len(s.exact)), true
	}
	// The estimator of Flajolet et al. with the small-range correction
	// (linear counting while registers are empty).
	var sum float64
	zeros := 0
	for _, r := range s.hll {
		sum += math.Ldexp(1, -int(r))
		if r == 0 {
			zeros++
		}
	}
	m := float64(hllM)
	e := 0.7213 / (1 + 1.079/m) * m * m / sum
	if e <= 2.5*m && zeros > 0 {
		e = m * math.Log(m/float64(zeros))
	}
	return int64(math.Round(e)), false
}

// TagSet builds the canonical form of a series' tag set, whose Hash
// identifies the series: the unescaped pairs sorted by key, written
// key=value and joined by commas. A line-protocol series key without
// escapes whose keys are already sorted is that form as it stands, so a
// reader may hash it directly (Hash) and only build a TagSet otherwise.
// (A tag value holding ",k=" for another key k of the set could make two
// tag sets alike; generated data never does.)
type TagSet struct {
	pairs []tagPair
	buf   []byte
}

type tagPair struct{ k, v []byte }

// Reset empties the set, keeping its memory.
func (s *TagSet) Reset() { s.pairs = s.pairs[:0]; s.buf = s.buf[:0] }

// Add adds a tag (key and value are copied).
func (s *TagSet) Add(key, value []byte) {
	off := len(s.buf)
	s.buf = append(s.buf, key...)
	s.buf = append(s.buf, value...)
	s.pairs = append(s.pairs, tagPair{s.buf[off : off+len(key) : off+len(key)], s.buf[off+len(key):]})
}

// Hash returns the hash of the canonical form.
func (s *TagSet) Hash() uint64 {
	p := s.pairs
	for i := 1; i < len(p); i++ { // insertion sort: a handful of tags
		for j := i; j > 0 && string(p[j].k) < string(p[j-1].k); j-- {
			p[j], p[j-1] = p[j-1], p[j]
		}
	}
	n := len(s.buf)
	for i, t := range p {
		if i > 0 {
			s.buf = append(s.buf, ',')
		}
		s.buf = append(s.buf, t.k...)
		s.buf = append(s.buf, '=')
		s.buf = append(s.buf, t.v...)
	}
	h := Hash(s.buf[n:])
	s.buf = s.buf[:n]
	return h
}
