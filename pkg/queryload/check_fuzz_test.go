package queryload

import (
	"bytes"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/query"
)

// FuzzCheckScan: the checks' fast line reader (lines without escapes or
// quotes) reads what the line-protocol decoder reads of any line the
// decoder takes: the same table, tags, fields and time.
func FuzzCheckScan(f *testing.F) {
	for _, l := range []string{
		"cpu,hostname=host_0,region=eu usage_user=58.1,usage_system=2i 1451606400000000000",
		"cpu,region=eu,hostname=host_1 usage_user=1e3,usage_idle=4u,usage_nice=t 1451606400000000000",
		"  cpu usage_user=-0.5   1",
		"cpu,hostname=a,hostname=b usage_user=1,usage_user=2 5",
		"# a comment",
		"readings,name=truck_1,fleet=East latitude=1,longitude=2 3\r",
		"cpu,hostname= usage_user=1 2",
		"other,hostname=x usage_user=1 2",
		"cpu,hostname=x usage_user=nan 2",
	} {
		f.Add([]byte(l))
	}
	s, _ := newCheckStore(query.Kinds("cpu-only"), &query.Dataset{UseCase: "cpu-only", Scale: 2}, time.Unix(0, 0), 1, false)
	f.Fuzz(func(t *testing.T, l []byte) {
		if bytes.ContainsAny(l, "\\\"\n") {
			return
		}
		dt, dns, derr := s.decode(l)
		var dv storeTable
		if dt != nil {
			dv = storeTable{tagVals: slices.Clone(dt.tagVals), hasTag: slices.Clone(dt.hasTag), vals: slices.Clone(dt.vals), has: slices.Clone(dt.has)}
		}
		st, sns, serr := s.scan(l, true)
		if derr != nil {
			return // not line protocol: the server would not have taken it
		}
		if serr != nil {
			t.Fatalf("%q: scan: %v; the decoder read it", l, serr)
		}
		if (st == nil) != (dt == nil) || st != nil && (sns != dns || !slices.Equal(st.tagVals, dv.tagVals) || !slices.Equal(st.hasTag, dv.hasTag) ||
			!slices.Equal(st.has, dv.has) || !slices.EqualFunc(st.vals, dv.vals, func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) })) {
			t.Fatalf("%q: scan %v %d, decoder %v %d", l, st, sns, dv, dns)
		}
	})
}
