package split

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"sync"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"golang.org/x/sys/cpu"

	"github.com/tsload/tsload/pkg/format"
)

// Parallel decompression.
//
// A compressed input is cut into jobs of whole units (gzip members, zstd
// frames) that are decoded on several goroutines and handed on in order.
// Units are found from their headers:
//
//   - gzip: a member whose header carries its compressed size in an extra
//     subfield ("TL", 4 bytes little-endian, the whole member; written by
//     generate_data) or BGZF's "BC" (bgzip); otherwise the next position that
//     looks like a member header (1f 8b 08, no reserved flags).
//   - zstd: frames are walked through their block headers, which give each
//     block's compressed length, so a frame's end is exact.
//
// A job is accepted only when its decode is what a sequential decoder
// would produce: it must end exactly at a member boundary (a gzip member's
// CRC-32 and length checked by the decoder), so a false boundary (a size
// field that lies, header bytes that happen to occur inside deflate data)
// makes the job fail. A failed gzip job, a unit too large to hold in memory
// (maxJob compressed, maxOut decoded) or one whose end cannot be found
// (a single-member gzip from another tool, a zstd frame without its
// content size) switches the rest of the input to one sequential decoder,
// starting at that job's first byte: the output is the same, and the errors
// of damaged input are the sequential decoder's, with their byte offsets.
//
// The limits are variables so that tests can make them small.
var pdLimits = limits{
	minJob: 128 << 10, // compressed bytes a job gathers (whole units)
	maxJob: 8 << 20,   // largest unit (compressed) decoded in parallel
	maxOut: 32 << 20,  // largest job (decoded) held in memory
	read:   1 << 20,   // read size of the compressed input
}

// jobOut ends a job of members or frames that declare their sizes once it
// decodes to this many bytes.
const jobOut = 8 << 20

type limits struct{ minJob, maxJob, maxOut, read int }

// Gzip extra subfields that give a member's compressed size.
var (
	gzipSizeID = format.GzipSizeSubfield // 4 bytes LE: the whole member's size
	bgzfID     = [2]byte{'B', 'C'}       // 2 bytes LE: the whole member's size - 1
)

// codec is a compression format.
type codec int

const (
	codecNone codec = iota
	codecGzip
	codecZstd
)

func (c codec) String() string {
	switch c {
	case codecGzip:
		return "gzip"
	case codecZstd:
		return "zstd"
	}
	return "none"
}

// pjob is a run of whole units, or the producer's end (tail).
type pjob struct {
	start int64 // compressed offset of in[0]
	in    []byte
	hint  int // decoded size, when the headers declare it
	out   []byte
	err   error // the decode failed
	done  chan struct{}

	tail   bool  // the producer's end: in is what it did not cut
	srcErr error // after a tail's in: the source's error (io.EOF: none), nil: read on
	ferr   error // a framing error: the input is damaged here
}

// pdec decodes a compressed stream with parallel jobs; it is an io.Reader
// of the decompressed bytes, used by one goroutine.
type pdec struct {
	codec    codec
	source   string
	src      io.Reader
	decoders int // one per CPU (GOMAXPROCS): decompression is CPU work, apart from the --workers that write
	limits

	order  chan *pjob // jobs, in input order (bounded: memory)
	work   chan *pjob
	free   chan []byte // decoded-output buffers
	freeIn chan []byte // compressed-input buffers
	quit   chan struct{}
	stopO  sync.Once

	// Set by the producer before it closes order after quit.
	left      []byte
	leftStart int64
	leftErr   error

	hint int // the decoded size of the job cut last, when declared (producer)

	cur *pjob
	pos int
	seq io.Reader // the sequential decoder, after a fallback
	err error

	parallel int // jobs handed on (for tests)
}

func newPdec(c codec, source string, src io.Reader) *pdec {
	w := runtime.GOMAXPROCS(0)
	inflight := 2 * w
	d := &pdec{
		codec: c, source: source, src: src, decoders: w, limits: pdLimits,
		order:  make(chan *pjob, inflight),
		work:   make(chan *pjob, inflight+2),
		free:   make(chan []byte, inflight+2),
		freeIn: make(chan []byte, inflight+2),
		quit:   make(chan struct{}),
	}
	go d.produce()
	for i := 0; i < w; i++ {
		go d.decodeLoop()
	}
	return d
}

// stop ends the producer (and so the decoders).
func (d *pdec) stop() { d.stopO.Do(func() { close(d.quit) }) }

// getBuf returns a buffer with room for n bytes, from pool if it has one.
func getBuf(pool chan []byte, n int) []byte {
	select {
	case b := <-pool:
		if cap(b) >= n {
			return b[:0]
		}
	default:
	}
	return make([]byte, 0, n)
}

func putBuf(pool chan []byte, b []byte) {
	if b == nil {
		return
	}
	select {
	case pool <- b:
	default:
	}
}

// Read hands on the jobs' output in order.
func (d *pdec) Read(p []byte) (int, error) {
	for {
		if d.err != nil {
			return 0, d.err
		}
		if d.seq != nil {
			return d.seq.Read(p)
		}
		if d.cur != nil {
			if d.pos < len(d.cur.out) {
				n := copy(p, d.cur.out[d.pos:])
				d.pos += n
				return n, nil
			}
			putBuf(d.free, d.cur.out)
			putBuf(d.freeIn, d.cur.in)
			d.cur = nil
		}
		j, ok := <-d.order
		if !ok { // stopped (Input.Close)
			d.err = os.ErrClosed
			continue
		}
		if !j.tail {
			<-j.done
		}
		switch {
		case j.ferr != nil:
			d.err = j.ferr
			d.stop()
		case j.tail && len(j.in) == 0 && j.srcErr == io.EOF:
			d.err = io.EOF
		case j.tail:
			d.fallback(j)
		case j.err != nil && d.codec == codecZstd && !errors.Is(j.err, errJobTooBig):
			d.err = &CompressionError{Source: d.source, Codec: "zstd", Offset: j.start, Reason: "corrupt zstd frame: " + j.err.Error(), Err: j.err}
			d.stop()
		case j.err != nil:
			d.fallback(j)
		default:
			d.cur, d.pos = j, 0
			d.parallel++
		}
	}
}

// errReader returns err for ever.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// fallback continues with one sequential decoder from j's first byte: j's
// bytes, those of the jobs after it, the producer's uncut bytes, then the
// rest of the source.
func (d *pdec) fallback(j *pjob) {
	d.stop()
	parts := []io.Reader{bytes.NewReader(j.in)}
	end, ended := j.srcErr, j.tail
	if !ended {
		for k := range d.order {
			parts = append(parts, bytes.NewReader(k.in))
			if k.tail {
				end, ended = k.srcErr, true
			}
		}
		if !ended {
			parts = append(parts, bytes.NewReader(d.left))
			end = d.leftErr
		}
	}
	switch {
	case end == nil:
		parts = append(parts, d.src)
	case end != io.EOF:
		parts = append(parts, errReader{end})
	}
	d.seq = newSeqDecoder(d.codec, d.source, io.MultiReader(parts...), j.start)
	d.err = nil
}

// produce reads the source and cuts it into jobs.
func (d *pdec) produce() {
	defer close(d.work)
	defer close(d.order)
	var win []byte // read, not yet cut; win[0] is at offset base
	base := int64(0)
	var srcErr error
	send := func(j *pjob) bool {
		select {
		case d.order <- j:
			return true
		case <-d.quit:
			return false
		}
	}
	for {
		n, res, ferr := d.cut(win, srcErr != nil)
		switch res {
		case cutJob:
			j := &pjob{start: base, in: append(getBuf(d.freeIn, n), win[:n]...), hint: d.hint, done: make(chan struct{})}
			d.hint = 0
			if !send(j) {
				d.left, d.leftStart, d.leftErr = win, base, srcErr
				return
			}
			d.work <- j
			win, base = win[n:], base+int64(n)
			continue
		case cutEnd:
			if srcErr == io.EOF && len(win) == 0 {
				send(&pjob{tail: true, start: base, srcErr: io.EOF})
				return
			}
			fallthrough
		case cutSeq:
			if !send(&pjob{tail: true, start: base, in: win, srcErr: srcErr}) {
				d.left, d.leftStart, d.leftErr = win, base, srcErr
			}
			return
		case cutErr:
			var ce *CompressionError
			if errors.As(ferr, &ce) {
				ce.Offset += base // cut gives offsets in win
			}
			send(&pjob{tail: true, start: base, ferr: ferr})
			return
		}
		// cutMore: read on.
		select {
		case <-d.quit:
			d.left, d.leftStart, d.leftErr = win, base, srcErr
			return
		default:
		}
		if len(win)+d.read > cap(win) {
			nw := make([]byte, len(win), max(2*cap(win), len(win)+d.read))
			copy(nw, win)
			win = nw
		}
		m, err := io.ReadFull(d.src, win[len(win):len(win)+d.read])
		win = win[:len(win)+m]
		if err == io.ErrUnexpectedEOF {
			err = io.EOF
		}
		srcErr = err
	}
}

type cutResult int

const (
	cutMore cutResult = iota // read more first
	cutJob                   // a job of n bytes
	cutSeq                   // decode the rest sequentially
	cutEnd                   // no more input (eof): the rest, if any, sequentially
	cutErr                   // the input is damaged here
)

// cut decides what to do with the uncut bytes win (eof: nothing follows).
func (d *pdec) cut(win []byte, eof bool) (int, cutResult, error) {
	if len(win) == 0 {
		if eof {
			return 0, cutEnd, nil
		}
		return 0, cutMore, nil
	}
	if d.codec == codecZstd {
		return d.cutZstd(win, eof)
	}
	return d.cutGzip(win, eof)
}

func (d *pdec) cutGzip(win []byte, eof bool) (int, cutResult, error) {
	// Members that declare their size, gathered up to d.minJob (or
	// jobOut decoded bytes, from the members' ISIZE trailers).
	off, out := 0, 0
	for off < d.minJob && out < jobOut && off < len(win) {
		m := gzipDeclaredSize(win[off:])
		if m == 0 { // header not complete yet
			if !eof {
				return 0, cutMore, nil
			}
			break
		}
		if m < 0 || m > d.maxJob {
			break
		}
		if off+m > len(win) {
			if !eof {
				return 0, cutMore, nil
			}
			break
		}
		off += m
		out += int(binary.LittleEndian.Uint32(win[off-4:])) // ISIZE: a hint (decoding checks it)
	}
	if off > 0 {
		d.hint = min(out, d.maxOut)
		return off, cutJob, nil
	}
	if len(win) > d.maxJob+d.read {
		return 0, cutSeq, nil
	}
	// No declared size: up to the next likely member header.
	if c := nextGzipHeader(win, min(d.minJob, len(win))); c > 0 && c <= d.maxJob {
		return c, cutJob, nil
	}
	if eof {
		if len(win) <= d.maxJob {
			return len(win), cutJob, nil
		}
		return 0, cutSeq, nil
	}
	return 0, cutMore, nil
}

// gzipDeclaredSize returns the size a member header at b[0] declares, 0
// when b is too short to tell, -1 when it declares none.
func gzipDeclaredSize(b []byte) int {
	if len(b) < 12 {
		return 0
	}
	if b[0] != 0x1f || b[1] != 0x8b || b[2] != 8 || b[3]&4 == 0 {
		return -1
	}
	xlen := int(binary.LittleEndian.Uint16(b[10:]))
	if len(b) < 12+xlen {
		return 0
	}
	for x := b[12 : 12+xlen]; len(x) >= 4; {
		n := int(binary.LittleEndian.Uint16(x[2:]))
		if len(x) < 4+n {
			break
		}
		id, v := [2]byte{x[0], x[1]}, x[4:4+n]
		switch {
		case id == gzipSizeID && n == 4:
			if s := int(binary.LittleEndian.Uint32(v)); s >= 12+xlen+8 {
				return s
			}
			return -1
		case id == bgzfID && n == 2:
			if s := int(binary.LittleEndian.Uint16(v)) + 1; s >= 12+xlen+8 {
				return s
			}
			return -1
		}
		x = x[4+n:]
	}
	return -1
}

var gzipHead = []byte{0x1f, 0x8b, 8}

// nextGzipHeader returns the first index >= from where a member header
// seems to start (magic, deflate, no reserved flag bits, a known XFL), or -1.
func nextGzipHeader(b []byte, from int) int {
	for i := from; i+10 <= len(b); {
		k := bytes.Index(b[i:len(b)-7], gzipHead)
		if k < 0 {
			return -1
		}
		i += k
		if b[i+3]&0xe0 == 0 && (b[i+8] == 0 || b[i+8] == 2 || b[i+8] == 4) {
			return i
		}
		i++
	}
	return -1
}

// zstd frame magic numbers.
const (
	zstdMagic     = format.ZstdMagic
	zstdSkipMagic = 0x184D2A50 // the low 4 bits are free
)

var (
	errZstdTruncated = errors.New("truncated zstd frame (unexpected end of file)")
	errZstdMagic     = errors.New("invalid zstd frame magic (garbage after a zstd frame?)")
	errZstdReserved  = errors.New("corrupt zstd frame (reserved bit or block type)")
)

func (d *pdec) cutZstd(win []byte, eof bool) (int, cutResult, error) {
	off := 0
	out := uint64(0)
	for off < d.minJob && out < jobOut && off < len(win) {
		size, content, err := zstdFrameSize(win[off:])
		switch {
		case err == errMore:
			if !eof && len(win)-off <= d.maxJob {
				return 0, cutMore, nil
			}
			if !eof && off == 0 {
				return 0, cutSeq, nil // a frame too large to hold
			}
			if off == 0 {
				return 0, cutErr, &CompressionError{Source: d.source, Codec: "zstd", Offset: int64(len(win)), Reason: errZstdTruncated.Error(), Err: io.ErrUnexpectedEOF}
			}
		case err != nil:
			if off == 0 {
				return 0, cutErr, &CompressionError{Source: d.source, Codec: "zstd", Offset: int64(off), Reason: err.Error(), Err: err}
			}
		case content < 0 || size > d.maxJob || uint64(content) > uint64(d.maxOut) || out+uint64(content) > uint64(d.maxOut):
			if off == 0 {
				return 0, cutSeq, nil
			}
		default:
			off += size
			out += uint64(content)
			continue
		}
		break
	}
	d.hint = int(out)
	return off, cutJob, nil
}

var errMore = errors.New("more input needed")

// zstdFrameSize walks the frame (or skippable frame) at b[0] and returns
// its size and its declared decoded size (-1: not declared). errMore: b
// ends inside the frame. A frame whose window is over zstdMaxWindow is a
// *ZstdWindowError.
func zstdFrameSize(b []byte) (size int, content int64, err error) {
	pos, content, err := zstdHeader(b)
	if err != nil || content == zstdSkippable {
		return pos, 0, err
	}
	for {
		if len(b) < pos+3 {
			return 0, 0, errMore
		}
		n, last, err := zstdBlock(b[pos:])
		if err != nil {
			return 0, 0, err
		}
		pos += n
		if pos > len(b) {
			return 0, 0, errMore
		}
		if last {
			break
		}
	}
	if b[4]&4 != 0 { // content checksum
		pos += 4
		if pos > len(b) {
			return 0, 0, errMore
		}
	}
	return pos, content, nil
}

// zstdSkippable is zstdHeader's content for a skippable frame, whose
// returned size is the whole frame.
const zstdSkippable = -2

// zstdHeader reads the frame header at b[0] (RFC 8878 3.1.1.1) and returns
// its length and the declared content size (-1: not declared). A skippable
// frame returns its whole size and zstdSkippable. errMore: b ends inside
// the header.
func zstdHeader(b []byte) (n int, content int64, err error) {
	if len(b) < 4 {
		return 0, 0, errMore
	}
	magic := binary.LittleEndian.Uint32(b)
	if magic&^0xf == zstdSkipMagic {
		if len(b) < 8 {
			return 0, 0, errMore
		}
		n := 8 + int(binary.LittleEndian.Uint32(b[4:]))
		if n > len(b) {
			return n, zstdSkippable, errMore
		}
		return n, zstdSkippable, nil
	}
	if magic != zstdMagic {
		return 0, 0, errZstdMagic
	}
	if len(b) < 5 {
		return 0, 0, errMore
	}
	fhd := b[4]
	if fhd&8 != 0 {
		return 0, 0, errZstdReserved
	}
	single := fhd&0x20 != 0
	pos := 5
	if !single {
		pos++ // window descriptor
	}
	pos += [4]int{0, 1, 2, 4}[fhd&3] // dictionary id
	fcsSize := [4]int{0, 2, 4, 8}[fhd>>6]
	if fhd>>6 == 0 && single {
		fcsSize = 1
	}
	if len(b) < pos+fcsSize {
		return 0, 0, errMore
	}
	content = -1
	switch fcsSize {
	case 1:
		content = int64(b[pos])
	case 2:
		content = int64(binary.LittleEndian.Uint16(b[pos:])) + 256
	case 4:
		content = int64(binary.LittleEndian.Uint32(b[pos:]))
	case 8:
		if v := binary.LittleEndian.Uint64(b[pos:]); v < 1<<62 {
			content = int64(v)
		}
	}
	// The window a decoder must keep: the descriptor's, or for a single
	// segment the whole content (as libzstd reckons it).
	var window uint64
	switch {
	case single && content < 0:
		window = math.MaxUint64
	case single:
		window = uint64(content)
	default:
		exp, mant := uint64(b[5]>>3), uint64(b[5]&7)
		base := uint64(1) << (10 + exp)
		window = base + base/8*mant
	}
	if window > zstdMaxWindow {
		return 0, 0, &ZstdWindowError{Window: window, Limit: zstdMaxWindow}
	}
	return pos + fcsSize, content, nil
}

// zstdBlock reads the block header at b[0] (3 bytes) and returns the
// block's whole size and whether it is the frame's last.
func zstdBlock(b []byte) (n int, last bool, err error) {
	h := int(b[0]) | int(b[1])<<8 | int(b[2])<<16
	switch (h >> 1) & 3 {
	case 0, 2: // raw, compressed
		return 3 + h>>3, h&1 != 0, nil
	case 1: // RLE: one byte
		return 4, h&1 != 0, nil
	}
	return 0, false, errZstdReserved
}

// ZstdWindowError is a zstd frame whose window (the history a decoder must
// keep) is over the limit that `zstd -d` applies by default.
type ZstdWindowError struct {
	Window, Limit uint64 // bytes
}

func (e *ZstdWindowError) Error() string {
	return fmt.Sprintf("zstd frame window of %s is over the %s limit (the default of zstd -d; zstd --long=27 writes 128 MiB)", mib(e.Window), mib(e.Limit))
}

func mib(n uint64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// zstdWalker passes a zstd stream through while it walks the frames'
// headers, so that a frame over the window limit is refused at its own
// offset before the decoder allocates its window. Bytes it cannot frame
// are passed on for the decoder to refuse.
type zstdWalker struct {
	r    io.Reader
	off  int64 // offset of the next byte read, from the walker's start
	skip int64 // bytes of a block or skippable frame still to pass
	hdr  []byte
	// state: walking frame headers (0), block headers (1), done (2).
	state int
	check bool  // the frame in hand has a content checksum
	err   error // a frame over the window limit
	errAt int64 // where err's frame starts (the bytes before it are passed)
}

func (w *zstdWalker) Read(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	n, err := w.r.Read(p)
	for i := 0; i < n && w.state < 2 && w.err == nil; {
		if w.skip > 0 {
			k := min(w.skip, int64(n-i))
			i += int(k)
			w.skip -= k
			continue
		}
		w.hdr = append(w.hdr, p[i])
		i++
		w.walk(w.off + int64(i))
	}
	w.off += int64(n)
	if w.err != nil && w.off > w.errAt {
		n -= int(w.off - w.errAt)
		w.off = w.errAt
		err = nil
	}
	return n, err
}

// walk looks at the header bytes gathered so far (end: the offset just
// after them).
func (w *zstdWalker) walk(end int64) {
	switch w.state {
	case 0:
		n, content, err := zstdHeader(w.hdr)
		switch {
		case err == errMore && content == zstdSkippable:
			w.skip, w.hdr = int64(n-len(w.hdr)), w.hdr[:0]
		case err == errMore:
		case err != nil:
			var we *ZstdWindowError
			if errors.As(err, &we) {
				w.err, w.errAt = err, end-int64(len(w.hdr))
			}
			w.state = 2
		case content == zstdSkippable:
			w.hdr = w.hdr[:0]
		default:
			w.check, w.state, w.hdr = w.hdr[4]&4 != 0, 1, w.hdr[:0]
		}
	case 1:
		if len(w.hdr) < 3 {
			return
		}
		n, last, err := zstdBlock(w.hdr)
		if err != nil {
			w.state = 2
			return
		}
		w.skip, w.hdr = int64(n-3), w.hdr[:0]
		if last {
			w.state = 0
			if w.check {
				w.skip += 4
			}
		}
	}
}

// zstdPool keeps DecodeAll decoders (with their history buffers) between
// inputs.
var zstdPool sync.Pool

type pooledZstd struct {
	d      *zstd.Decoder
	maxOut int
}

func getZstd(maxOut int) *pooledZstd {
	if p, ok := zstdPool.Get().(*pooledZstd); ok && p.maxOut == maxOut {
		return p
	}
	// The options are valid: NewReader(nil) cannot fail.
	d, _ := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(uint64(maxOut)))
	return &pooledZstd{d: d, maxOut: maxOut}
}

// zstdMaxWindow is the largest zstd window accepted: what `zstd -d`
// accepts without --memory (128 MiB, written by zstd --long=27). Such a
// frame costs the sequential decoder up to its window in memory.
const zstdMaxWindow = 128 << 20

var errJobTooBig = errors.New("decoded job larger than the parallel limit")

// jobReader holds a job's compressed bytes as the inflater reads them:
// flate takes an io.ByteReader a byte at a time, and each ReadByte writes
// the reader's offset. It has cache lines of its own: the decoding
// goroutines' readers, allocated together, could share one, and then
// every byte read moved that line between the cores (false sharing: the
// same gzip file loaded in 2.8 s or 4.9 s, the ReadByte share of the
// CPU profile 6% or 33%).
type jobReader struct {
	_ cpu.CacheLinePad
	bytes.Reader
	_ cpu.CacheLinePad
}

// decodeLoop decodes jobs until the producer ends.
func (d *pdec) decodeLoop() {
	var zr *gzip.Reader
	var zd *pooledZstd
	defer func() {
		if zd != nil {
			zstdPool.Put(zd)
		}
	}()
	br := new(jobReader)
	for j := range d.work {
		select {
		case <-d.quit:
			j.err = io.ErrClosedPipe
			close(j.done)
			continue
		default:
		}
		switch d.codec {
		case codecZstd:
			if zd == nil {
				zd = getZstd(d.maxOut)
			}
			j.out, j.err = zd.d.DecodeAll(j.in, getBuf(d.free, max(j.hint, 4*len(j.in))))
			if errors.Is(j.err, zstd.ErrDecoderSizeExceeded) || errors.Is(j.err, zstd.ErrWindowSizeExceeded) {
				// A frame whose window is larger than a parallel job may hold
				// is the sequential decoder's to accept or refuse.
				j.err = errJobTooBig
			}
		default:
			br.Reset(j.in)
			if zr == nil {
				zr = new(gzip.Reader)
			}
			j.out, j.err = inflateJob(zr, &br.Reader, getBuf(d.free, max(j.hint+1, 4*len(j.in))), d.maxOut)
		}
		close(j.done)
	}
}

// inflateJob decodes the members in br to its end into out, failing with
// errJobTooBig past maxOut bytes.
func inflateJob(zr *gzip.Reader, br *bytes.Reader, out []byte, maxOut int) ([]byte, error) {
	if err := zr.Reset(br); err != nil {
		return out, err
	}
	for {
		if len(out) > maxOut {
			return out, errJobTooBig
		}
		if len(out) == cap(out) {
			out = slices.Grow(out, min(max(cap(out), 64<<10), maxOut+1))
		}
		n, err := zr.Read(out[len(out):min(cap(out), maxOut+1)])
		out = out[:len(out)+n]
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

// CompressionError is a damaged compressed stream (gzip or zstd).
type CompressionError struct {
	Source string
	Codec  string // "gzip" or "zstd"
	Offset int64  // compressed byte offset where the problem was found
	Reason string
	Err    error
}

// GzipError is the name the gzip errors had first.
type GzipError = CompressionError

func (e *CompressionError) Error() string {
	return fmt.Sprintf("%s: %s (compressed byte offset %d)", e.Source, e.Reason, e.Offset)
}

func (e *CompressionError) Unwrap() error { return e.Err }

// seqDecoder decodes the rest of a stream with one decoder; its errors
// name the compressed byte offset (base is the offset of r's first byte).
type seqDecoder struct {
	codec  codec
	source string
	base   int64
	cr     *countingReader
	buf    *bufio.Reader
	gz     *gzip.Reader
	zd     *zstd.Decoder
	walk   *zstdWalker
	err    error
	// member is the offset of the gzip member being read: where garbage
	// after the last member starts, when the next header is refused (the
	// header's 10 bytes are read before they are checked).
	member   int64
	inHeader bool // reading a member header
}

func newSeqDecoder(c codec, source string, r io.Reader, base int64) *seqDecoder {
	s := &seqDecoder{codec: c, source: source, base: base, cr: &countingReader{r: r}}
	s.buf = bufio.NewReaderSize(s.cr, 256<<10)
	var err error
	if c == codecZstd {
		s.walk = &zstdWalker{r: s.cr}
		s.buf.Reset(s.walk)
		s.zd, err = zstd.NewReader(s.buf, zstd.WithDecoderMaxMemory(1<<36), zstd.WithDecoderMaxWindow(zstdMaxWindow))
	} else {
		s.member, s.inHeader = base, true
		if s.gz, err = gzip.NewReader(s.buf); err == nil {
			s.gz.Multistream(false)
			s.inHeader = false
		}
	}
	if err != nil {
		s.err = s.wrap(err)
	}
	return s
}

// pos is the offset of the next compressed byte the decoder would take.
func (s *seqDecoder) pos() int64 { return s.base + s.cr.n.Load() - int64(s.buf.Buffered()) }

// nextMember starts the gzip member after the one that ended: io.EOF when
// the stream ends there.
func (s *seqDecoder) nextMember() error {
	s.member, s.inHeader = s.pos(), true
	if err := s.gz.Reset(s.buf); err != nil {
		return err
	}
	s.gz.Multistream(false)
	s.inHeader = false
	return nil
}

func (s *seqDecoder) Read(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	var n int
	var err error
	if s.zd != nil {
		n, err = s.zd.Read(p)
	} else {
		// One member at a time (Multistream off), so that an error in
		// the header after a member names where that member ended.
		for n, err = s.gz.Read(p); err == io.EOF; n, err = s.gz.Read(p) {
			if err = s.nextMember(); err != nil || n > 0 {
				break
			}
		}
	}
	if err != nil && err != io.EOF {
		err = s.wrap(err)
		s.err = err
		if s.zd != nil {
			s.zd.Close()
		}
	}
	return n, err
}

func (s *seqDecoder) wrap(err error) error {
	var ce *CompressionError
	if errors.As(err, &ce) {
		return err
	}
	if s.walk != nil && s.walk.err != nil {
		// The decoder stopped where the walker ended the stream: the
		// reason is the walker's.
		return &CompressionError{Source: s.source, Codec: "zstd", Offset: s.base + s.walk.errAt, Reason: s.walk.err.Error(), Err: s.walk.err}
	}
	off := s.pos()
	if s.codec == codecZstd {
		reason := "corrupt zstd data: " + err.Error()
		switch {
		case errors.Is(err, io.ErrUnexpectedEOF):
			reason = errZstdTruncated.Error()
		case errors.Is(err, zstd.ErrMagicMismatch):
			reason = errZstdMagic.Error()
		case errors.Is(err, zstd.ErrCRCMismatch):
			reason = "zstd checksum mismatch"
		}
		return &CompressionError{Source: s.source, Codec: "zstd", Offset: off, Reason: reason, Err: err}
	}
	reason := "gzip: " + err.Error()
	var corrupt flate.CorruptInputError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) && s.inHeader && s.member > 0 && off-s.member < 10:
		// Fewer bytes than a member header after the last member.
		reason, off = "garbage after the last gzip member (too short to be a member header)", s.member
	case errors.Is(err, io.ErrUnexpectedEOF):
		reason = "truncated gzip stream (unexpected end of file)"
	case errors.Is(err, gzip.ErrHeader):
		reason, off = "invalid gzip header (garbage after a gzip member?)", s.member
	case errors.Is(err, gzip.ErrChecksum):
		reason = "gzip checksum mismatch"
	case errors.As(err, &corrupt):
		reason = "corrupt gzip data"
	}
	return &CompressionError{Source: s.source, Codec: "gzip", Offset: off, Reason: reason, Err: err}
}
