package runner

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/influxdata/line-protocol/v2/lineprotocol"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/tsload/tsload/pkg/query"
)

// expect is the expected answer to q: query.Eval over the input's rows of
// q's window, read back from the input (see the package's query load).
func (ql *queryLoad) expect(q *query.Query) (*query.Answer, error) {
	off, end := ql.wm.span(q.Start.UnixNano())
	rd, err := ql.input.open(off)
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	pts := &ilpPoints{dec: lineprotocol.NewDecoder(io.LimitReader(rd, end-off)), q: q, prefix: ql.ds.TablePrefix,
		unit: ql.unit, stop: q.End.UnixNano() + ql.disorder}
	for _, m := range q.Where {
		pts.tags = append(pts.tags, m.Tag)
	}
	pts.tags = append(pts.tags, q.GroupBy...)
	pts.fields = append(pts.fields, q.Fields...)
	if q.Filter != nil {
		pts.fields = append(pts.fields, q.Filter.Field)
	}
	ans := query.Eval(q, pts.all)
	if pts.err != nil {
		return nil, fmt.Errorf("line %d after byte %d: %w", pts.line, off, pts.err)
	}
	return ans, nil
}

// checkInput reads the input back from a byte offset of its decompressed
// bytes, one buffer at a time: a plain file from that offset, a gzip file
// from the last member (gzip stream) that starts at or before it (generated
// files are 1 MiB members: the members are found while reading and kept,
// their compressed and decompressed offsets), a zstd file from its start.
// It is used by one goroutine at a time (the checker, then the final round).
type checkInput struct {
	path    string
	members []member // gzip: the members found, in order
}

type member struct{ comp, dec int64 }

func (c *checkInput) open(off int64) (io.ReadCloser, error) {
	f, err := os.Open(c.path)
	if err != nil {
		return nil, err
	}
	var magic [4]byte
	n, _ := io.ReadFull(f, magic[:])
	switch {
	case n >= 2 && magic[0] == 0x1f && magic[1] == 0x8b:
		rd, err := c.openGzip(f, off)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", c.path, err)
		}
		return rd, nil
	case n == 4 && magic == [4]byte{0x28, 0xb5, 0x2f, 0xfd}:
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			f.Close()
			return nil, err
		}
		zr, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
		if err != nil {
			f.Close()
			return nil, err
		}
		if _, err := io.CopyN(io.Discard, zr, off); err != nil {
			zr.Close()
			f.Close()
			return nil, fmt.Errorf("%s: skipping to byte %d: %w", c.path, off, err)
		}
		return readCloser{zr, func() error { zr.Close(); return f.Close() }}, nil
	}
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	return readCloser{bufio.NewReaderSize(f, 64<<10), f.Close}, nil
}

type readCloser struct {
	io.Reader
	close func() error
}

func (r readCloser) Close() error { return r.close() }

// openGzip positions a reader of f's decompressed bytes at off.
func (c *checkInput) openGzip(f *os.File, off int64) (io.ReadCloser, error) {
	m := member{}
	if i, _ := slices.BinarySearchFunc(c.members, off, func(m member, off int64) int { return cmp.Compare(m.dec, off+1) }); i > 0 {
		m = c.members[i-1]
	}
	if _, err := f.Seek(m.comp, io.SeekStart); err != nil {
		return nil, err
	}
	cr := &countReader{r: f, n: m.comp}
	g := &gzipMembers{c: c, f: f, cr: cr, br: bufio.NewReaderSize(cr, 64<<10), dec: m.dec}
	var err error
	if g.zr, err = gzip.NewReader(g.br); err != nil {
		return nil, err
	}
	g.zr.Multistream(false)
	if _, err := io.CopyN(io.Discard, g, off-m.dec); err != nil {
		return nil, fmt.Errorf("skipping to byte %d: %w", off, err)
	}
	return g, nil
}

// gzipMembers reads member after member, noting where each starts.
type gzipMembers struct {
	c   *checkInput
	f   *os.File
	cr  *countReader
	br  *bufio.Reader
	zr  *gzip.Reader
	dec int64 // decompressed bytes before the next Read's
}

func (g *gzipMembers) Read(p []byte) (int, error) {
	for {
		n, err := g.zr.Read(p)
		g.dec += int64(n)
		if err != io.EOF {
			return n, err
		}
		// A member ended: the next starts where the compressed bytes
		// consumed end.
		start := member{comp: g.cr.n - int64(g.br.Buffered()), dec: g.dec}
		if err := g.zr.Reset(g.br); err != nil {
			if err == io.EOF {
				return n, io.EOF
			}
			return n, err
		}
		g.zr.Multistream(false)
		if k := len(g.c.members); k == 0 || g.c.members[k-1].dec < start.dec {
			g.c.members = append(g.c.members, start)
		}
		if n > 0 {
			return n, nil
		}
	}
}

func (g *gzipMembers) Close() error { return g.f.Close() }

type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// ilpPoints reads the rows of q's table from line protocol until a row at
// stop or later (ns) or the end.
type ilpPoints struct {
	dec    *lineprotocol.Decoder
	q      *query.Query
	prefix string
	unit   int64
	stop   int64
	line   int64
	err    error
	// tags and fields are those q reads: the others are not kept.
	tags, fields []string
}

// nameIn is the element of names that k spells, or "".
func nameIn(names []string, k []byte) string {
	for _, n := range names {
		if n == string(k) {
			return n
		}
	}
	return ""
}

func (p *ilpPoints) all(yield func(query.Point) bool) {
	pt := query.Point{Tags: map[string]string{}, Fields: map[string]float64{}}
	for p.dec.Next() {
		p.line++
		m, err := p.dec.Measurement()
		if err != nil {
			p.err = err
			return
		}
		ours := len(m)+len(p.prefix) == len(p.q.Table) && p.prefix+string(m) == p.q.Table
		if ours {
			clear(pt.Tags)
			clear(pt.Fields)
			if err := p.row(&pt); err != nil {
				p.err = err
				return
			}
		}
		t, err := p.dec.Time(lineprotocol.Nanosecond, time.Time{})
		if err != nil {
			p.err = err
			return
		}
		ns := t.UnixNano() * p.unit
		if ns >= p.stop {
			return
		}
		if ours {
			pt.Time = time.Unix(0, ns).UTC()
			if !yield(pt) {
				return
			}
		}
	}
	p.err = p.dec.Err()
}

func (p *ilpPoints) row(pt *query.Point) error {
	for {
		k, v, err := p.dec.NextTag()
		if err != nil {
			return err
		}
		if k == nil {
			break
		}
		if n := nameIn(p.tags, k); n != "" {
			pt.Tags[n] = string(v)
		}
	}
	for {
		k, v, err := p.dec.NextField()
		if err != nil {
			return err
		}
		if k == nil {
			return nil
		}
		n := nameIn(p.fields, k)
		if n == "" {
			continue
		}
		switch v.Kind() {
		case lineprotocol.Float:
			pt.Fields[n] = v.FloatV()
		case lineprotocol.Int:
			pt.Fields[n] = float64(v.IntV())
		case lineprotocol.Uint:
			pt.Fields[n] = float64(v.UintV())
		}
	}
}
