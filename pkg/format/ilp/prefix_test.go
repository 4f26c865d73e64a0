package ilp

import (
	"bytes"
	"strings"
	"testing"
)

func TestAppendPrefixed(t *testing.T) {
	in := "cpu,host=a v=1 1\n# a comment\n\n  \ncpu\\ x,host=b v=2 2\r\nmem v=3i 3\n"
	want := "t1_cpu,host=a v=1 1\n# a comment\n\n  \nt1_cpu\\ x,host=b v=2 2\r\nt1_mem v=3i 3\n"
	if got := string(AppendPrefixed([]byte("keep:"), []byte(in), "t1_")); got != "keep:"+want {
		t.Errorf("got %q\nwant %q", got, "keep:"+want)
	}
	if got := string(AppendPrefixed(nil, []byte(in), "")); got != in {
		t.Errorf("empty prefix changed the data: %q", got)
	}
	for _, bad := range []string{"a b", "a,b", `a\`, "a=b", "é", "a\"b", "a.b"} {
		if err := CheckTablePrefix(bad); err == nil {
			t.Errorf("prefix %q accepted", bad)
		}
	}
	if err := CheckTablePrefix("run-7_"); err != nil {
		t.Error(err)
	}
}

func BenchmarkAppendPrefixed(b *testing.B) {
	data := []byte(strings.Repeat("cpu,hostname=host_1,region=eu-west-1 usage_user=58.1,usage_system=2.3 1451606400000000000\n", 5000))
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	var dst []byte
	for b.Loop() {
		dst = AppendPrefixed(dst[:0], data, "run7_")
	}
	if !bytes.HasPrefix(dst, []byte("run7_cpu,")) {
		b.Fatal("not prefixed")
	}
}
