package ilp

import (
	"bytes"
	"testing"
)

// fastPathCases are lines around the fast path's edges: each must give
// ScanCareful's result, taken or declined.
var fastPathCases = []struct {
	line string
	fast bool // the fast path takes it
}{
	{"cpu,hostname=host_0,region=eu-west-1 usage_user=2.26,usage_system=0.77,usage_idle=1i 1451606400000000000", true},
	{"cpu f=1", true},
	{"cpu f=1 1", true},
	{"cpu f=1 -1", true},
	{"cpu a=1,b=2,c=3 9223372036854775807", true},
	{"m,t=v a=1,b=2", true},
	{"m t=v,x=1 123", true},
	{"cpu,a=b,c=d,e=f,g=h x=1,y=2,z=3 1451606400000000000", true},
	{"cpu f=1 9223372036854775808", false}, // out of range: careful reports it
	{"cpu f=1 9223372036854775807", true},
	{"cpu f=1 -9223372036854775807", true},
	{"cpu f=1 -9223372036854775808", false},
	{"cpu f=1 8999999999999999999", true},
	{"cpu f=1 0000000000000000001", true},
	{"cpu f=1 00000000000000000000001", false}, // valid: leading zeros
	{"cpu f=1 99999999999999999999", false},
	{"cpu f=1 12345678/", false},
	{"cpu f=1 1234567:", false},
	{"cpu f=1 12345678901234:6", false},
	{"cpu f=1 -", false},
	{"cpu f=1 --1", false},
	{"cpu f=1 12x", false},
	{"cpu f=1 ", false}, // trailing space: valid, declined
	{"cpu f=1  1", false},
	{"cpu  f=1 1", false},
	{"cpu f=", false},
	{"cpu f=,g=1 1", false},
	{"cpu =1 1", false},
	{"cpu f=1,=2 1", false},
	{"cpu f=1, 1", false},
	{"cpu f=1,g 1", false},
	{"cpu f 1", false},
	{"cpu f", false},
	{"cpu", false},
	{"cpu,t=v", false},
	{"cpu,t f=1", false},
	{"cpu,t= f=1", false},
	{"cpu,=v f=1", false},
	{"cpu,,t=v f=1", false},
	{"cpu, f=1", false},
	{"cpu,t=v=w f=1", false}, // valid: '=' in a tag value
	{"cpu f=a=b 1", false},   // valid: '=' in a field value
	{"cpu,t==v f=1", false},
	{"c=pu f=1", false}, // valid: '=' in the measurement
	{"=cpu f=1", false},
	{",cpu f=1", false},
	{" cpu f=1", false},
	{"#cpu f=1", false},
	{"cpu f=1 1 2", false},
	{"cpu f=1 1,2", false},
	{"cpu f=1 1=2", false},
	{"cpu f=\"s\" 1", false},
	{"cpu\\ x f=1 1", false},
	{"cpu,t=a\tb f=1", false},
	{"cpu,t=\xc3\xa9 f=1", false},
	{"cpu,t=\xff f=1", false},
	{"cpu,t=a\x00 f=1", false},
	{"cpu,t=a\x7f f=1", true}, // DEL is neither a control byte here nor special
	{"cpu f=1\r", false},
	{"cpu,t=v f=1 1451606400000000000 ", false},
}

func TestScanILPFastPath(t *testing.T) {
	withAVX2(func(avx2 bool) { testScanILPFastPath(t) })
}

func testScanILPFastPath(t *testing.T) {
	type tc struct {
		line        string
		fast, check bool // check: the fast path must take it iff fast
	}
	var cases []tc
	for _, c := range fastPathCases {
		cases = append(cases, tc{c.line, c.fast, true})
		// again, with prefixes that move it across 32-byte blocks
		for _, n := range []int{20, 29, 31, 32, 33, 60, 64, 100, 127} {
			cases = append(cases, tc{string(bytes.Repeat([]byte("m"), n)) + c.line, c.fast, c.fast})
		}
	}
	for _, c := range cases {
		line := []byte(c.line)
		got, ok := ScanPlain(line)
		want := ScanCareful(line)
		if c.check && ok != c.fast {
			t.Errorf("%q: fast path took it: %v, want %v (careful: %+v)", c.line, ok, c.fast, want)
		}
		if ok && got != want {
			t.Errorf("%q: fast %+v, careful %+v", c.line, got, want)
		}
		if r := Scan(line); r != want {
			t.Errorf("%q: Scan %+v, careful %+v", c.line, r, want)
		}
		lineFastAgrees(t, line)
		lineAgrees(t, line)
	}
}

// TestScanILPFastPathShifted runs plain lines at every alignment and length
// around the 8-byte words, where the word-boundary carries matter.
func TestScanILPFastPathShifted(t *testing.T) {
	withAVX2(func(avx2 bool) { testScanILPFastPathShifted(t) })
}

func testScanILPFastPathShifted(t *testing.T) {
	for pad := 0; pad < 70; pad++ {
		m := bytes.Repeat([]byte("m"), pad+1)
		for _, tail := range []string{",t=v f=1 1", " f=1", " f=1,g=22 33", ",a=b,c=d e=f,g=h", ",a=b,c= e=f", ",a=b e=,g=h", ",a=b e=f,g 1", ",a=b e=f,,g=h"} {
			for _, vpad := range []int{0, 1, 7, 8, 9} {
				line := append(append([]byte(nil), m...), tail...)
				line = bytes.Replace(line, []byte("="), append([]byte("="), bytes.Repeat([]byte("v"), vpad)...), 1)
				got, ok := ScanPlain(line)
				want := ScanCareful(line)
				if ok && got != want {
					t.Errorf("%q: fast %+v, careful %+v", line, got, want)
				}
				if want.Reason == "" && !ok && !bytes.Contains(line, []byte(",,")) {
					t.Errorf("%q: valid plain line declined by the fast path", line)
				}
				lineFastAgrees(t, line)
				lineAgrees(t, line)
			}
		}
	}
}

// FuzzILPFastPath: on any line the fast path takes, it finds what the
// careful scanner finds; the one-pass line finder (NextLine) agrees.
func FuzzILPFastPath(f *testing.F) {
	for _, c := range fastPathCases {
		f.Add([]byte(c.line))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line = line[:i]
		}
		want := ScanCareful(line)
		withAVX2(func(avx2 bool) {
			if got, ok := ScanPlain(line); ok && got != want {
				t.Fatalf("%q (AVX2 %v): fast %+v, careful %+v", line, avx2, got, want)
			}
			if got := Scan(line); got != want {
				t.Fatalf("%q (AVX2 %v): Scan %+v, careful %+v", line, avx2, got, want)
			}
			lineFastAgrees(t, line)
			lineAgrees(t, line)
		})
	})
}

// lineAgrees checks NextLine on line followed by '\n' and more: it finds
// the '\n' and takes the line as ScanPlain does; without a '\n' it finds
// none.
func lineAgrees(t *testing.T, line []byte) {
	t.Helper()
	if bytes.IndexByte(line, '\n') >= 0 {
		return
	}
	want, wantOK := ScanPlain(line)
	buf := append(append([]byte(nil), line...), "\nm f=1 2\n"...)
	if r, n, ok := NextLine(buf); n != len(line) || ok != wantOK || (ok && r != want) {
		t.Errorf("%q: NextLine %+v, end %d, ok %v; ScanPlain %+v, ok %v", line, r, n, ok, want, wantOK)
	}
	if _, n, ok := NextLine(line); n != -1 || ok {
		t.Errorf("%q without a '\\n': NextLine end %d, ok %v", line, n, ok)
	}
}

// BenchmarkScanILPLineCareful is the per-line cost of the careful scanner
// (for comparison with BenchmarkScanILPLine, which takes the fast path).
func BenchmarkScanILPLineCareful(b *testing.B) {
	line := []byte("cpu,hostname=host_0,region=eu-west-1,datacenter=eu-west-1c,rack=22,os=Ubuntu15.10,arch=x86,team=LON,service=11,service_version=0,service_environment=staging usage_user=2.26,usage_system=0.77,usage_idle=0.54,usage_nice=0,usage_iowait=1.89,usage_irq=0.54,usage_softirq=0.74,usage_steal=0,usage_guest=0,usage_guest_nice=1.21 1451606400000000000")
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if r := ScanCareful(line); r.Fields != 10 {
			b.Fatal(r)
		}
	}
}

// BenchmarkScanILPLine is the per-line cost alone: zero allocations.
func BenchmarkScanILPLine(b *testing.B) {
	line := []byte("cpu,hostname=host_0,region=eu-west-1,datacenter=eu-west-1c,rack=22,os=Ubuntu15.10,arch=x86,team=LON,service=11,service_version=0,service_environment=staging usage_user=2.26,usage_system=0.77,usage_idle=0.54,usage_nice=0,usage_iowait=1.89,usage_irq=0.54,usage_softirq=0.74,usage_steal=0,usage_guest=0,usage_guest_nice=1.21 1451606400000000000")
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if r := Scan(line); r.Fields != 10 {
			b.Fatal(r)
		}
	}
}

// TestIsRecord: comment and blank lines (also with a CR, spaces or tabs
// before them) are not records; anything else is, valid or not.
func TestIsRecord(t *testing.T) {
	for line, want := range map[string]bool{
		"": false, "\r": false, "  \t": false, "# c": false, "  # c\r": false, "\t#": false,
		"cpu f=1": true, " cpu f=1": true, "x\r": true, "\rx": true, "=": true, "\x00": true,
	} {
		if got := IsRecord([]byte(line)); got != want {
			t.Errorf("IsRecord(%q) = %v, want %v", line, got, want)
		}
		if r := ScanCareful([]byte(bytes.TrimSuffix([]byte(line), []byte("\r")))); r.Row != want && r.Reason == "" {
			t.Errorf("%q: IsRecord %v, but the scan says row %v", line, want, r.Row)
		}
	}
}

// TestUnescape drops the backslash of each escape, keeping what it escapes.
func TestUnescape(t *testing.T) {
	for raw, want := range map[string]string{"cpu": "cpu", `a\ b`: "a b", `a\,b\\c`: `a,b\c`, `end\`: `end\`} {
		if got := Unescape([]byte(raw)); got != want {
			t.Errorf("Unescape(%q) = %q, want %q", raw, got, want)
		}
	}
}
