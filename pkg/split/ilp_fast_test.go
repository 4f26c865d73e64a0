package split

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	"github.com/tsload/tsload/pkg/format"
)

// fastPathCases are lines around the fast path's edges: each must give
// scanILPCareful's result, taken or declined.
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
		got, ok := scanILPFast(line)
		want := scanILPCareful(line)
		if c.check && ok != c.fast {
			t.Errorf("%q: fast path took it: %v, want %v (careful: %+v)", c.line, ok, c.fast, want)
		}
		if ok && got != want {
			t.Errorf("%q: fast %+v, careful %+v", c.line, got, want)
		}
		if r := scanILP(line); r != want {
			t.Errorf("%q: scanILP %+v, careful %+v", c.line, r, want)
		}
		lineFastAgrees(t, line)
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
				got, ok := scanILPFast(line)
				want := scanILPCareful(line)
				if ok && got != want {
					t.Errorf("%q: fast %+v, careful %+v", line, got, want)
				}
				if want.reason == "" && !ok && !bytes.Contains(line, []byte(",,")) {
					t.Errorf("%q: valid plain line declined by the fast path", line)
				}
				lineFastAgrees(t, line)
			}
		}
	}
}

// FuzzILPFastPath: on any line the fast path takes, it finds what the
// careful scanner finds; the one-pass line finder (nextLineFast) agrees.
func FuzzILPFastPath(f *testing.F) {
	for _, c := range fastPathCases {
		f.Add([]byte(c.line))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line = line[:i]
		}
		want := scanILPCareful(line)
		withAVX2(func(avx2 bool) {
			if got, ok := scanILPFast(line); ok && got != want {
				t.Fatalf("%q (AVX2 %v): fast %+v, careful %+v", line, avx2, got, want)
			}
			if got := scanILP(line); got != want {
				t.Fatalf("%q (AVX2 %v): scanILP %+v, careful %+v", line, avx2, got, want)
			}
			lineFastAgrees(t, line)
		})
	})
}

// BenchmarkScanILPLineCareful is the per-line cost of the careful scanner
// (for comparison with BenchmarkScanILPLine, which takes the fast path).
func BenchmarkScanILPLineCareful(b *testing.B) {
	line := []byte("cpu,hostname=host_0,region=eu-west-1,datacenter=eu-west-1c,rack=22,os=Ubuntu15.10,arch=x86,team=LON,service=11,service_version=0,service_environment=staging usage_user=2.26,usage_system=0.77,usage_idle=0.54,usage_nice=0,usage_iowait=1.89,usage_irq=0.54,usage_softirq=0.74,usage_steal=0,usage_guest=0,usage_guest_nice=1.21 1451606400000000000")
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if r := scanILPCareful(line); r.fields != 10 {
			b.Fatal(r)
		}
	}
}

// splitBothWays splits data with bulkILP on and off and fails unless the
// batches, their parts, the counts and the error are identical.
func splitBothWays(t *testing.T, data []byte, cfg Config) {
	t.Helper()
	defer func() { ilpBulk = true }()
	ilpBulk = false
	want, wantParts, wantSp, wantErr := splitAll("d.ilp", data, cfg)
	ilpBulk = true
	got, gotParts, gotSp, gotErr := splitAll("d.ilp", data, cfg)
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Fatalf("error %v, line by line %v", gotErr, wantErr)
	}
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotParts, wantParts) {
		t.Fatalf("bulk batches differ:\n%+v %v\nline by line:\n%+v %v", got, gotParts, want, wantParts)
	}
	if gotSp != nil && (gotSp.Rows() != wantSp.Rows() || gotSp.Skipped() != wantSp.Skipped() || gotSp.Bytes() != wantSp.Bytes()) {
		t.Fatalf("counts %d/%d/%d, line by line %d/%d/%d", gotSp.Rows(), gotSp.Skipped(), gotSp.Bytes(), wantSp.Rows(), wantSp.Skipped(), wantSp.Bytes())
	}
}

var bulkInputs = []string{
	oneILPLine + oneILPLine + oneILPLine,
	"# c\n" + oneILPLine + "\n" + oneILPLine + "# mid\r\n" + oneILPLine,
	oneILPLine + "cpu,host=a f=\"s\" 1\n" + oneILPLine + "cpu\\ x f=1 2\r\n" + oneILPLine,
	oneILPLine + "cpu,host=a 1\n" + oneILPLine,
	oneILPLine + "m f=1 99999999999999999999\n" + oneILPLine,
	oneILPLine + oneILPLine + "m f=1 2", // last line without '\n'
}

func TestBulkILPEqualsLineByLine(t *testing.T) {
	long := string(ilpLines(3000))
	for i, in := range append(bulkInputs, long, long+"# end\n"+long) {
		for _, cfg := range []Config{
			{Format: format.ILP},
			{Format: format.ILP, BatchSize: 2},
			{Format: format.ILP, BatchSize: 7, Parts: 3},
			{Format: format.ILP, BatchSize: 4, SkipInvalid: true},
			{Format: format.ILP, BatchSize: 5, Limit: 11},
			{Format: format.ILP, BatchSize: 1000, MaxBatchBytes: 700},
			{Format: format.ILP, MaxRecordBytes: 4096}, // many buffer refills
		} {
			t.Run(fmt.Sprint(i), func(t *testing.T) { splitBothWays(t, []byte(in), cfg) })
		}
	}
}

// FuzzILPBulk: bulkILP cuts any input exactly as the line-by-line path.
func FuzzILPBulk(f *testing.F) {
	for _, in := range bulkInputs {
		f.Add([]byte(in), uint8(3), uint8(1))
	}
	f.Fuzz(func(t *testing.T, data []byte, batch, parts uint8) {
		cfg := Config{Format: format.ILP, BatchSize: int(batch%16) + 1, Parts: int(parts%4) + 1, MaxRecordBytes: 4096}
		splitBothWays(t, data, cfg)
		cfg.SkipInvalid = true
		splitBothWays(t, data, cfg)
	})
}
