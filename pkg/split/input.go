package split

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/tsload/tsload/pkg/format"
	csvformat "github.com/tsload/tsload/pkg/format/csv"
	"github.com/tsload/tsload/pkg/format/pgcopy"
)

// Magic prefixes recognised by Detect (docs/formats.md).
var (
	pgcopyMagic  = []byte(pgcopy.Signature)
	tslcopyMagic = []byte(pgcopy.MultiMagic)
	pgChunkTag   = []byte(pgcopy.ChunkTag) // a tsload table chunk in a COPY header extension
	csvMagic     = []byte(csvformat.Magic)
)

// Input is one opened input: a file or a stream, decompressed when it starts
// with the gzip magic bytes 1f 8b or the zstd magic bytes 28 b5 2f fd (any
// number of members or frames, read to the end; decoded in parallel where
// the members or frames can be found, see decode.go).
type Input struct {
	// Source names the input in messages: the file path, or "stdin".
	Source string
	// Size is the size of the file on disk (compressed), or -1 for a stream.
	Size int64
	// Gzip reports whether the input is gzip-compressed.
	Gzip bool
	// Zstd reports whether the input is zstd-compressed.
	Zstd bool

	raw    *countingReader  // bytes read from the file or stream
	pscan  *pscan           // the parallel scan of a mapped file, while it runs
	tail   func() io.Reader // a mapped file from the mapping's end on
	pd     *pdec            // the decompressor (compressed input only)
	br     *raReader        // decompressed bytes, bufio.Reader-like, limit Config.MaxRecordBytes
	ra     *readAhead       // under br: reads (and decompresses) in its own goroutine
	closer io.Closer
}

// Open opens a file (the path "-" means stdin) with a read buffer of
// bufSize bytes, which is also the longest line or record that can be split.
func Open(path string, stdin io.Reader, bufSize int) (*Input, error) {
	if path == "" || path == "-" {
		if stdin == nil {
			stdin = os.Stdin
		}
		return NewInput("stdin", stdin, -1, bufSize)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	size := int64(-1)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	in, err := newInput(path, f, size, bufSize, f)
	if err != nil {
		f.Close()
		return nil, err
	}
	in.closer = f
	return in, nil
}

// NewInput wraps r, detecting gzip and zstd from their magic bytes. size is the
// compressed size when known (for progress), else -1. bufSize <= 0 selects
// DefaultMaxRecordBytes.
func NewInput(source string, r io.Reader, size int64, bufSize int) (*Input, error) {
	return newInput(source, r, size, bufSize, nil)
}

// newInput is NewInput; f, when not nil, is r itself, a regular file of
// size bytes: uncompressed, it is memory-mapped rather than read (see
// mapFile).
func newInput(source string, r io.Reader, size int64, bufSize int, f *os.File) (*Input, error) {
	if bufSize <= 0 {
		bufSize = DefaultMaxRecordBytes
	}
	if f != nil && size >= 0 {
		r = &sizeChecked{r: r, source: source, size: size} // a file cut short while read (changed.go)
	}
	in := &Input{Source: source, Size: size, raw: &countingReader{r: r}}
	var magic [4]byte
	n, err := io.ReadFull(in.raw, magic[:])
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	// The magic bytes go back in front; an uncompressed input is then read
	// straight into the record buffer (one copy).
	var dec io.Reader = io.MultiReader(bytes.NewReader(magic[:n]), in.raw)
	switch {
	case n >= 2 && magic[0] == 0x1f && magic[1] == 0x8b:
		in.Gzip = true
		in.pd = newPdec(codecGzip, source, dec)
		dec = in.pd
	case n == 4 && binary.LittleEndian.Uint32(magic[:]) == zstdMagic:
		in.Zstd = true
		in.pd = newPdec(codecZstd, source, dec)
		dec = in.pd
	}
	// The file read (and decompression) runs in a goroutine of its own,
	// overlapping the splitting; a regular file's chunks are filled whole
	// (its reads never wait for data), a stream's are handed over per read.
	in.ra = newReadAhead(dec, size >= 0)
	if f != nil && !in.Gzip && !in.Zstd && size > 0 {
		// The file's bytes are read where they lie in the page cache, with
		// no read(2) copy; batches of whole lines then point into the
		// mapping (zero-copy) until their Release. Bytes appended after
		// Open are read past the mapping's end. Without a mapping (the
		// call failed, or the system has none) the file is read.
		if m, err := mapFile(f, size); err == nil {
			in.ra.mm = m
			in.tail = func() io.Reader { return io.NewSectionReader(f, size, math.MaxInt64-size) }
			in.ra.src = &countingReader{r: in.tail()}
			in.ra.mapped = &in.raw.n
		}
	}
	in.br = &raReader{ra: in.ra, size: max(bufSize, 16)} // bufio.Reader's minimum
	// An Input dropped without Close (its reader abandoned part-way) must
	// not keep the goroutine, blocked on a full ring, forever.
	// The finalizer is on the reader of the decompressed bytes (not on the
	// Input, which a caller may drop while reading through br).
	ra, pd := in.ra, in.pd
	runtime.SetFinalizer(in.br, func(*raReader) {
		ra.stop()
		if pd != nil {
			pd.stop()
		}
	})
	return in, nil
}

// stop stops the read-ahead and decompression goroutines.
func (in *Input) stop() {
	if in.ra != nil {
		in.ra.stop()
	}
	if in.pd != nil {
		in.pd.stop()
	}
}

// CompressedRead is the number of bytes read so far from the file or stream
// (compressed bytes for a gzip input); with Size it gives progress.
func (in *Input) CompressedRead() int64 { return in.raw.n.Load() }

// Close stops the read-ahead goroutine and closes the file, if Open opened
// one (waiting for the goroutine to end). For a stream it does not wait: a
// read blocked on a stream ends the goroutine when it returns.
func (in *Input) Close() error {
	in.stop()
	if in.pscan != nil {
		in.pscan.close()
		in.pscan = nil
	}
	if in.closer != nil {
		err := in.closer.Close()
		if in.ra != nil {
			in.ra.wait()
			if in.ra.mm != nil {
				in.releaseMapping()
			}
		}
		return err
	}
	return nil
}

// stopReadAhead stops the read-ahead of a mapped file and gives back the
// windows it handed out (the parallel scan reads the mapping itself).
func (in *Input) stopReadAhead() {
	in.ra.stop()
	in.ra.wait()
	in.dropWindows()
}

// dropWindows gives back the windows the reader has in view or that wait
// in the ring (the read-ahead has stopped): the reader holds no bytes after.
func (in *Input) dropWindows() {
	b := in.br
	for _, c := range []*raChunk{b.vc, b.pend} {
		if c != nil {
			c.Release()
		}
	}
	b.vc, b.pend, b.view, b.r = nil, nil, nil, 0
	for {
		select {
		case c := <-in.ra.full:
			c.Release()
			continue
		default:
		}
		return
	}
}

// restartAt reads a mapped file on from offset off, with a new read-ahead
// (after the parallel scan).
func (in *Input) restartAt(off int) {
	mm, mapped := in.ra.mm, in.ra.mapped
	in.ra = newReadAhead(&countingReader{r: in.tail()}, true)
	in.ra.mm, in.ra.mapped, in.ra.from = mm, mapped, off
	ra := in.ra
	in.br = &raReader{ra: ra, size: in.br.size}
	runtime.SetFinalizer(in.br, func(*raReader) { ra.stop() })
}

// releaseMapping gives back, at Close, the mapped windows that no batch
// holds (those the reader has in view or that wait in the ring) and the
// Input's hold on the mapping: it is unmapped once the last batch
// pointing into it is released.
func (in *Input) releaseMapping() {
	in.dropWindows()
	in.ra.mm.Release()
}

// Detect returns the format of the input from its first bytes (without
// consuming them): PGCOPY or TSLCOPY magic => pgcopy; "#tsload-csv v1" =>
// csv; a first data line (comments and blank lines skipped) that has a
// space followed later by '=' => ilp (or, cut at 64 KiB before its first
// space, one with a '=': a long tag value); anything else => csv with a
// header.
// An empty input is an error. It decides on what has arrived as soon as
// that tells (a first data line that is whole), reading on only while it
// does not, up to 64 KiB: a stream typed or trickled in is not held until
// 64 KiB or its end.
func (in *Input) Detect() (format.Format, error) {
	limit := min(detectLimit, in.br.size)
	head, err := in.br.Peek(1) // the first bytes to arrive
	for {
		if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
			return format.Unknown, err
		}
		if err == nil {
			head, _ = in.br.Peek(min(in.br.Buffered(), limit))
		}
		if len(head) == 0 {
			return format.Unknown, fmt.Errorf("%s: empty input (no data)", in.Source)
		}
		if f, ok := detectPrefix(head, err != nil || len(head) >= limit); ok {
			return f, nil
		}
		head, err = in.br.Peek(len(head) + 1) // one more read
	}
}

// detectLimit is how much of an input Detect reads at most.
const detectLimit = 64 << 10

// DetectBytes applies Detect's rules to the first bytes of an input.
func DetectBytes(head []byte) format.Format {
	f, _ := detectPrefix(head, true)
	return f
}

// detectPrefix applies Detect's rules to head, the first bytes of an
// input; unless final (nothing more to read), it reports !ok when they do
// not tell yet: a magic begun but not whole, a first data line without its
// end.
func detectPrefix(head []byte, final bool) (format.Format, bool) {
	for _, m := range []struct {
		magic []byte
		f     format.Format
	}{{pgcopyMagic[:6], format.PGCopy}, {tslcopyMagic[:7], format.PGCopy}, {csvMagic, format.CSV}} {
		if bytes.HasPrefix(head, m.magic) {
			return m.f, true
		}
		if !final && len(head) < len(m.magic) && bytes.HasPrefix(m.magic, head) {
			return format.Unknown, false
		}
	}
	rest := head
	for len(rest) > 0 {
		line, cut := rest, false
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else if !final {
			return format.Unknown, false // the line may go on
		} else {
			rest, cut = nil, len(head) >= detectLimit
		}
		t := bytes.TrimLeft(line, " \t\r")
		if len(t) == 0 || t[0] == '#' {
			continue
		}
		sp := indexUnescaped(line, ' ')
		if sp > 0 && bytes.IndexByte(line[sp:], '=') >= 0 {
			return format.ILP, true
		}
		if sp < 0 && cut && bytes.IndexByte(line, '=') >= 0 {
			// A first line longer than Detect reads, its measurement and
			// tags (key=value) not yet ended by a space: line protocol
			// with a long tag value. A CSV header names columns, no '='.
			return format.ILP, true
		}
		return format.CSV, true
	}
	if !final {
		return format.Unknown, false
	}
	return format.ILP, true // only comments: nothing to load, any splitter will do
}

// indexUnescaped returns the index of the first c in b not preceded by a
// backslash escape, or -1.
func indexUnescaped(b []byte, c byte) int {
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case c:
			return i
		}
	}
	return -1
}

type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// raReader is the part of bufio.Reader the splitters use (Peek, ReadSlice,
// Buffered, Discard, Read, with the same results and errors for a buffer of
// size bytes) over the read-ahead ring: its view is a filled chunk itself
// (no copy), with the unread end of the previous view put in the chunk's
// head room, or, when that end is longer than the head room, a scratch
// buffer of size bytes.
type raReader struct {
	ra      *readAhead
	size    int
	view    []byte
	r       int      // read position in view
	vc      *raChunk // the chunk view is in, if not scratch
	pend    *raChunk // next chunk, data from po
	po      int
	srcErr  error // the source's error (io.EOF at the end), after the chunks received
	scratch []byte
}

func (b *raReader) release(c *raChunk) { c.Release() }

// chunkPos returns the chunk the unread bytes of the view are in and the
// index of the first one in its buf, or nil when they are in the scratch
// buffer: cutBuffered's batches point into the chunk (zero-copy).
func (b *raReader) chunkPos() (*raChunk, int) {
	if b.vc == nil {
		return nil, 0
	}
	return b.vc, len(b.vc.buf[:b.vc.n]) - len(b.view) + b.r
}

// next makes pend a chunk with data, or returns the source's error.
func (b *raReader) next() error {
	for {
		if b.pend != nil {
			if b.po < b.pend.n {
				return nil
			}
			b.release(b.pend)
			b.pend = nil
		}
		if b.srcErr != nil {
			return b.srcErr
		}
		b.ra.startOnce.Do(func() {
			b.ra.started.Store(true)
			go b.ra.loop()
		})
		select {
		case c := <-b.ra.full:
			b.pend, b.po = c, c.head
			if c.err != nil {
				b.srcErr = c.err
			}
		case <-b.ra.quit:
			b.srcErr = os.ErrClosed
		}
	}
}

// fill makes at least need (<= size) bytes readable in view, or returns the
// source's error.
func (b *raReader) fill(need int) error {
	for len(b.view)-b.r < need {
		if err := b.next(); err != nil {
			return err
		}
		tail := b.view[b.r:]
		p := b.pend
		if len(tail) <= b.po {
			start := b.po - len(tail)
			if !p.mapped { // a mapped chunk's head already holds them
				copy(p.buf[start:b.po], tail)
			}
			if b.vc != nil {
				b.release(b.vc)
			}
			b.view, b.r, b.vc, b.pend = p.buf[start:p.n], 0, p, nil
			continue
		}
		if b.scratch == nil {
			b.scratch = make([]byte, b.size)
		}
		t := copy(b.scratch, tail)
		k := copy(b.scratch[t:], p.buf[b.po:p.n])
		b.po += k
		b.view, b.r = b.scratch[:t+k], 0
		if b.vc != nil {
			b.release(b.vc)
			b.vc = nil
		}
	}
	return nil
}

// Buffered is the number of bytes readable without reading (at most size).
func (b *raReader) Buffered() int { return min(len(b.view)-b.r, b.size) }

// Peek is bufio.Reader.Peek.
func (b *raReader) Peek(n int) ([]byte, error) {
	if n < 0 {
		return nil, bufio.ErrNegativeCount
	}
	if n > b.size {
		b.fill(b.size)
		return b.view[b.r : b.r+b.Buffered()], bufio.ErrBufferFull
	}
	if err := b.fill(n); err != nil {
		return b.view[b.r:], err
	}
	return b.view[b.r : b.r+n], nil
}

// ReadSlice is bufio.Reader.ReadSlice.
func (b *raReader) ReadSlice(delim byte) ([]byte, error) {
	s := 0
	for {
		avail := len(b.view) - b.r
		lim := min(avail, b.size)
		if i := bytes.IndexByte(b.view[b.r+s:b.r+lim], delim); i >= 0 {
			line := b.view[b.r : b.r+s+i+1]
			b.r += s + i + 1
			return line, nil
		}
		if avail >= b.size {
			line := b.view[b.r : b.r+b.size]
			b.r += b.size
			return line, bufio.ErrBufferFull
		}
		s = avail
		if err := b.fill(avail + 1); err != nil && len(b.view)-b.r <= avail {
			line := b.view[b.r:]
			b.r = len(b.view)
			return line, err
		}
	}
}

// Discard is bufio.Reader.Discard.
func (b *raReader) Discard(n int) (int, error) {
	if n < 0 {
		return 0, bufio.ErrNegativeCount
	}
	rem := n
	for {
		skip := min(len(b.view)-b.r, rem)
		b.r += skip
		rem -= skip
		if rem == 0 {
			return n, nil
		}
		if err := b.fill(1); err != nil {
			return n - rem, err
		}
	}
}

// Read is bufio.Reader.Read.
func (b *raReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if len(b.view) == b.r {
		if err := b.fill(1); err != nil {
			return 0, err
		}
	}
	n := copy(p, b.view[b.r:])
	b.r += n
	return n, nil
}

// Read-ahead ring: raChunks chunks of up to raMaxChunk bytes each (the
// first ones smaller, growing while the source fills them), so the memory
// held ahead of the splitter is bounded by raChunks*raMaxChunk. A chunk
// holds a few batches of the default size, so that most batches of a
// decompressed input lie in one chunk and go out without a copy.
const (
	raChunks   = 6
	raMinChunk = 64 << 10
	raMaxChunk = 4 << 20
	raHead     = 64 << 10
)

// A mapped file is handed out in windows of raMapWindow bytes, with up to
// raMapHead bytes before each as its head (both multiples of the page
// size); they are variables for the tests.
var (
	raMapWindow = 8 << 20
	raMapHead   = 1 << 20
)

// raChunk holds data in buf[head:n]; the head bytes in front of it let
// the reader prepend the unread end of the previous chunk (a partial line)
// and go on without copying the chunk. A mapped chunk is a window of the
// file's mapping (read-only) whose head holds the file's bytes before it.
//
// Its loan counts the chunk's holders: the reader while its bytes are in view,
// and every zero-copy batch pointing into it (load.Batch.Hold); the last
// Release gives it back to the ring.
type raChunk struct {
	loan   // its holders; back returns it to the ring
	buf    []byte
	n      int
	err    error // after the data
	head   int
	mapped bool
	ra     *readAhead
	// touched is prefault's result for a mapped window.
	touched byte
}

// giveBack returns c to the ring after its last Release (a mapped window's
// pages are dropped from the process first).
func (c *raChunk) giveBack() {
	if c.mapped {
		c.ra.mm.drop(c.buf[c.head:c.n])
		c.buf, c.mapped = nil, false
		c.ra.mm.Release()
	}
	c.ra.free <- c // never blocks: the ring holds every chunk
}

// readAhead is an io.Reader whose source is read by a goroutine of its own
// (started by the first Read) into a bounded ring of chunks; Read hands the
// filled chunks over in order, then the source's error (io.EOF at the end).
type readAhead struct {
	src  io.Reader
	fill bool // read each chunk full (the source does not block: a regular file)

	// mm, when set, is the file's mapping: the loop hands out its windows
	// before it reads src (the file from the mapping's end on); mapped
	// counts the bytes handed out (Input.CompressedRead).
	mm     *mapping
	mapped *atomic.Int64
	from   int // the first mapped byte to hand out

	full chan *raChunk // filled, in order
	free chan *raChunk // to fill
	quit chan struct{} // closed by stop
	done chan struct{} // closed when the goroutine returns

	startOnce sync.Once
	stopOnce  sync.Once
	started   atomic.Bool
}

func newReadAhead(src io.Reader, fill bool) *readAhead {
	r := &readAhead{
		src:  src,
		fill: fill,
		full: make(chan *raChunk, raChunks),
		free: make(chan *raChunk, raChunks),
		quit: make(chan struct{}),
		done: make(chan struct{}),
	}
	for i := 0; i < raChunks; i++ {
		c := &raChunk{ra: r}
		c.back = c.giveBack
		r.free <- c
	}
	return r
}

// loop reads the source into free chunks until an error (io.EOF included)
// or stop.
func (r *readAhead) loop() {
	defer close(r.done)
	if r.mm != nil {
		WatchFaults() // a truncated mapping: an error, not a crash (changed.go)
		if !r.mapLoop() {
			return
		}
	}
	size := raMinChunk
	for {
		var c *raChunk
		select {
		case <-r.quit:
			return
		default:
		}
		select {
		case c = <-r.free:
		case <-r.quit:
			return
		}
		if cap(c.buf) < raHead+size {
			c.buf = make([]byte, raHead+size)
		}
		c.buf = c.buf[:cap(c.buf)]
		c.n, c.err, c.head = raHead, nil, raHead
		c.lend()
		for empty := 0; c.n < len(c.buf) && c.err == nil; {
			n, err := r.src.Read(c.buf[c.n:])
			c.n, c.err = c.n+n, err
			if n == 0 && err == nil {
				if empty++; empty >= 100 { // as bufio.Reader does
					c.err = io.ErrNoProgress
				}
				continue
			}
			if !r.fill {
				break
			}
		}
		if c.n == len(c.buf) && size < raMaxChunk {
			size *= 2
		}
		select {
		case r.full <- c:
		case <-r.quit:
			return
		}
		if c.err != nil {
			return
		}
	}
}

// mapLoop hands out the windows of the mapping, raMapWindow bytes each
// (with up to raMapHead bytes before them as head), touching their pages
// first so that the faults are taken here rather than by the splitter; it
// reports false when stopped.
func (r *readAhead) mapLoop() bool {
	data := r.mm.data
	for off := r.from; off < len(data); off += raMapWindow {
		var c *raChunk
		select {
		case c = <-r.free:
		case <-r.quit:
			return false
		}
		head := min(off, raMapHead)
		end := min(off+raMapWindow, len(data))
		c.buf, c.n, c.err, c.head, c.mapped = data[off-head:end:end], end-off+head, nil, head, true
		c.lend()
		r.mm.hold()
		var err error
		if c.touched, err = touch(c.buf[head:]); err != nil {
			c.n, c.err = head, err // the file was cut short: its error, no bytes
			select {
			case r.full <- c:
			case <-r.quit:
				c.Release()
			}
			return false
		}
		r.mapped.Add(int64(end - off))
		select {
		case r.full <- c:
		case <-r.quit:
			c.Release()
			return false
		}
	}
	return true
}

// stop makes the goroutine return at its next step (after its current read).
func (r *readAhead) stop() { r.stopOnce.Do(func() { close(r.quit) }) }

// wait waits for the goroutine, if started, to return.
func (r *readAhead) wait() {
	if r.started.Load() {
		<-r.done
	}
}
