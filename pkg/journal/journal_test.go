package journal

import (
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAddRangeCoalesces(t *testing.T) {
	const n = 200
	order := rand.New(rand.NewSource(1)).Perm(n)
	var rs []Range
	for i, k := range order {
		k := int64(k + 1)
		rs = AddRange(rs, k, (k-1)*10, k*10, 3)
		rs = AddRange(rs, k, (k-1)*10, k*10, 3) // twice: kept once
		for j := 1; j < len(rs); j++ {
			if rs[j-1].Batches[1]+1 >= rs[j].Batches[0] {
				t.Fatalf("after %d adds: ranges %v and %v touch or overlap", i+1, rs[j-1], rs[j])
			}
		}
		if _, ok := AckedIn(rs, k); !ok {
			t.Fatalf("batch %d added but not found", k)
		}
	}
	want := Range{Batches: [2]int64{1, n}, Bytes: [2]int64{0, n * 10}, Rows: 3 * n}
	if len(rs) != 1 || rs[0] != want {
		t.Fatalf("ranges %v, want [%v]", rs, want)
	}
	if _, ok := AckedIn(rs, n+1); ok {
		t.Fatal("batch past the range found")
	}
}

// TestReadRefuses: a journal of another version, or one a later run
// continued elsewhere, is refused, naming the file.
func TestReadRefuses(t *testing.T) {
	dir := t.TempDir()
	res := filepath.Join(dir, "r.json")
	if _, _, err := Read(res); err == nil || !strings.Contains(err.Error(), "no journal beside the results file") {
		t.Fatalf("missing: %v", err)
	}
	for body, want := range map[string]string{
		`{"version": 99}`: "journal version 99, this loader reads 1",
		`{"version": 1, "continued_in": "/elsewhere.journal"}`: "resume that one",
	} {
		if err := WriteAtomic(Path(res), []byte(body)); err != nil {
			t.Fatal(err)
		}
		if _, _, err := Read(res); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), Path(res)) {
			t.Errorf("%s: %v, want %q", body, err, want)
		}
	}
	if err := WriteAtomic(Path(res), []byte(`{"version": 1}`)); err != nil {
		t.Fatal(err)
	}
	j, jp, err := Read(res)
	if err != nil || jp != Path(res) || j.File() != jp {
		t.Fatalf("%v %q %q", err, jp, j.File())
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".r.json.journal-*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	_ = os.Remove(jp)
}
