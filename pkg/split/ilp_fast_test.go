package split

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/tsload/tsload/pkg/format"
)

// splitBothWays splits data cutting the buffered lines (cutBuffered) and
// reading each line on its own (ilpBulk off), and fails unless the
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
			{Format: format.ILP, BatchSize: 3, DeferChecks: true},
			{Format: format.ILP, DeferChecks: true, MaxRecordBytes: 4096},
		} {
			t.Run(fmt.Sprint(i), func(t *testing.T) { splitBothWays(t, []byte(in), cfg) })
		}
	}
}

// FuzzILPBulk: cutting the buffered lines gives what reading each line on
// its own gives, for any input.
func FuzzILPBulk(f *testing.F) {
	for _, in := range bulkInputs {
		f.Add([]byte(in), uint8(3), uint8(1))
	}
	f.Fuzz(func(t *testing.T, data []byte, batch, parts uint8) {
		cfg := Config{Format: format.ILP, BatchSize: int(batch%16) + 1, Parts: int(parts%4) + 1, MaxRecordBytes: 4096}
		splitBothWays(t, data, cfg)
		cfg.SkipInvalid = true
		splitBothWays(t, data, cfg)
		cfg.SkipInvalid, cfg.Parts, cfg.DeferChecks = false, 1, true
		splitBothWays(t, data, cfg)
	})
}
