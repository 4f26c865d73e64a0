package split

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/tsload/tsload/pkg/fingerprint"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/format/csv"
	"github.com/tsload/tsload/pkg/format/ilp"
	"github.com/tsload/tsload/pkg/format/pgcopy"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/schema"
)

// Content fingerprints (Checker.FP): the worker that checks a batch also
// adds its rows to a fingerprint.Acc, in the same pass for deferred ILP
// lines, in a pass of its own over the batch otherwise (checked ILP, CSV
// and pgcopy batches). ILP timestamps are added as written (in the input's
// precision, which the loader knows); CSV and pgcopy ones in nanoseconds.

// fpState is a Checker's scratch for fingerprints.
type fpState struct {
	tags   fingerprint.TagSet
	names  map[string]string
	t      *fingerprint.TableAcc
	sc     csv.Scanner
	fields [][]byte
	// last CSV time text and its value
	lastTime []byte
	lastNS   int64
	num      []byte // a binary tag's decimal text
	// series caches the hash of ILP series keys as written (bounded by
	// maxSeriesCache), so a series' later lines cost one map lookup.
	series map[string]uint64
}

// maxSeriesCache bounds fpState.series (about 200 bytes a series).
const maxSeriesCache = 1 << 16

// fpLine adds one checked ILP line (without its line end) to c.FP;
// plain: the plain kernel accepted it.
func (c *Checker) fpLine(l []byte, r ilp.Line, plain bool) {
	s := &c.fp
	if s.names == nil {
		s.names = make(map[string]string)
	}
	raw := l[:r.NameEnd]
	name, ok := s.names[string(raw)]
	if !ok {
		name = ilp.Unescape(raw)
		if len(s.names) < maxInterned {
			s.names[string(raw)] = name
		}
	}
	t := c.FP.Table([]byte(name))
	if c.KeysOnly {
		c.keyLine(t, l, r, plain)
		return
	}
	ts, err := ilp.Fields(l, r, plain, func(key []byte, v ilp.Value) {
		if bytes.IndexByte(key, '\\') >= 0 {
			key = ilp.UnescapeKey(key)
		}
		switch v.Kind {
		case ilp.KindFloat:
			if v.Dec {
				t.Field(key, fingerprint.Float).Decimal(v.Mant, int(v.Exp), v.Neg)
			} else {
				t.Field(key, fingerprint.Float).Float(v.F)
			}
		case ilp.KindInt:
			t.Field(key, fingerprint.Int).Int(v.I)
		case ilp.KindUint:
			t.Field(key, fingerprint.Uint).Uint(v.U)
		case ilp.KindString:
			t.Field(key, fingerprint.String).String(v.Len)
		case ilp.KindBool:
			t.Field(key, fingerprint.Bool).Bool(v.B)
		}
	})
	if err != nil {
		c.FP.Fail(fmt.Sprintf("a value does not decode (%v)", err))
	}
	c.lineRow(t, l, r, ts)
}

// keyLine adds the row of line l to t without its fields (KeysOnly).
func (c *Checker) keyLine(t *fingerprint.TableAcc, l []byte, r ilp.Line, plain bool) {
	c.lineRow(t, l, r, ilp.Timestamp(l, r, plain))
}

// lineRow counts line l's row in t: its series and timestamp ts (as
// written; nil: none).
func (c *Checker) lineRow(t *fingerprint.TableAcc, l []byte, r ilp.Line, ts []byte) {
	series, known := c.seriesOf(t, l[:r.KeyEnd], r.NameEnd)
	if ts == nil {
		t.RowNoTime(series)
		return
	}
	v, ok := ilp.ParseTimestamp(ts)
	if !ok {
		c.FP.Fail(fmt.Sprintf("timestamp %q does not decode", ts))
	}
	if c.ILPUnit > 1 {
		v *= int64(c.ILPUnit)
	}
	if known {
		t.RowKnown(series, v)
	} else {
		t.Row(series, v)
	}
}

// seriesOf hashes the tag section of a series key (",k=v,k=v" or empty):
// as it stands when it has no escapes and its keys are sorted (the
// canonical form, what tsload writes), through a TagSet otherwise.
// known reports a series this Checker's accumulator has been given.
func (c *Checker) seriesOf(t *fingerprint.TableAcc, key []byte, nameEnd int) (h uint64, known bool) {
	if h, ok := c.fp.series[string(key)]; ok {
		return h, true
	}
	if len(key) == nameEnd {
		h = fingerprint.Hash(nil)
	} else {
		h = c.hashSeries(t, key[nameEnd+1:])
	}
	if c.fp.series == nil {
		c.fp.series = make(map[string]uint64)
	}
	if len(c.fp.series) < maxSeriesCache {
		c.fp.series[string(key)] = h
	}
	return h, false
}

func (c *Checker) hashSeries(t *fingerprint.TableAcc, key []byte) uint64 {
	if bytes.IndexByte(key, '\\') < 0 && keysSorted(t, key) {
		return fingerprint.Hash(key)
	}
	s := &c.fp.tags
	s.Reset()
	for len(key) > 0 {
		i := 0
		for i < len(key) && key[i] != '=' {
			if key[i] == '\\' {
				i++
			}
			i++
		}
		k := key[:min(i, len(key))]
		key = key[min(i+1, len(key)):]
		j := 0
		for j < len(key) && key[j] != ',' {
			if key[j] == '\\' {
				j++
			}
			j++
		}
		v := key[:min(j, len(key))]
		key = key[min(j+1, len(key)):]
		k = ilp.UnescapeKey(k)
		t.Tag(k)
		s.Add(k, ilp.UnescapeKey(v))
	}
	return s.Hash()
}

// keysSorted reports whether the keys of k=v,k=v (no escapes) ascend,
// giving each key to t.Tag.
func keysSorted(t *fingerprint.TableAcc, tags []byte) bool {
	var prev []byte
	for len(tags) > 0 {
		e := bytes.IndexByte(tags, '=')
		if e < 0 {
			return false
		}
		k := tags[:e]
		t.Tag(k)
		if prev != nil && bytes.Compare(prev, k) >= 0 {
			return false
		}
		prev = k
		c := bytes.IndexByte(tags[e:], ',')
		if c < 0 {
			return true
		}
		tags = tags[e+c+1:]
	}
	return true
}

// fpBatch adds a checked batch to c.FP in a pass of its own.
func (c *Checker) fpBatch(b *load.Batch) {
	switch b.Format {
	case format.ILP:
		data := b.Data
		for p := 0; p < len(data); {
			i := bytes.IndexByte(data[p:], '\n')
			if i < 0 {
				i = len(data) - p
			}
			l := data[p : p+i]
			if n := len(l); n > 0 && l[n-1] == '\r' {
				l = l[:n-1]
			}
			r, plain := ilp.ScanPlain(l)
			if !plain {
				r = ilp.ScanCareful(l)
			}
			if r.Row && r.Reason == "" {
				c.fpLine(l, r, plain)
			}
			p += i + 1
		}
	case format.PGCopy:
		c.fpPGCopy(b)
	case format.CSV:
		c.fpCSV(b)
	default:
		c.FP.Fail(b.Format.String() + " input is not fingerprinted")
	}
}

// fpPGCopy adds the tuples of a pgcopy batch: the columns' binary values
// (timestamps in microseconds).
func (c *Checker) fpPGCopy(b *load.Batch) {
	tb := b.Table
	if tb == nil {
		c.FP.Fail("a pgcopy batch without its table")
		return
	}
	t := c.FP.Table([]byte(tb.Name))
	s := &c.fp
	for p := 0; p < len(b.Data); {
		var size int
		var err error
		s.fields, size, err = pgcopy.Tuple(s.fields[:0], b.Data[p:], 0)
		if err != nil || len(s.fields) != len(tb.Columns) {
			c.FP.Fail(fmt.Sprintf("%s: a tuple the fingerprint cannot read", b.Where()))
			return
		}
		p += size
		s.tags.Reset()
		var ns int64
		hasTime := false
		for i, col := range tb.Columns {
			v := s.fields[i]
			if v == nil {
				continue // NULL
			}
			if col.Tag && i > 0 {
				t.Tag([]byte(col.Name))
				s.tags.Add([]byte(col.Name), pgTagText(s.num[:0], col.Type, v))
				continue
			}
			switch col.Type {
			case schema.Timestamp:
				if i == 0 && len(v) == 8 {
					ns, hasTime = (int64(binary.BigEndian.Uint64(v))+pgcopy.PostgresEpochMicros)*1000, true
				}
			case schema.Text:
				t.Field([]byte(col.Name), fingerprint.String).String(len(v))
			case schema.Float8:
				t.Field([]byte(col.Name), fingerprint.Float).Float(math.Float64frombits(binary.BigEndian.Uint64(v)))
			case schema.Float4:
				t.Field([]byte(col.Name), fingerprint.Float).Float(float64(math.Float32frombits(binary.BigEndian.Uint32(v))))
			case schema.Int8:
				t.Field([]byte(col.Name), fingerprint.Int).Int(int64(binary.BigEndian.Uint64(v)))
			case schema.Int4:
				t.Field([]byte(col.Name), fingerprint.Int).Int(int64(int32(binary.BigEndian.Uint32(v))))
			}
		}
		if hasTime {
			t.Row(s.tags.Hash(), ns)
		} else {
			t.RowNoTime(s.tags.Hash())
		}
	}
}

// fpCSV adds the records of a CSV batch, by the table's column types
// (an empty unquoted field is a NULL).
func (c *Checker) fpCSV(b *load.Batch) {
	tb := b.Table
	if c.Loaded != nil && tb != nil {
		tb = c.Loaded(tb)
	}
	if tb == nil {
		c.FP.Fail("a CSV batch without its table")
		return
	}
	t := c.FP.Table([]byte(tb.Name))
	s := &c.fp
	s.sc.Spans = true
	timeCol := 0
	if c.TimeColumn != "" {
		timeCol = slices.Index(tb.ColumnNames(), c.TimeColumn)
	}
	data := b.Data
	for off := 0; off < len(data); {
		s.sc.Reset()
		rec := data[off:]
		if !s.sc.Scan(rec) || s.sc.N != len(tb.Columns) {
			c.FP.Fail(fmt.Sprintf("%s: a record the fingerprint cannot read", b.Where()))
			return
		}
		s.tags.Reset()
		hasTime, hasField := false, false
		var ns int64
		for i, col := range tb.Columns {
			f := s.sc.Fields[i]
			if f.Empty() {
				continue
			}
			text := rec[f.Start:f.End]
			if f.Quoted {
				text = []byte(f.Value(rec))
			}
			if i == timeCol && (col.Type == schema.Timestamp || c.TimeUnit > 0) {
				if !bytes.Equal(text, s.lastTime) {
					tns, err := csv.ParseTime(text, c.TimeUnit)
					if err != nil {
						c.FP.Fail(fmt.Sprintf("%s: time %q does not decode (%v)", b.Where(), text, err))
						return
					}
					s.lastTime, s.lastNS = append(s.lastTime[:0], text...), tns
				}
				ns, hasTime = s.lastNS, true
				continue
			}
			if col.Tag && i != timeCol {
				t.Tag([]byte(col.Name))
				s.tags.Add([]byte(col.Name), text)
				continue
			}
			if col.Type != schema.Timestamp {
				hasField = true
			}
			switch col.Type {
			case schema.Timestamp:
				continue
			case schema.Text:
				t.Field([]byte(col.Name), fingerprint.String).String(len(text))
			case schema.Float8, schema.Float4:
				v, ok := ilp.ParseFloat(text)
				if !ok {
					c.FP.Fail(fmt.Sprintf("%s: value %q of %s does not decode", b.Where(), text, col.Name))
					return
				}
				t.Field([]byte(col.Name), fingerprint.Float).Float(v)
			case schema.Int8, schema.Int4:
				v, ok := ilp.ParseInt(text)
				if !ok {
					c.FP.Fail(fmt.Sprintf("%s: value %q of %s does not decode", b.Where(), text, col.Name))
					return
				}
				t.Field([]byte(col.Name), fingerprint.Int).Int(v)
			}
		}
		switch {
		case !hasField && c.NoValueSkipped:
		case hasTime:
			t.Row(s.tags.Hash(), ns)
		default:
			t.RowNoTime(s.tags.Hash())
		}
		next := off + s.sc.End + 1
		if rec[s.sc.End] == '\r' {
			next++
		}
		off = next
	}
}

// pgTagText is a pgcopy tag's value as ILP writes it: text as it is, an
// integer (weather's location_id) in decimal.
func pgTagText(dst []byte, t schema.Type, v []byte) []byte {
	switch {
	case t == schema.Int4 && len(v) == 4:
		return strconv.AppendInt(dst, int64(int32(binary.BigEndian.Uint32(v))), 10)
	case t == schema.Int8 && len(v) == 8:
		return strconv.AppendInt(dst, int64(binary.BigEndian.Uint64(v)), 10)
	}
	return v
}

// FingerprintFile reads the file at path as a loader does (one worker)
// and returns its content fingerprint, for a dataset description
// (generate_data --fingerprint). ILP timestamps are taken as nanoseconds.
func FingerprintFile(path string, lookup func(string) *schema.Table) (*fingerprint.Acc, error) {
	in, err := Open(path, nil, 0)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	sp, err := New(in, Config{DeferChecks: true, Lookup: lookup})
	if err != nil {
		return nil, err
	}
	chk := Checker{FP: fingerprint.NewAcc(fingerprint.Options{})}
	var b load.Batch
	for {
		_, err := sp.Next(&b)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		_, err = chk.Check(&b, false)
		b.Release()
		if err != nil {
			return nil, err
		}
	}
	if f := chk.FP.Failed(); f != "" {
		return nil, fmt.Errorf("%s: %s", path, f)
	}
	return chk.FP, nil
}
