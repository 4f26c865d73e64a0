package query

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestCatalogValid(t *testing.T) {
	start := time.Date(2016, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, uc := range []string{"cpu-only", "devops", "iot"} {
		d := &Dataset{UseCase: uc, Scale: 10, TablePrefix: "p_"}
		for _, k := range Kinds(uc) {
			for _, end := range []time.Time{start.Add(time.Minute), start.Add(24 * time.Hour)} {
				q := k.Build(d, 7, start, end)
				if err := q.Validate(); err != nil {
					t.Errorf("%s: %v", k.Name, err)
				}
				if q.Name != k.Name || !strings.HasPrefix(q.Table, "p_") || q.Start.Before(start) || q.End != end || q.End.Sub(q.Start) > k.Span {
					t.Errorf("%s: %s", k.Name, q)
				}
				if q2 := k.Build(d, 7, start, end); q2.String() != q.String() {
					t.Errorf("%s: not deterministic: %s, then %s", k.Name, q, q2)
				}
			}
		}
	}
	if Kinds("weather") != nil {
		t.Error("weather has no queries")
	}
}

func TestParseMix(t *testing.T) {
	m, err := ParseMix(" lastpoint=3, high-cpu-1 ,double-groupby-1=0")
	if err != nil {
		t.Fatal(err)
	}
	if got := m.String(); got != "lastpoint=3,high-cpu-1=1,double-groupby-1=0" {
		t.Errorf("got %s", got)
	}
	kinds, w, err := m.Resolve("cpu-only")
	if err != nil || len(kinds) != 2 || kinds[0].Name != "lastpoint" || w[0] != 3 || w[1] != 1 {
		t.Errorf("resolve: %v %v %v", kinds, w, err)
	}
	if _, _, err := m.Resolve("iot"); err == nil || !strings.Contains(err.Error(), "lastpoint is not a query of iot") {
		t.Errorf("iot: %v", err)
	}
	for _, bad := range []string{"=1", "a=x", "a=-1", "a=1,a=2", "a=0", "a=99999999999"} {
		if _, err := ParseMix(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if m, err := ParseMix(""); err != nil || m != nil {
		t.Errorf("empty: %v %v", m, err)
	}
	all, _, err := Mix(nil).Resolve("iot")
	if err != nil || len(all) != 3 {
		t.Errorf("default iot mix: %v %v", all, err)
	}
}

func TestPick(t *testing.T) {
	n := [3]int{}
	for seq := uint64(0); seq < 4000; seq++ {
		n[Pick([]int{1, 0, 3}, seq)]++
	}
	if n[1] != 0 || n[0] < 800 || n[0] > 1200 {
		t.Errorf("picked %v of weights 1,0,3", n)
	}
}

func FuzzParseMix(f *testing.F) {
	for _, s := range []string{"lastpoint=3,high-cpu-1", "", "a=0,b=1", "=,=", "a==1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseMix(s)
		if err != nil {
			return
		}
		if m == nil {
			if strings.TrimSpace(s) != "" {
				t.Fatalf("%q: no mix and no error", s)
			}
			return
		}
		again, err := ParseMix(m.String())
		if err != nil || again.String() != m.String() {
			t.Fatalf("%q: %s reads back as %v (%v)", s, m, again, err)
		}
	})
}

func ExampleParseMix() {
	m, _ := ParseMix("lastpoint=3,high-cpu-1")
	kinds, weights, _ := m.Resolve("devops")
	for i, k := range kinds {
		fmt.Println(k.Name, weights[i])
	}
	// Output:
	// lastpoint 3
	// high-cpu-1 1
}
