package split

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/tsload/tsload/pkg/format/pgcopy"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/schema"
	"github.com/tsload/tsload/pkg/usecase"
)

// splitAll splits data (named source) and returns deep copies of the
// batches and their parts.
func splitAll(source string, data []byte, cfg Config) ([]load.Batch, []int, *Splitter, error) {
	if cfg.Lookup == nil {
		cfg.Lookup = usecase.LookupTable
	}
	in, err := NewInput(source, bytes.NewReader(data), int64(len(data)), cfg.MaxRecordBytes)
	if err != nil {
		return nil, nil, nil, err
	}
	sp, err := New(in, cfg)
	if err != nil {
		return nil, nil, nil, err
	}
	var out []load.Batch
	var parts []int
	var b load.Batch
	for {
		part, err := sp.Next(&b)
		if err == io.EOF {
			return out, parts, sp, nil
		}
		if err != nil {
			return out, parts, sp, err
		}
		c := b
		c.Data, c.Hold = append([]byte(nil), b.Data...), nil
		c.Tables = append([]load.TableRows(nil), b.Tables...)
		out = append(out, c)
		parts = append(parts, part)
	}
}

func gz(b ...[]byte) []byte {
	var out bytes.Buffer
	w := gzip.NewWriter(&out) // reused: a new writer per member is costly
	for _, m := range b {
		w.Reset(&out)
		w.Write(m)
		w.Close()
	}
	return out.Bytes()
}

// pgTuple encodes one tuple; a nil field is NULL.
func pgTuple(fields ...[]byte) []byte { return pgcopy.AppendTuple(nil, fields...) }

func pgHeader() []byte {
	return append(append([]byte(nil), pgcopyMagic...), 0, 0, 0, 0, 0, 0, 0, 0)
}

func pgFile(tuples ...[]byte) []byte {
	out := pgHeader()
	for _, t := range tuples {
		out = append(out, t...)
	}
	return append(out, 0xff, 0xff)
}

// rowFor encodes a row of table t: time, tags "<tag>", fields 8 bytes each;
// nulls lists NULL column indexes.
func rowFor(t *schema.Table, tag string, nulls ...int) []byte {
	f := make([][]byte, len(t.Columns))
	for i, c := range t.Columns {
		switch {
		case c.Tag:
			f[i] = []byte(tag)
		case c.Type == schema.Int4 || c.Type == schema.Float4:
			f[i] = []byte{0, 0, 0, 1}
		default:
			f[i] = []byte{0, 0, 0, 0, 0, 0, 0, byte(i)}
		}
	}
	for _, n := range nulls {
		f[n] = nil
	}
	return pgTuple(f...)
}

// tslHeader encodes a multi-table pgcopy header.
func tslHeader(tables ...*schema.Table) []byte {
	out := append([]byte(nil), tslcopyMagic...)
	out = binary.BigEndian.AppendUint16(out, uint16(len(tables)))
	for _, t := range tables {
		out = binary.BigEndian.AppendUint16(out, uint16(len(t.Name)))
		out = append(out, t.Name...)
		out = binary.BigEndian.AppendUint16(out, uint16(len(t.Columns)))
		for _, c := range t.Columns {
			out = binary.BigEndian.AppendUint16(out, uint16(len(c.Name)))
			out = append(out, c.Name...)
			flags := byte(0)
			if c.Tag {
				flags = 1
			}
			out = append(out, byte(c.Type), flags)
		}
	}
	return out
}

func tslFrame(idx int, tuples ...[]byte) []byte {
	var payload []byte
	for _, t := range tuples {
		payload = append(payload, t...)
	}
	out := binary.BigEndian.AppendUint16(nil, uint16(idx))
	out = binary.BigEndian.AppendUint32(out, uint32(len(payload)))
	return append(out, payload...)
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func mustTable(t testing.TB, name string) *schema.Table {
	t.Helper()
	tb := usecase.LookupTable(name)
	if tb == nil {
		t.Fatalf("no table %s", name)
	}
	return tb
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

var _ = errors.New
