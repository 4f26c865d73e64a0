package split

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
	"github.com/tsload/tsload/pkg/load"
)

// Magic prefixes recognised by Detect (docs/formats.md).
var (
	pgcopyMagic  = []byte("PGCOPY\n\377\r\n\x00")
	tslcopyMagic = []byte("TSLCOPY\n\377\r\n")
	pgChunkTag   = []byte("tsload.table\x00") // a tsload table chunk in a COPY header extension
	csvMagic     = []byte("#tsload-csv v1")
)

// Input is one opened input: a file or a stream, decompressed when it starts
// with the gzip magic bytes 1f 8b (multi-member gzip files are read to the end).
type Input struct {
	// Source names the input in messages: the file path, or "stdin".
	Source string
	// Size is the size of the file on disk (compressed), or -1 for a stream.
	Size int64
	// Gzip reports whether the input is gzip-compressed.
	Gzip bool

	raw    *countingReader // bytes read from the file or stream
	rawBuf *bufio.Reader   // between raw and the gzip reader (gzip only)
	gz     *gzip.Reader
	br     *bufio.Reader // decompressed bytes, buffer of Config.MaxRecordBytes
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
	in, err := NewInput(path, f, size, bufSize)
	if err != nil {
		f.Close()
		return nil, err
	}
	in.closer = f
	return in, nil
}

// NewInput wraps r, detecting gzip from its first two bytes. size is the
// compressed size when known (for progress), else -1. bufSize <= 0 selects
// DefaultMaxRecordBytes.
func NewInput(source string, r io.Reader, size int64, bufSize int) (*Input, error) {
	if bufSize <= 0 {
		bufSize = DefaultMaxRecordBytes
	}
	in := &Input{Source: source, Size: size, raw: &countingReader{r: r}}
	var magic [2]byte
	n, err := io.ReadFull(in.raw, magic[:])
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	// The magic bytes go back in front; an uncompressed input is then read
	// straight into the record buffer (one copy).
	var dec io.Reader = io.MultiReader(bytes.NewReader(magic[:n]), in.raw)
	if n == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		in.Gzip = true
		in.rawBuf = bufio.NewReaderSize(dec, 256<<10)
		gz, err := gzip.NewReader(in.rawBuf)
		if err != nil {
			return nil, in.gzipError(err)
		}
		in.gz = gz
		dec = &gzipErrReader{in: in}
	}
	in.br = bufio.NewReaderSize(dec, bufSize)
	return in, nil
}

// CompressedRead is the number of bytes read so far from the file or stream
// (compressed bytes for a gzip input); with Size it gives progress.
func (in *Input) CompressedRead() int64 { return in.raw.n.Load() }

// Close closes the file, if Open opened one.
func (in *Input) Close() error {
	if in.closer != nil {
		return in.closer.Close()
	}
	return nil
}

// Detect returns the format of the input from its first bytes (without
// consuming them): PGCOPY or TSLCOPY magic => pgcopy; "#tsload-csv v1" =>
// csv; a first data line (comments and blank lines skipped) that has a
// space followed later by '=' => ilp; anything else => csv with a header.
// An empty input is an error.
func (in *Input) Detect() (load.Format, error) {
	head, err := in.br.Peek(64 << 10)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return load.FormatUnknown, err
	}
	if len(head) == 0 {
		return load.FormatUnknown, fmt.Errorf("%s: empty input (no data)", in.Source)
	}
	return DetectBytes(head), nil
}

// DetectBytes applies Detect's rules to the first bytes of an input.
func DetectBytes(head []byte) load.Format {
	if bytes.HasPrefix(head, pgcopyMagic[:6]) || bytes.HasPrefix(head, tslcopyMagic[:7]) {
		return load.FormatPGCopy
	}
	if bytes.HasPrefix(head, csvMagic) {
		return load.FormatCSV
	}
	rest := head
	for len(rest) > 0 {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		t := bytes.TrimLeft(line, " \t\r")
		if len(t) == 0 || t[0] == '#' {
			continue
		}
		sp := indexUnescaped(line, ' ')
		if sp > 0 && bytes.IndexByte(line[sp:], '=') >= 0 {
			return load.FormatILP
		}
		return load.FormatCSV
	}
	return load.FormatILP // only comments: nothing to load, any splitter will do
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

// gzipErrReader turns the gzip reader's errors into messages naming the
// file and the compressed byte offset.
type gzipErrReader struct{ in *Input }

func (g *gzipErrReader) Read(p []byte) (int, error) {
	n, err := g.in.gz.Read(p)
	if err != nil && err != io.EOF {
		err = g.in.gzipError(err)
	}
	return n, err
}

// GzipError is a damaged gzip stream.
type GzipError struct {
	Source string
	Offset int64 // compressed byte offset where the problem was found
	Reason string
	Err    error
}

func (e *GzipError) Error() string {
	return fmt.Sprintf("%s: %s (compressed byte offset %d)", e.Source, e.Reason, e.Offset)
}

func (e *GzipError) Unwrap() error { return e.Err }

func (in *Input) gzipError(err error) error {
	off := in.raw.n.Load()
	if in.rawBuf != nil {
		off -= int64(in.rawBuf.Buffered())
	}
	reason := "gzip: " + err.Error()
	var corrupt flate.CorruptInputError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		reason = "truncated gzip stream (unexpected end of file)"
	case errors.Is(err, gzip.ErrHeader):
		reason = "invalid gzip header (garbage after a gzip member?)"
	case errors.Is(err, gzip.ErrChecksum):
		reason = "gzip checksum mismatch"
	case errors.As(err, &corrupt):
		reason = "corrupt gzip data"
	default:
		var ge *GzipError
		if errors.As(err, &ge) {
			return err
		}
	}
	return &GzipError{Source: in.Source, Offset: off, Reason: reason, Err: err}
}
