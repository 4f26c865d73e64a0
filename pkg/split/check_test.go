package split

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/format/ilp"
	"github.com/tsload/tsload/pkg/load"
)

// outcome is what a load sees of an input: the bytes sent, the counts, and
// the first error.
type outcome struct {
	data                  []byte
	rows, metrics, skiped int
	tables                map[string]int64
	batches               int
	err                   string
}

// splitChecked splits data with the splitter checking every line.
func splitChecked(data []byte, cfg Config) outcome {
	bs, _, sp, err := splitAll("d.ilp", data, cfg)
	o := outcome{tables: map[string]int64{}}
	for _, b := range bs {
		o.add(&b)
	}
	if sp != nil {
		o.skiped = int(sp.Skipped())
	}
	if err != nil {
		o.err = err.Error()
	}
	return o
}

// splitDeferred splits data with DeferChecks and checks the batches in
// order, as the runner's workers do, stopping at the first error.
func splitDeferred(t testing.TB, data []byte, cfg Config) outcome {
	cfg.DeferChecks = true
	bs, _, sp, err := splitAll("d.ilp", data, cfg)
	o := outcome{tables: map[string]int64{}}
	var c Checker
	for _, b := range bs {
		if b.Format == format.ILP && cfg.Parts <= 1 && !(cfg.SkipInvalid && cfg.Limit > 0) && !b.Unchecked {
			t.Fatalf("a deferred ILP batch is not marked unchecked")
		}
		n, cerr := c.Check(&b, cfg.SkipInvalid)
		o.skiped += n
		if cerr != nil {
			o.err = cerr.Error()
			return o
		}
		if b.Rows > 0 {
			o.add(&b)
		}
	}
	if sp != nil {
		o.skiped += int(sp.Skipped())
	}
	if err != nil {
		o.err = err.Error()
	}
	return o
}

func (o *outcome) add(b *load.Batch) {
	o.data = append(o.data, b.Data...)
	o.rows += b.Rows
	o.metrics += b.Metrics
	o.batches++
	for _, t := range b.Tables {
		o.tables[t.Name] += t.Rows
	}
}

// recordsOnly drops comment and blank lines: with malformed lines skipped,
// batches end at other lines, and a comment after a batch's last row is
// not sent (comments are not rows).
func recordsOnly(data []byte) []byte {
	var out []byte
	for _, l := range bytes.SplitAfter(data, []byte("\n")) {
		if ilp.IsRecord(bytes.TrimSuffix(l, []byte("\n"))) {
			out = append(out, l...)
		}
	}
	return out
}

func sameOutcome(t testing.TB, what string, skip bool, a, b outcome) {
	t.Helper()
	if skip && a.err != "" && a.err == b.err {
		// A fatal error with malformed lines skipped: the two paths cut
		// batches at different lines (the deferred splitter counts a
		// malformed line toward a batch's size until the checker skips
		// it), so different batches were handed out before the error.
		// The run fails the same way; each counts only what it handed out.
		return
	}
	if a.err != b.err || a.rows != b.rows || a.metrics != b.metrics || a.skiped != b.skiped ||
		fmt.Sprint(a.tables) != fmt.Sprint(b.tables) {
		t.Fatalf("%s:\nchecked:  rows %d metrics %d skipped %d tables %v err %q\ndeferred: rows %d metrics %d skipped %d tables %v err %q",
			what, a.rows, a.metrics, a.skiped, a.tables, a.err, b.rows, b.metrics, b.skiped, b.tables, b.err)
	}
	if a.err == "" && !bytes.Equal(a.data, b.data) && (!skip || !bytes.Equal(recordsOnly(a.data), recordsOnly(b.data))) {
		t.Fatalf("%s: data differs:\nchecked:  %q\ndeferred: %q", what, a.data, b.data)
	}
}

// TestDeferredChecks: with the checks left to the workers, a load sends
// the same bytes with the same counts, and fails with the same error
// (input, record, line and byte offset) as when the splitter checks.
func TestDeferredChecks(t *testing.T) {
	good := ilpLines(20)
	inputs := map[string][]byte{
		"plain":             good,
		"crlf":              bytes.ReplaceAll(good, []byte("\n"), []byte("\r\n")),
		"comments, blanks":  []byte("# head\n\n" + oneILPLine + "  \t\n# mid\n" + oneILPLine + "\r\n\r\n" + oneILPLine + "#tail\n"),
		"no final newline":  append(ilpLines(4), "m f=1 5"...),
		"bad line 7":        append(append(ilpLines(6), "cpu,host=a usage\n"...), ilpLines(6)...),
		"leading space":     append(append(ilpLines(2), " cpu f=1\n"...), ilpLines(2)...),
		"NUL in a tag":      append(append(ilpLines(9), "cpu,host=a\x00 f=1\n"...), ilpLines(9)...),
		"escapes, strings":  []byte("m\\ x,t=a\\,b f=\"a b\\\"c\" 1\nm2 g=1i\n" + oneILPLine),
		"bad after crlf":    []byte(oneILPLine[:len(oneILPLine)-1] + "\r\n" + oneILPLine + "bad\r\n" + oneILPLine),
		"last line CRs":     []byte(oneILPLine + "\r\r"), // a record of one CR: refused, not dropped
		"last line CR":      []byte(oneILPLine + "\r"),   // a blank line
		"last line sp CRs":  []byte(oneILPLine + " \r\r"),
		"long line":         append(ilpLines(3), bytes.Repeat([]byte("x"), 5000)...),
		"many measurements": []byte("a f=1\nb f=1\na f=2\nc,t=1 f=1,g=2\nb f=3\n"),
	}
	for name, data := range inputs {
		for _, bs := range []int{1, 3, 5000} {
			for _, skip := range []bool{false, true} {
				for _, limit := range []int64{0, 4} {
					cfg := Config{BatchSize: bs, SkipInvalid: skip, Limit: limit, MaxRecordBytes: 4096}
					what := fmt.Sprintf("%s, batch %d, skip %v, limit %d", name, bs, skip, limit)
					sameOutcome(t, what, skip, splitChecked(data, cfg), splitDeferred(t, data, cfg))
				}
			}
		}
	}
	// Batches are the same ones when nothing is skipped.
	cfg := Config{BatchSize: 3, MaxRecordBytes: 4096}
	a, b := splitChecked(inputs["comments, blanks"], cfg), splitDeferred(t, inputs["comments, blanks"], cfg)
	if a.batches != b.batches {
		t.Fatalf("%d batches, deferred %d", a.batches, b.batches)
	}
}

// FuzzDeferredChecks: the same on any input.
func FuzzDeferredChecks(f *testing.F) {
	f.Add([]byte(oneILPLine+"#c\n\n"+oneILPLine), uint8(2), false)
	f.Add([]byte("a f=1\r\n b f=1\nc\x00 f=1\n"), uint8(1), true)
	f.Add([]byte("m,t=\xff f=1 1\nm f=\"x\ny\" 2\n"), uint8(3), true)
	f.Fuzz(func(t *testing.T, data []byte, batch uint8, skip bool) {
		cfg := Config{Format: format.ILP, BatchSize: int(batch%8) + 1, SkipInvalid: skip, MaxRecordBytes: 256}
		sameOutcome(t, "fuzz", skip, splitChecked(data, cfg), splitDeferred(t, data, cfg))
	})
}
