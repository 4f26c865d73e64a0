package split

import (
	"time"

	"github.com/tsload/tsload/pkg/fingerprint"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/format/ilp"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/schema"
)

// Deferred checks (Config.DeferChecks): the splitter cuts an unrouted ILP
// input at line ends and tells rows from comment and blank lines by their
// first bytes (so record and line numbers stay exact); a Checker, on the
// worker that writes the batch, then validates every line, counts metrics
// and rows per measurement, and drops what must not be sent, exactly as
// the splitter does when it checks.

// Checker validates and counts the batches of a splitter with
// Config.DeferChecks. The zero value is ready; one Checker serves one
// goroutine.
type Checker struct {
	// OnSkip, when set, is called with every line Check skips.
	OnSkip func(Skipped)
	// FP, when set, receives the content fingerprint of every row Check
	// passes (fingerprint.go): in the same pass for an Unchecked batch, in
	// a pass of its own for any other.
	FP *fingerprint.Acc
	// KeysOnly: FP is given each ILP row's series and timestamp, not its
	// fields (the runner's distinct-key pass).
	KeysOnly bool
	// ILPUnit is the unit of ILP timestamps (the input's precision; 0 or
	// 1: nanoseconds), for FP's time range.
	ILPUnit time.Duration
	// TimeColumn and TimeUnit are CSV's time column (empty: the first)
	// and the unit of its epoch numbers (0: times csv.ParseTime reads),
	// for FP: load.Mapping's.
	TimeColumn string
	TimeUnit   time.Duration
	// Loaded, when set, is a CSV batch's table as it is loaded: its
	// columns in the input's order, typed and tagged as they are written
	// (the runner's lines may type and tag them otherwise than the
	// splitter's first record said), for FP.
	Loaded func(*schema.Table) *schema.Table
	// NoValueSkipped: a CSV row without a field value is not loaded (it
	// is written as line protocol: NoValue), so FP does not count it.
	NoValueSkipped bool

	fp fpState

	names map[string]string
	buf   []byte // the copy of a zero-copy batch that loses bytes
}

// Check validates every line of an Unchecked batch (as the splitter does
// otherwise), sets its Metrics and Tables, drops the CR of CRLF line ends,
// and with skipInvalid drops malformed lines (Rows then counts only the
// valid ones). It returns the number of lines dropped as malformed, and a
// *MalformedError naming the input, record, line and byte offset of the
// first malformed line without skipInvalid. A batch that is not
// Unchecked is left alone.
func (c *Checker) Check(b *load.Batch, skipInvalid bool) (skipped int, err error) {
	if !b.Unchecked || b.Format != format.ILP {
		if c.FP != nil {
			c.fpBatch(b)
		}
		return 0, nil
	}
	if c.names == nil {
		c.names = make(map[string]string)
	}
	data := b.Data
	record, line, off := b.FirstRecord-1, b.FirstLine, b.Offset
	rows, metrics := 0, 0
	b.Tables = b.Tables[:0]
	w := 0         // write position: data[:w] is the batch's output
	shift := false // a line was dropped or shortened: lines move down
	borrowed := b.Hold != nil
	for p := 0; p < len(data); {
		// The common plain line is found and checked in one pass.
		r, i, fast := ilp.NextLine(data[p:])
		if i < 0 {
			i = len(data) - p // cannot happen: the splitter ends every line
		}
		raw := data[p : p+i]
		l := raw
		if n := len(l); n > 0 && l[n-1] == '\r' {
			l = l[:n-1]
		}
		if !fast {
			r = ilp.Scan(l)
		}
		keep := true
		switch {
		case r.Reason != "":
			record++
			if !skipInvalid {
				if ce := shrunkSource(b.Source); ce != nil {
					return skipped, ce
				}
				return skipped, &MalformedError{Source: b.Source, Record: record, Line: line, Offset: off, Reason: r.Reason}
			}
			skipped++
			keep = false
			if c.OnSkip != nil {
				c.OnSkip(Skipped{Source: b.Source, Record: record, Line: line, Offset: off, Raw: l, Reason: r.Reason})
			}
		case r.Row:
			record++
			rows++
			metrics += r.Fields
			countTable(c.names, b, l[:r.NameEnd])
			if c.FP != nil {
				c.fpLine(l, r, fast)
			}
		}
		if !keep || len(l) != len(raw) {
			shift = true
			if borrowed { // Data is not the batch's to write: work on a copy
				c.buf = append(c.buf[:0], data...)
				data, borrowed = c.buf, false
			}
		}
		if keep {
			if shift {
				w += copy(data[w:], l)
				data[w] = '\n'
				w++
			} else {
				w = p + i + 1
			}
		}
		line++
		off += int64(i + 1)
		p += i + 1
	}
	b.Data = data[:min(w, len(data))]
	b.Rows, b.Metrics = rows, metrics
	b.Unchecked = false
	return skipped, nil
}
