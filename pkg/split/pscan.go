package split

import (
	"bytes"
	"math"
	"os"
	"runtime"
	"sync"

	"github.com/tsload/tsload/pkg/format/ilp"
	"github.com/tsload/tsload/pkg/load"
)

// Parallel scan of a mapped ILP file (deferred checks, one part): the
// mapping is cut into segments of whole lines, and one goroutine per core
// finds and checks the lines of a segment at a time, in one pass
// (ilp.NextLine), recording where each row ends, its fields and its
// measurement. The splitter then cuts batches from the segments in order
// without reading the bytes again: a batch is a slice of the mapping,
// already checked. This holds while lines are plain rows (ilp.ScanPlain's
// shape, LF endings, within the record limit); at the first other line (a
// comment, a blank or malformed line, a CRLF ending, a last line without
// '\n') the splitter goes on from that line's start with the read-ahead
// path, which handles everything, so every count, batch and error is what
// it would be without the parallel scan.

// pscanSegment is the nominal size of a segment (a variable for tests).
var pscanSegment = 8 << 20

// pageSize is the memory page size (the mapping's pages are dropped whole).
var pageSize = os.Getpagesize()

// pseg is one segment: the whole lines [start, end) of the mapping.
type pseg struct {
	start, end int
	// Rows found plain from start: ends[i] is the index after row i's
	// '\n' (from start), fields[i] the fields of rows 0..i, runs the
	// measurement of each run of rows. When not plain, the line after the
	// last row is one the read-ahead path must take.
	ends   []int32
	fields []int32
	runs   []nameRun
	plain  bool
	done   chan struct{}

	sc   *pscan
	loan // the splitter's (until it moves on) and its batches'; back drops its pages
}

// nameRun is a run of rows of one measurement, up to row end (exclusive).
type nameRun struct {
	name string
	end  int32
}

// giveBack drops g's pages from the process after its last Release.
func (g *pseg) giveBack() {
	// From the page g starts in to the one it ends in (that one is the
	// next segment's to drop): a page of a neighbour still in use is read
	// again from the page cache if it is needed.
	data := g.sc.data
	page := pageSize - 1
	lo, hi := g.start&^page, g.end&^page
	if g.end == len(data) {
		hi = g.end
	}
	g.sc.mm.drop(data[lo:hi])
	g.sc.mm.Release()
}

// pscan runs the scan: a producer cuts segments in order, scanners (one
// per CPU, GOMAXPROCS: scanning is CPU work, apart from the --workers that
// write) scan them, and the splitter takes them from order.
type pscan struct {
	mm        *mapping
	data      []byte
	maxRecord int
	from      int // the first byte scanned
	order     chan *pseg
	work      chan *pseg
	quit      chan struct{}
	stopOnce  sync.Once
	wg        sync.WaitGroup
}

// newPscan scans mm from offset from (past a byte-order mark).
func newPscan(mm *mapping, maxRecord, from int) *pscan {
	w := runtime.GOMAXPROCS(0)
	sc := &pscan{
		mm: mm, data: mm.data, maxRecord: maxRecord, from: from,
		order: make(chan *pseg, 2*w),
		work:  make(chan *pseg, 2*w),
		quit:  make(chan struct{}),
	}
	sc.wg.Add(1 + w)
	go sc.produce()
	for i := 0; i < w; i++ {
		go sc.scanner()
	}
	return sc
}

// stop ends the goroutines (after their current segment) and waits.
func (sc *pscan) stop() {
	sc.stopOnce.Do(func() { close(sc.quit) })
	sc.wg.Wait()
}

// close stops the scan and drops the segments scanned ahead.
func (sc *pscan) close() {
	sc.stop()
	for g := range sc.order {
		g.Release()
	}
}

// lineStart is the first line start at or after offset off (> 0), or
// the end of the mapping.
func (sc *pscan) lineStart(off int) int {
	if off <= 0 {
		return 0
	}
	if off >= len(sc.data) {
		return len(sc.data)
	}
	i, err := indexLF(sc.data[off-1:])
	if i < 0 || err != nil {
		return len(sc.data) // a fault: the segment's scan faults too, and is not taken
	}
	return off + i
}

// indexLF is bytes.IndexByte(b, '\n'), with the error of a fault.
func indexLF(b []byte) (i int, err error) {
	defer func() { err = faultError(recover(), err) }()
	return bytes.IndexByte(b, '\n'), nil
}

func (sc *pscan) produce() {
	WatchFaults() // lineStart on a truncated mapping (changed.go)
	defer sc.wg.Done()
	defer close(sc.work)
	defer close(sc.order)
	for start := sc.from; start < len(sc.data); {
		// A segment ends at the first line start a segment's size on
		// (the whole of a longer line is in it): each byte is looked at
		// by at most one search.
		end := sc.lineStart(start + pscanSegment)
		g := &pseg{start: start, end: end, done: make(chan struct{}), sc: sc}
		g.back = g.giveBack
		g.lend()
		sc.mm.hold()
		select {
		case sc.order <- g:
		case <-sc.quit:
			g.Release()
			return
		}
		sc.work <- g // never blocks for long: as many as order holds
		start = end
	}
}

func (sc *pscan) scanner() {
	WatchFaults() // a truncated mapping (changed.go)
	defer sc.wg.Done()
	names := map[string]string{}
	for g := range sc.work {
		select {
		case <-sc.quit:
		default:
			sc.scanSafe(g, names)
		}
		close(g.done)
	}
}

// scanSafe is scan; a fault (the file truncated) leaves g not plain, so
// the splitter reads its lines with the read-ahead, which reports it.
func (sc *pscan) scanSafe(g *pseg, names map[string]string) {
	defer func() {
		if faultError(recover(), nil) != nil {
			g.plain = false
		}
	}()
	sc.scan(g, names)
}

// scan finds the plain rows of g from its start.
func (sc *pscan) scan(g *pseg, names map[string]string) {
	data := sc.data
	n := 0
	if r := g.end - g.start; r > 0 {
		n = r/256 + 16 // rows expected, roughly
	}
	g.ends = make([]int32, 0, n)
	g.fields = make([]int32, 0, n)
	sum := int32(0)
	var last []byte // the current run's raw name
	for p := g.start; p < g.end; {
		// A line's '\n' is before g.end (segments end at line starts),
		// or it is the file's last line, without one.
		r, i, ok := ilp.NextLine(data[p:])
		if i < 0 {
			return // a last line without '\n'
		}
		if !ok || i+1 > sc.maxRecord || p+i+1-g.start > math.MaxInt32 {
			return
		}
		sum += int32(r.Fields)
		g.ends = append(g.ends, int32(p+i+1-g.start))
		g.fields = append(g.fields, sum)
		raw := data[p : p+r.NameEnd]
		if len(g.runs) == 0 || !bytes.Equal(raw, last) {
			name, ok := names[string(raw)]
			if !ok {
				name = string(raw) // plain: nothing escaped
				if len(names) < maxInterned {
					names[name] = name
				}
			}
			g.runs = append(g.runs, nameRun{name: name})
			last = raw
		}
		g.runs[len(g.runs)-1].end = int32(len(g.ends))
		p += i + 1
	}
	g.plain = true
}

// pscanState is the splitter's side: the segment being cut and the row
// of it to take next.
type pscanState struct {
	sc  *pscan
	cur *pseg
	row int
}

// startPscan starts the parallel scan of a mapped input from its first
// byte, when the splitter's deferred ILP path may use it.
func (s *Splitter) startPscan() {
	in := s.in
	if !s.ilp.deferred || in.ra == nil || in.ra.mm == nil || s.offset != int64(s.bom) {
		return
	}
	in.stopReadAhead()
	s.ps.sc = newPscan(in.ra.mm, s.cfg.MaxRecordBytes, s.bom)
	in.pscan = s.ps.sc
}

// cutScanned fills the ILP slot with one batch cut from the scanned
// segments, or, at the first line they do not take, stops the scan so that
// stepILP goes on from that line's start with the read-ahead.
func (s *Splitter) cutScanned() error {
	ps := &s.ps
	sl := s.slotFor(-1, 0)
	b := &sl.b
	want := s.cfg.BatchSize
	if s.cfg.Limit > 0 {
		want = int(min(int64(want), s.cfg.Limit-s.rows))
	}
	hold := &loans{}
	start, end := -1, 0 // the batch's bytes in the mapping
	metrics := 0
	b.Tables = b.Tables[:0]
	rows := 0
	stopped := false // the read-ahead path goes on from here
	for rows < want {
		g := ps.cur
		if g != nil && ps.row == len(g.ends) {
			if !g.plain {
				stopped = true
				break
			}
			g.Release()
			g, ps.cur, ps.row = nil, nil, 0
		}
		if g == nil {
			var ok bool
			if g, ok = <-ps.sc.order; !ok {
				stopped = true // the end of the mapping (the file may have grown)
				break
			}
			<-g.done
			ps.cur, ps.row = g, 0
			continue
		}
		if start < 0 {
			start = g.start + ps.rowStart()
		}
		// Rows of g, up to the batch's size and to the row that brings
		// it to MaxBatchBytes.
		from := ps.row
		to := min(len(g.ends), from+want-rows)
		for j := from; j < to; j++ {
			if g.start+int(g.ends[j])-start >= s.cfg.MaxBatchBytes {
				to = j + 1
				want = rows + to - from // the batch is full after this row
				break
			}
		}
		g.hold()
		*hold = append(*hold, &g.loan)
		before := int32(0)
		if from > 0 {
			before = g.fields[from-1]
		}
		metrics += int(g.fields[to-1] - before)
		countRuns(b, g.runs, from, to)
		rows += to - from
		ps.row = to
		end = g.start + int(g.ends[to-1])
	}
	if rows > 0 {
		b.Rows = rows
		b.FirstRecord, b.FirstLine, b.Offset = s.record+1, s.line+1, int64(start)
		s.record += int64(rows)
		s.line += int64(rows)
		s.rows += int64(rows)
		s.offset = int64(end)
	}
	if stopped {
		// The rows taken so far start the read-ahead path's batch, which
		// goes on as if there had been no parallel scan: the same
		// batches, comments inside them kept. They are copied and
		// checked again (Unchecked), once.
		if rows > 0 {
			b.Data = append(s.takeSpare(b.Data)[:0], s.in.ra.mm.data[start:end]...)
			b.Metrics, b.Tables, b.Unchecked = 0, b.Tables[:0], true
		}
		hold.Release()
		return s.pscanDone()
	}
	b.Data = s.in.ra.mm.data[start:end:end]
	b.Hold = hold
	b.Metrics, b.Unchecked = metrics, false
	s.in.ra.mapped.Store(int64(end))
	sl.ready = true
	s.ready = append(s.ready, sl)
	return nil
}

// rowStart is the index, from the current segment's start, of its next row.
func (ps *pscanState) rowStart() int {
	if ps.row == 0 {
		return 0
	}
	return int(ps.cur.ends[ps.row-1])
}

// countRuns adds the rows [from, to) of runs to b.Tables.
func countRuns(b *load.Batch, runs []nameRun, from, to int) {
	lo := 0
	for _, run := range runs {
		hi := int(run.end)
		if n := min(hi, to) - max(lo, from); n > 0 {
			addRows(b, run.name, int64(n))
		}
		lo = hi
		if lo >= to {
			break
		}
	}
}

// releasePscan stops the parallel scan, if running, and drops the
// splitter's hold (Splitter.Release).
func (s *Splitter) releasePscan() {
	ps := &s.ps
	if ps.sc == nil {
		return
	}
	if ps.cur != nil {
		ps.cur.Release()
		ps.cur = nil
	}
	ps.sc.close()
	ps.sc = nil
	s.in.pscan = nil
}

// pscanDone ends the parallel scan where the segments stop being plain
// (or at the mapping's end): the read-ahead path reads on from there.
func (s *Splitter) pscanDone() error {
	s.releasePscan()
	s.in.restartAt(int(s.offset))
	return nil
}
