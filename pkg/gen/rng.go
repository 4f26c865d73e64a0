package gen

import "math/rand/v2"

// Stream kinds: every random stream is keyed by (seed, kind, a, b) so that
// any series can be rebuilt from its index alone.
const (
	streamHost    = 1 // a host's tags (a = host index)
	streamSeries  = 2 // a devops/cpu series (a = table id, b = host index)
	streamTruck   = 3 // a truck's tags (a = truck index)
	streamIoT     = 4 // an iot series (a = table id, b = truck index)
	streamWeather = 5 // a location's weather (a = location id)
	// streamDisorder: a series' out-of-order, late and repeat decisions
	// (a = table id, b = entity index)
	streamDisorder = 6
)

// mix is the splitmix64 finaliser: a bijective 64-bit hash.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// seedPCG seeds p with the stream (seed, kind, a, b).
func seedPCG(p *rand.PCG, seed, kind, a, b uint64) {
	h := mix(mix(mix(mix(seed)^kind)^a) ^ b)
	p.Seed(h, mix(h^0x6a09e667f3bcc909))
}

// swapSource is a rand.Source whose underlying PCG the caller points at the
// series being advanced, so that one *rand.Rand serves many series without
// allocating.
type swapSource struct{ p *rand.PCG }

func (s *swapSource) Uint64() uint64 { return s.p.Uint64() }

// rng is a rand.Rand bound to a swapSource.
type rng struct {
	src swapSource
	*rand.Rand
}

func newRNG() *rng {
	r := &rng{}
	r.Rand = rand.New(&r.src)
	return r
}

// use points r at p.
func (r *rng) use(p *rand.PCG) { r.src.p = p }

// uniform returns a draw from U(lo, hi).
func (r *rng) uniform(lo, hi float64) float64 { return lo + (hi-lo)*r.Float64() }

// normal returns a draw from N(mean, sd).
func (r *rng) normal(mean, sd float64) float64 { return mean + sd*r.NormFloat64() }
