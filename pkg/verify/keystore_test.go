package verify

import (
	"math/rand/v2"
	"testing"
)

// TestKeyStore: the distinct count of the bounded store, in memory and
// spilled to runs of any number, is a map's.
func TestKeyStore(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, limit := range []int{1 << 20, 1000, 64, 7} {
		s := NewKeyStore(limit)
		want := map[string]map[uint64]bool{"a": {}, "b": {}}
		for range 200 {
			bufs := map[string]*[]uint64{"a": new([]uint64), "b": new([]uint64)}
			for range rng.IntN(40) {
				tb := []string{"a", "b"}[rng.IntN(2)]
				v := rng.Uint64N(3000)
				*bufs[tb] = append(*bufs[tb], v)
				want[tb][v] = true
			}
			if err := s.AddAll(bufs); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.Distinct()
		s.Close()
		if err != nil || got["a"] != int64(len(want["a"])) || got["b"] != int64(len(want["b"])) {
			t.Fatalf("limit %d: got %v, %v; want a %d b %d", limit, got, err, len(want["a"]), len(want["b"]))
		}
		if s.peak > limit+40 || limit < 1000 && s.spilled == 0 {
			t.Fatalf("limit %d: peak %d spilled %d", limit, s.peak, s.spilled)
		}
	}
}
