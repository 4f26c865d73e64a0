package parquet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Page headers are Thrift structures (compact protocol) inside a column
// chunk, and they declare sizes: of the page, and of binary fields such
// as statistics. The Parquet library allocates what a header declares
// before it knows the bytes are there, so a damaged header in a small file
// can cost gigabytes. checkPages walks the headers of a column chunk
// first, allocating nothing for what a field declares (a field is stepped
// over by arithmetic), and refuses the first header that declares more
// than the chunk holds. It reads only the headers' bytes, not the pages.

// checkFooter walks the footer (FileMetaData) the same way before the
// library decodes it: a list or a string longer than the bytes left is
// refused, since the library would allocate its declared length first (a
// few damaged bytes can declare billions of row groups, more memory than
// the machine has: a fatal error, not a panic to recover from).
func checkFooter(r io.ReaderAt, size int64) error {
	var tail [4]byte
	if _, err := r.ReadAt(tail[:], size-8); err != nil {
		return err
	}
	n := int64(binary.LittleEndian.Uint32(tail[:]))
	if n > size-12 {
		return fmt.Errorf("damaged Parquet file: its footer declares %d bytes, more than the %d the file has before it", n, size-12)
	}
	t := &thriftReader{r: r, off: size - 8 - n, end: size - 8, within: "the footer"}
	if err := t.skipValue(ctStruct, 0); err != nil {
		return fmt.Errorf("damaged Parquet footer (byte offsets %d to %d): %w", size-8-n, size-8, err)
	}
	return nil
}

// A chunk is the byte range [start, end) of one column chunk; total is
// its declared uncompressed size and values its declared value count.
type chunk struct {
	rowGroup int
	column   string
	start    int64
	end      int64
	total    int64
	values   int64
}

// errDamaged is what Thrift data that cannot be read says.
var errDamaged = errors.New("damaged Thrift data")

// PageHeader's fields (parquet.thrift) that checkPages reads.
const (
	phUncompressedSize = 2 // i32
	phCompressedSize   = 3 // i32
	phDataPage         = 5 // DataPageHeader: field 1 is num_values (i32)
	phDataPageV2       = 8 // DataPageHeaderV2: field 1 is num_values (i32)
)

// checkPages walks the page headers of c until its data pages have held
// its declared number of values (a chunk may be padded after them) and
// returns the number of pages.
func checkPages(r io.ReaderAt, c chunk) (pages int, err error) {
	t := &thriftReader{r: r, end: c.end, within: "its column chunk"}
	var values int64
	for off := c.start; values < c.values; pages++ {
		if off >= c.end {
			return pages, fmt.Errorf("row group %d, column %s: its pages end at byte offset %d with %d of its %d values (damaged file)", c.rowGroup, c.column, off, values, c.values)
		}
		t.seek(off)
		h, err := t.pageHeader()
		if err != nil {
			return pages, fmt.Errorf("row group %d, column %s: page header at byte offset %d: %w (damaged file)", c.rowGroup, c.column, off, err)
		}
		body := t.off
		switch {
		case h.compressed < 0 || h.uncompressed < 0:
			return pages, fmt.Errorf("row group %d, column %s: page header at byte offset %d declares negative sizes (%d compressed, %d uncompressed; damaged file)", c.rowGroup, c.column, off, h.compressed, h.uncompressed)
		case int64(h.compressed) > c.end-body:
			return pages, fmt.Errorf("row group %d, column %s: page at byte offset %d declares %d bytes, beyond its column chunk's end at byte offset %d (damaged file)", c.rowGroup, c.column, off, h.compressed, c.end)
		case h.values > c.values:
			return pages, fmt.Errorf("row group %d, column %s: page at byte offset %d declares %d values, more than its column chunk's %d (damaged file)", c.rowGroup, c.column, off, h.values, c.values)
		case int64(h.uncompressed) > c.total:
			return pages, fmt.Errorf("row group %d, column %s: page at byte offset %d declares %d bytes uncompressed, more than its column chunk's %d (damaged file)", c.rowGroup, c.column, off, h.uncompressed, c.total)
		}
		values += h.values
		off = body + int64(h.compressed)
	}
	return pages, nil
}

// header is what checkPages needs of a PageHeader.
type header struct {
	uncompressed, compressed int32
	values                   int64 // a data page's num_values (0 for other pages)
}

// thriftReader reads Thrift's compact protocol from r at off, never past
// end, through a small window: skipping a field moves off without reading.
type thriftReader struct {
	r   io.ReaderAt
	off int64 // the next byte's offset
	end int64
	// within names what ends at end, for messages.
	within string
	buf    [4096]byte
	bufAt  int64 // the offset of buf[0]
	bufN   int   // valid bytes in buf
}

func (t *thriftReader) seek(off int64) { t.off = off }

func (t *thriftReader) byte() (byte, error) {
	if t.off >= t.end {
		return 0, fmt.Errorf("%w: it runs past %s", errDamaged, t.within)
	}
	if t.off < t.bufAt || t.off >= t.bufAt+int64(t.bufN) {
		n := int64(len(t.buf))
		if t.end-t.off < n {
			n = t.end - t.off
		}
		got, err := t.r.ReadAt(t.buf[:n], t.off)
		if got == 0 {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
		t.bufAt, t.bufN = t.off, got
	}
	b := t.buf[t.off-t.bufAt]
	t.off++
	return b, nil
}

func (t *thriftReader) skip(n uint64) error {
	if n > uint64(t.end-t.off) {
		return fmt.Errorf("%w: a field of %d bytes runs past %s", errDamaged, n, t.within)
	}
	t.off += int64(n)
	return nil
}

func (t *thriftReader) uvarint() (uint64, error) {
	var x uint64
	for shift := uint(0); shift < 64; shift += 7 {
		b, err := t.byte()
		if err != nil {
			return 0, err
		}
		x |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return x, nil
		}
	}
	return 0, fmt.Errorf("%w: a varint longer than 10 bytes", errDamaged)
}

func (t *thriftReader) varint() (int64, error) {
	u, err := t.uvarint()
	return int64(u>>1) ^ -int64(u&1), err
}

// Compact protocol types.
const (
	ctStop   = 0
	ctTrue   = 1
	ctFalse  = 2
	ctByte   = 3
	ctI16    = 4
	ctI32    = 5
	ctI64    = 6
	ctDouble = 7
	ctBinary = 8
	ctList   = 9
	ctSet    = 10
	ctMap    = 11
	ctStruct = 12
)

// maxDepth bounds the nesting of structures and containers (a page
// header nests three deep, a footer about eight; damage must not recurse
// without bound).
const maxDepth = 32

// field reads a field header: its id and type, or ctStop.
func (t *thriftReader) field(last int16) (int16, byte, error) {
	b, err := t.byte()
	if err != nil || b == ctStop {
		return 0, ctStop, err
	}
	typ, delta := b&0x0f, int16(b>>4)
	if delta != 0 {
		return last + delta, typ, nil
	}
	id, err := t.varint()
	return int16(id), typ, err
}

// pageHeader reads a PageHeader, keeping its sizes and value count.
func (t *thriftReader) pageHeader() (header, error) {
	var h header
	var id int16
	for {
		var typ byte
		var err error
		if id, typ, err = t.field(id); err != nil {
			return h, err
		}
		switch {
		case typ == ctStop:
			return h, nil
		case (id == phUncompressedSize || id == phCompressedSize) && typ == ctI32:
			v, err := t.varint()
			if err != nil {
				return h, err
			}
			if v < -1<<31 || v >= 1<<31 {
				return h, fmt.Errorf("%w: page size %d is not a 32-bit integer", errDamaged, v)
			}
			if id == phCompressedSize {
				h.compressed = int32(v)
			} else {
				h.uncompressed = int32(v)
			}
		case (id == phDataPage || id == phDataPageV2) && typ == ctStruct:
			if h.values, err = t.numValues(); err != nil {
				return h, err
			}
		default:
			if err := t.skipValue(typ, 1); err != nil {
				return h, err
			}
		}
	}
}

// numValues reads a data page header, keeping field 1 (num_values).
func (t *thriftReader) numValues() (int64, error) {
	var n int64
	var id int16
	for {
		var typ byte
		var err error
		if id, typ, err = t.field(id); err != nil || typ == ctStop {
			return n, err
		}
		if id == 1 && typ == ctI32 {
			if n, err = t.varint(); err != nil {
				return 0, err
			}
			if n < 0 {
				return 0, fmt.Errorf("%w: %d values", errDamaged, n)
			}
			continue
		}
		if err := t.skipValue(typ, 2); err != nil {
			return 0, err
		}
	}
}

// skipValue steps over one value of type typ at nesting depth.
func (t *thriftReader) skipValue(typ byte, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("%w: nested more than %d deep", errDamaged, maxDepth)
	}
	switch typ {
	case ctTrue, ctFalse:
		return nil
	case ctByte:
		_, err := t.byte()
		return err
	case ctI16, ctI32, ctI64:
		_, err := t.uvarint()
		return err
	case ctDouble:
		return t.skip(8)
	case ctBinary:
		n, err := t.uvarint()
		if err != nil {
			return err
		}
		return t.skip(n)
	case ctList, ctSet:
		b, err := t.byte()
		if err != nil {
			return err
		}
		n, elem := uint64(b>>4), b&0x0f
		if n == 15 {
			if n, err = t.uvarint(); err != nil {
				return err
			}
		}
		return t.skipN(n, depth, elem)
	case ctMap:
		n, err := t.uvarint()
		if err != nil || n == 0 {
			return err
		}
		kv, err := t.byte()
		if err != nil {
			return err
		}
		if n > uint64(t.end-t.off)/2 { // every pair takes two bytes at least
			return fmt.Errorf("%w: a map of %d entries runs past %s", errDamaged, n, t.within)
		}
		for i := uint64(0); i < n; i++ {
			if err := t.skipElem(kv>>4, depth); err != nil {
				return err
			}
			if err := t.skipElem(kv&0x0f, depth); err != nil {
				return err
			}
		}
		return nil
	case ctStruct:
		var id int16
		for {
			var ft byte
			var err error
			if id, ft, err = t.field(id); err != nil || ft == ctStop {
				return err
			}
			if err := t.skipValue(ft, depth+1); err != nil {
				return err
			}
		}
	}
	return fmt.Errorf("%w: unknown Thrift type %d", errDamaged, typ)
}

// skipN steps over n list elements of type elem.
func (t *thriftReader) skipN(n uint64, depth int, elem byte) error {
	if n > uint64(t.end-t.off) { // every element takes a byte at least
		return fmt.Errorf("%w: a list of %d elements runs past %s", errDamaged, n, t.within)
	}
	for i := uint64(0); i < n; i++ {
		if err := t.skipElem(elem, depth); err != nil {
			return err
		}
	}
	return nil
}

// skipElem steps over one element of a list, set or map: there a
// boolean is a byte of its own (in a struct it is the field's type).
func (t *thriftReader) skipElem(typ byte, depth int) error {
	if typ == ctTrue || typ == ctFalse {
		_, err := t.byte()
		return err
	}
	return t.skipValue(typ, depth+1)
}
