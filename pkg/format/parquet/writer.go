package parquet

import (
	"fmt"
	"io"

	pq "github.com/parquet-go/parquet-go"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/schema"
)

// Writer writes the rows of one table as a Parquet file: the time as a
// required TIMESTAMP(MICROS, UTC) (as PostgreSQL keeps it), tags as
// optional dictionary-encoded STRINGs, fields as optional DOUBLE (float8),
// FLOAT (float4), INT64 (int8) or INT32 (int4); pages Snappy-compressed;
// a row group every RowGroupRows rows. The bytes depend only on the rows
// written (Parquet writers sort a group's columns by name: Open puts a
// known table's columns back in its order).
type Writer struct {
	w     *pq.Writer
	info  format.TableInfo
	leaf  []int      // the leaf column of each table column
	vals  []pq.Value // the values of the rows in batch
	text  []byte     // their tag bytes (the caller's are reused)
	spans []span     // where each tag value is in text
	batch []pq.Row
}

// span is a tag value of the rows held: row[col] is text[start:end].
type span struct{ row, col, start, end int }

// writeBatch is how many rows are handed to the library at once.
const writeBatch = 256

// DefaultRowGroupRows is the rows of a row group when none is given.
const DefaultRowGroupRows = 1 << 20

// NewWriter returns a Writer of table t's rows to w, a row group every
// rowGroupRows rows (<= 0: DefaultRowGroupRows).
func NewWriter(w io.Writer, t *schema.Table, rowGroupRows int64) (*Writer, error) {
	infos, err := format.Describe([]*schema.Table{t})
	if err != nil {
		return nil, err
	}
	if rowGroupRows <= 0 {
		rowGroupRows = DefaultRowGroupRows
	}
	g := pq.Group{}
	for i, c := range t.Columns {
		var n pq.Node
		switch c.Type {
		case schema.Timestamp:
			if i != 0 {
				return nil, fmt.Errorf("table %s: column %s: a second timestamp", t.Name, c.Name)
			}
			n = pq.Timestamp(pq.Microsecond)
		case schema.Text:
			n = pq.Optional(pq.Encoded(pq.String(), &pq.RLEDictionary))
		case schema.Float8:
			n = pq.Optional(pq.Leaf(pq.DoubleType))
		case schema.Float4:
			n = pq.Optional(pq.Leaf(pq.FloatType))
		case schema.Int8:
			n = pq.Optional(pq.Int(64))
		case schema.Int4:
			n = pq.Optional(pq.Int(32))
		default:
			return nil, fmt.Errorf("table %s: column %s: type %s has no Parquet type here", t.Name, c.Name, c.Type)
		}
		g[c.Name] = n
	}
	sc := pq.NewSchema(t.Name, g)
	pw := &Writer{info: infos[0], batch: make([]pq.Row, 0, writeBatch),
		vals: make([]pq.Value, 0, writeBatch*len(t.Columns))}
	for _, c := range t.Columns {
		lc, ok := sc.Lookup(c.Name)
		if !ok {
			return nil, fmt.Errorf("table %s: column %s not in its Parquet schema", t.Name, c.Name)
		}
		pw.leaf = append(pw.leaf, lc.ColumnIndex)
	}
	pw.w = pq.NewWriter(w, sc, pq.MaxRowsPerRowGroup(rowGroupRows), pq.Compression(&pq.Snappy),
		pq.CreatedBy("tsload", "", ""), pq.PageBufferSize(256<<10))
	return pw, nil
}

// WriteRow writes one row (Table is ignored: the Writer has one table).
func (pw *Writer) WriteRow(r *format.Row) error {
	at := len(pw.vals)
	pw.vals = pw.vals[:at+len(pw.leaf)]
	row := pq.Row(pw.vals[at : at+len(pw.leaf) : at+len(pw.leaf)])
	ti := &pw.info
	us := r.Time / 1000
	if r.Time%1000 < 0 {
		us-- // toward negative infinity, as COPY does
	}
	row[pw.leaf[0]] = pq.Int64Value(us).Level(0, 0, pw.leaf[0])
	for i, c := range ti.TagCols {
		col := pw.leaf[1+i]
		if r.Tags[i] == nil {
			row[col] = pq.NullValue().Level(0, 0, col)
			continue
		}
		switch c.Type {
		case schema.Int4:
			row[col] = pq.Int32Value(int32(r.TagInt[i])).Level(0, 1, col)
			continue
		case schema.Int8:
			row[col] = pq.Int64Value(r.TagInt[i]).Level(0, 1, col)
			continue
		}
		start := len(pw.text)
		pw.text = append(pw.text, r.Tags[i]...)
		pw.spans = append(pw.spans, span{len(pw.batch), col, start, len(pw.text)})
	}
	for i, c := range ti.FieldCols {
		col := pw.leaf[1+len(ti.TagCols)+i]
		if r.Null&(1<<i) != 0 {
			row[col] = pq.NullValue().Level(0, 0, col)
			continue
		}
		var v pq.Value
		switch c.Type {
		case schema.Float8:
			v = pq.DoubleValue(r.Float[i])
		case schema.Float4:
			v = pq.FloatValue(float32(r.Float[i]))
		case schema.Int8:
			v = pq.Int64Value(r.Int[i])
		case schema.Int4:
			v = pq.Int32Value(int32(r.Int[i]))
		}
		row[col] = v.Level(0, 1, col)
	}
	pw.batch = append(pw.batch, row)
	if len(pw.batch) == writeBatch {
		return pw.flushRows()
	}
	return nil
}

func (pw *Writer) flushRows() error {
	if len(pw.batch) == 0 {
		return nil
	}
	// The tag values point into pw.text only now that no append can
	// move it.
	for _, sp := range pw.spans {
		pw.batch[sp.row][sp.col] = pq.ByteArrayValue(pw.text[sp.start:sp.end:sp.end]).Level(0, 1, sp.col)
	}
	_, err := pw.w.WriteRows(pw.batch)
	pw.batch, pw.vals, pw.text, pw.spans = pw.batch[:0], pw.vals[:0], pw.text[:0], pw.spans[:0]
	return err
}

// Close writes the rows held and the footer; it does not close the
// underlying writer.
func (pw *Writer) Close() error {
	if err := pw.flushRows(); err != nil {
		return err
	}
	return pw.w.Close()
}
