package timescale

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/influxdata/line-protocol/v2/lineprotocol"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/schema"
	"github.com/tsload/tsload/pkg/usecase"
)

// testRow is one generated row: vals[i] is column i's value (nil = NULL):
// time.Time, string, float64, float32, int64, int32 or bool.
type testRow struct {
	t    *schema.Table
	vals []any
}

var testBase = time.Date(2016, 1, 1, 0, 0, 0, 0, time.UTC)

// genRows makes n rows of table t: host h = i % hosts at time base+(i/hosts)*10s,
// so (time, first tag) is unique. Every 17th row has a NULL field. The first
// tag of host 1 carries a comma and a quote (CSV quoting).
func genRows(t *schema.Table, n, hosts int, seed uint64) []testRow {
	r := rand.New(rand.NewPCG(seed, 7))
	rows := make([]testRow, n)
	for i := range rows {
		vals := make([]any, len(t.Columns))
		vals[0] = testBase.Add(time.Duration(i/hosts) * 10 * time.Second)
		h := i % hosts
		for c := 1; c < len(t.Columns); c++ {
			col := t.Columns[c]
			if col.Tag {
				switch col.Type {
				case schema.Text:
					if h == 1 && c == firstTag(t) {
						vals[c] = `host_1,"quoted"`
					} else {
						vals[c] = fmt.Sprintf("%s_%d", col.Name, h)
					}
				case schema.Int4:
					vals[c] = int32(h)
				}
				continue
			}
			if i%17 == 3 && c == len(t.Columns)-1 {
				continue // NULL
			}
			switch col.Type {
			case schema.Float8:
				vals[c] = math.Round(r.Float64()*10000) / 100
			case schema.Float4:
				vals[c] = float32(math.Round(r.Float64()*1000) / 10)
			case schema.Int8:
				vals[c] = r.Int64N(1 << 40)
			case schema.Int4:
				vals[c] = int32(r.IntN(1 << 20))
			case schema.Text:
				vals[c] = fmt.Sprintf("s%d", r.IntN(100))
			case typeBool:
				vals[c] = r.IntN(2) == 1
			}
		}
		rows[i] = testRow{t: t, vals: vals}
	}
	return rows
}

func firstTag(t *schema.Table) int {
	for i, c := range t.Columns {
		if c.Tag {
			return i
		}
	}
	return -1
}

// field encodes v in COPY binary (nil for NULL).
func binField(v any) []byte {
	switch x := v.(type) {
	case nil:
		return nil
	case time.Time:
		return binary.BigEndian.AppendUint64(nil, uint64(unixNanosToPG(x.UnixNano())))
	case string:
		return []byte(x)
	case float64:
		return binary.BigEndian.AppendUint64(nil, math.Float64bits(x))
	case float32:
		return binary.BigEndian.AppendUint32(nil, math.Float32bits(x))
	case int64:
		return binary.BigEndian.AppendUint64(nil, uint64(x))
	case int32:
		return binary.BigEndian.AppendUint32(nil, uint32(x))
	case bool:
		return appendBool(nil, x)
	}
	panic(fmt.Sprintf("type %T", v))
}

func pgcopyTuples(rows []testRow) []byte {
	var out []byte
	fields := [][]byte{}
	for _, r := range rows {
		fields = fields[:0]
		for _, v := range r.vals {
			fields = append(fields, binField(v))
		}
		out = appendTuple(out, fields)
	}
	return out
}

func csvText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case string:
		if x == "" || strings.ContainsAny(x, ",\"\r\n") {
			return `"` + strings.ReplaceAll(x, `"`, `""`) + `"`
		}
		return x
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case float32:
		return strconv.FormatFloat(float64(x), 'g', -1, 32)
	}
	return fmt.Sprint(v)
}

func csvRecords(rows []testRow) []byte {
	var b strings.Builder
	for _, r := range rows {
		for i, v := range r.vals {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(csvText(v))
		}
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

func ilpLines(tb testing.TB, rows []testRow) []byte {
	var enc lineprotocol.Encoder
	enc.SetPrecision(lineprotocol.Nanosecond)
	for _, r := range rows {
		enc.StartLine(r.t.Name)
		type kv struct {
			k string
			v string
		}
		var tags []kv
		for i, c := range r.t.Columns {
			if c.Tag && r.vals[i] != nil {
				tags = append(tags, kv{c.Name, fmt.Sprint(r.vals[i])})
			}
		}
		sort.Slice(tags, func(i, j int) bool { return tags[i].k < tags[j].k })
		for _, t := range tags {
			enc.AddTag(t.k, t.v)
		}
		for i, c := range r.t.Columns {
			if i == 0 || c.Tag || r.vals[i] == nil {
				continue
			}
			var v lineprotocol.Value
			switch x := r.vals[i].(type) {
			case float32:
				v, _ = lineprotocol.FloatValue(float64(x))
			default:
				var ok bool
				if v, ok = lineprotocol.NewValue(x); !ok {
					tb.Fatalf("no ILP value for %T", x)
				}
			}
			enc.AddField(c.Name, v)
		}
		enc.EndLine(r.vals[0].(time.Time))
	}
	if err := enc.Err(); err != nil {
		tb.Fatal(err)
	}
	return enc.Bytes()
}

// makeBatches cuts rows (all of one table for csv/pgcopy) into batches.
func makeBatches(tb testing.TB, f format.Format, rows []testRow, size int) []*load.Batch {
	var out []*load.Batch
	for i := 0; i < len(rows); i += size {
		j := min(i+size, len(rows))
		part := rows[i:j]
		b := &load.Batch{Format: f, Rows: len(part), Source: "gen." + f.String(), FirstRecord: int64(i + 1), FirstLine: int64(i + 1), Seq: int64(len(out) + 1)}
		counts := map[string]int64{}
		var names []string
		for _, r := range part {
			if counts[r.t.Name] == 0 {
				names = append(names, r.t.Name)
			}
			counts[r.t.Name]++
			for c, v := range r.vals {
				if c > 0 && !r.t.Columns[c].Tag && v != nil {
					b.Metrics++
				}
			}
		}
		for _, n := range names {
			b.Tables = append(b.Tables, load.TableRows{Name: n, Rows: counts[n]})
		}
		switch f {
		case format.PGCopy:
			b.Table = part[0].t
			b.Data = pgcopyTuples(part)
		case format.CSV:
			b.Table = part[0].t
			b.Data = csvRecords(part)
		case format.ILP:
			b.Data = ilpLines(tb, part)
		}
		out = append(out, b)
	}
	return out
}

func cpuTable() *schema.Table { return usecase.LookupTable("cpu") }
