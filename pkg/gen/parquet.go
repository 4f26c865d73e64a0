package gen

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/format/parquet"
	"github.com/tsload/tsload/pkg/format/pgcopy"
	"github.com/tsload/tsload/pkg/schema"
)

// Parquet output: the workers encode their units as COPY tuples (the
// typed binary rows the pgcopy encoder writes, without a header), and the
// writer turns the tuples, in output order, into a Parquet file per table
// (pkg/format/parquet's Writer). The rows reach the Parquet writer in the
// same order for any worker count, so the bytes are the same too.

// checkParquet refuses what Parquet output cannot be.
func (c *Config) checkParquet(tables int) error {
	if c.Format != format.Parquet {
		if c.RowGroupRows != 0 {
			return errors.New("rows per row group: Parquet output only")
		}
		return nil
	}
	switch {
	case c.Gzip || c.Zstd:
		return errors.New("Parquet output is not compressed as a whole: it compresses its pages itself (Snappy)")
	case tables > 1 && c.OutDir == "":
		return fmt.Errorf("use case %s has %d tables and a Parquet file holds one: write one file per table (an output directory)", c.UseCase, tables)
	case c.RowGroupRows < 0:
		return fmt.Errorf("rows per row group %d: must be positive", c.RowGroupRows)
	}
	return nil
}

// tupleEncoder writes COPY tuples only: the Parquet writer's input.
type tupleEncoder struct{ *pgcopy.Encoder }

func (tupleEncoder) StreamHeader(dst []byte) []byte { return dst }

func (tupleEncoder) StreamTrailer(dst []byte) []byte { return dst }

func newTupleEncoder(tables []*schema.Table) (format.Encoder, error) {
	if len(tables) != 1 {
		return nil, fmt.Errorf("a Parquet file holds one table, not %d", len(tables))
	}
	e, err := pgcopy.New(tables, false)
	if err != nil {
		return nil, err
	}
	return tupleEncoder{e}, nil
}

// wrapParquet makes every output a Parquet writer of its table.
func wrapParquet(cfg *Config, outs []*output, tables []*schema.Table) error {
	if cfg.Format != format.Parquet {
		return nil
	}
	for i, o := range outs {
		pw, err := parquet.NewWriter(o.w, tables[i], cfg.RowGroupRows)
		if err != nil {
			return err
		}
		infos, err := format.Describe(tables[i : i+1])
		if err != nil {
			return err
		}
		s := &tupleSink{pw: pw, info: infos[0]}
		s.row.Tags = make([][]byte, len(s.info.TagCols))
		s.row.TagInt = make([]int64, len(s.info.TagCols))
		s.row.Float = make([]float64, len(s.info.FieldCols))
		s.row.Int = make([]int64, len(s.info.FieldCols))
		flush := o.flush
		o.w = s
		o.flush = func() error {
			if err := s.close(); err != nil {
				return err
			}
			return flush()
		}
	}
	return nil
}

// tupleSink takes COPY tuples (cut anywhere) and writes their rows.
type tupleSink struct {
	pw      *parquet.Writer
	info    format.TableInfo
	pending []byte
	fields  [][]byte
	row     format.Row
	closed  bool
}

func (s *tupleSink) Write(p []byte) (int, error) {
	b := p
	if len(s.pending) > 0 {
		s.pending = append(s.pending, p...)
		b = s.pending
	}
	off := 0
	for off < len(b) {
		fields, n, err := pgcopy.Tuple(s.fields[:0], b[off:], 0)
		var short *pgcopy.ShortError
		if errors.As(err, &short) {
			break
		}
		if err != nil {
			return 0, err
		}
		s.fields = fields
		if err := s.writeTuple(fields); err != nil {
			return 0, err
		}
		off += n
	}
	s.pending = append(s.pending[:0], b[off:]...)
	return len(p), nil
}

// writeTuple decodes one tuple of the table's columns into a Row.
func (s *tupleSink) writeTuple(f [][]byte) error {
	ti := &s.info
	if len(f) != len(ti.Columns) || len(f[0]) != 8 {
		return fmt.Errorf("internal: tuple of %d fields for table %s", len(f), ti.Name)
	}
	be := binary.BigEndian
	s.row.Time = (int64(be.Uint64(f[0])) + pgcopy.PostgresEpochMicros) * 1000
	for i, c := range ti.TagCols {
		v := f[1+i]
		s.row.Tags[i] = v
		switch {
		case v == nil:
		case c.Type == schema.Int4:
			s.row.TagInt[i] = int64(int32(be.Uint32(v)))
		case c.Type == schema.Int8:
			s.row.TagInt[i] = int64(be.Uint64(v))
		}
	}
	s.row.Null = 0
	for i, c := range ti.FieldCols {
		v := f[1+len(ti.TagCols)+i]
		if v == nil {
			s.row.Null |= 1 << i
			continue
		}
		switch c.Type {
		case schema.Float8:
			s.row.Float[i] = math.Float64frombits(be.Uint64(v))
		case schema.Float4:
			s.row.Float[i] = float64(math.Float32frombits(be.Uint32(v)))
		case schema.Int8:
			s.row.Int[i] = int64(be.Uint64(v))
		case schema.Int4:
			s.row.Int[i] = int64(int32(be.Uint32(v)))
		}
	}
	return s.pw.WriteRow(&s.row)
}

func (s *tupleSink) close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	if len(s.pending) > 0 {
		return fmt.Errorf("internal: %d bytes of a tuple left", len(s.pending))
	}
	return s.pw.Close()
}

var _ io.Writer = (*tupleSink)(nil)
