package contentq

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/tsload/tsload/pkg/fingerprint"
)

// Plan is one table's content query in the SQL of Apache DataFusion, which
// CnosDB 2.x and InfluxDB 3 are built on, and how to read its one row.
//
// What DataFusion computes (checked on CnosDB 2.4.2 and InfluxDB 3 Core
// 3.6.0): count(DISTINCT struct(tags...)) counts distinct tag sets exactly,
// a missing (NULL) tag being a value of its own; sum over BIGINT wraps
// around silently (two int64 maxima and -5 sum to -7), so integers are
// summed as DECIMAL(38,0), exact to 10^38, and read as text (the JSON
// writers refuse decimals); floats are summed in float64 in the order the
// scan meets them; octet_length is a string's length in bytes.
type Plan struct {
	SQL     string
	q       fingerprint.Query
	stored  []fingerprint.Kind // per field of q: the kind the database stores, 0 when no such column
	tags    int                // tags of q that are columns
	tagCols []string           // and those, quoted
	quote   func(string) string
}

// Opaque is the kind of a column that is there but of a type content
// verification does not aggregate: its field comes back with Count -1.
const Opaque fingerprint.Kind = 255

// DataFusion plans q on a table whose columns and their stored kinds are
// cols (tags as String, Opaque for a type not aggregated; the time column
// need not be there). quote quotes an identifier the database's way.
func DataFusion(q fingerprint.Query, cols map[string]fingerprint.Kind, quote func(string) string) *Plan {
	p := &Plan{q: q}
	tm := q.Time
	if tm == "" {
		tm = "time"
	}
	sel := []string{"count(*) AS n", "CAST(min(" + quote(tm) + ") AS BIGINT) AS lo", "CAST(max(" + quote(tm) + ") AS BIGINT) AS hi"}
	var tags []string
	for _, t := range q.Tags {
		if _, ok := cols[t]; ok {
			tags = append(tags, quote(t))
		}
	}
	p.tags = len(tags)
	if len(tags) > 0 {
		sel = append(sel, "count(DISTINCT struct("+strings.Join(tags, ", ")+")) AS s")
	}
	for i, f := range q.Fields {
		k := cols[f.Name]
		p.stored = append(p.stored, k)
		if k == 0 || k == Opaque {
			continue
		}
		c := quote(f.Name)
		n := strconv.Itoa(i)
		sel = append(sel, "count("+c+") AS c"+n)
		switch k {
		case fingerprint.Float:
			sel = append(sel, "sum("+c+") AS s"+n, "sum(abs("+c+")) AS a"+n)
		case fingerprint.Int, fingerprint.Uint:
			sel = append(sel, "CAST(sum(CAST("+c+" AS DECIMAL(38,0))) AS VARCHAR) AS s"+n)
		case fingerprint.String:
			sel = append(sel, "sum(octet_length("+c+")) AS l"+n)
		case fingerprint.Bool:
			sel = append(sel, "sum(CASE WHEN "+c+" THEN 1 ELSE 0 END) AS t"+n)
		}
	}
	p.SQL = "SELECT " + strings.Join(sel, ", ") + " FROM " + quote(q.Table)
	p.quote, p.tagCols = quote, tags
	return p
}

// Where is the plan's query over the rows that match cond only.
func (p *Plan) Where(cond string) string { return p.SQL + " WHERE " + cond }

// SeriesSQL is the query of the distinct tag sets of the rows that match
// cond ("" when the table has none of the query's tags as columns): for
// counting series over parts of a table that cannot be read at once.
func (p *Plan) SeriesSQL(cond string) string {
	if len(p.tagCols) == 0 {
		return ""
	}
	return "SELECT DISTINCT " + strings.Join(p.tagCols, ", ") + " FROM " + p.quote(p.q.Table) + " WHERE " + cond
}

// Add adds part, the fingerprint of some of a table's rows, to t, the
// fingerprint of others (both read by the same plan): counts and sums add,
// the time range widens. Series do not add: the caller counts them.
func Add(t, part *fingerprint.Table) {
	if part.Rows > 0 {
		if t.Rows == 0 || part.MinTime < t.MinTime {
			t.MinTime = part.MinTime
		}
		if t.Rows == 0 || part.MaxTime > t.MaxTime {
			t.MaxTime = part.MaxTime
		}
	}
	t.Rows += part.Rows
	for i := range t.Fields {
		f, o := &t.Fields[i], &part.Fields[i]
		if f.Count < 0 || o.Count < 0 {
			f.Count = -1
			continue
		}
		f.Count += o.Count
		f.Sum += o.Sum
		f.AbsSum += o.AbsSum
		f.IntSum = f.IntSum.Add(o.IntSum)
		if f.Len >= 0 && o.Len >= 0 {
			f.Len += o.Len
		} else {
			f.Len = -1
		}
		f.True += o.True
	}
}

// Read turns the query's one row (JSON numbers as json.Number, NULLs
// absent or nil) into the table's fingerprint.
func (p *Plan) Read(row map[string]any) (*fingerprint.Table, error) {
	t := &fingerprint.Table{Name: p.q.Table, SeriesExact: true}
	var err error
	get := func(key string) int64 {
		v, e := Int64(row[key])
		if e != nil && err == nil {
			err = fmt.Errorf("%s: %v", key, e)
		}
		return v
	}
	getF := func(key string) float64 {
		v, e := Float64(row[key])
		if e != nil && err == nil {
			err = fmt.Errorf("%s: %v", key, e)
		}
		return v
	}
	t.Rows = get("n")
	if t.Rows > 0 {
		t.MinTime, t.MaxTime = get("lo"), get("hi")
	}
	if p.tags > 0 {
		t.Series = get("s")
	} else {
		t.Series = NoTagSeries(t.Rows)
	}
	for i, f := range p.q.Fields {
		n := strconv.Itoa(i)
		k := p.stored[i]
		out := fingerprint.Field{Name: f.Name, Kind: f.Kind}
		switch k {
		case 0: // no such column: no values
		case Opaque:
			out.Count = -1
		default:
			out.Kind = k
			out.Count = get("c" + n)
		}
		switch k {
		case fingerprint.Float:
			out.Sum, out.AbsSum = getF("s"+n), getF("a"+n)
		case fingerprint.Int, fingerprint.Uint:
			if s, ok := row["s"+n].(string); ok {
				x, e := ParseInt128(s)
				if e != nil && err == nil {
					err = e
				}
				out.IntSum = x
			}
		case fingerprint.String:
			out.Len = get("l" + n)
		case fingerprint.Bool:
			out.True = get("t" + n)
		}
		t.Fields = append(t.Fields, out)
	}
	if err != nil {
		return nil, fmt.Errorf("content of %s: %w", p.q.Table, err)
	}
	return t, nil
}

// Int64 reads a JSON integer (json.Number, float64 or a decimal string);
// nil (SQL NULL) is 0.
func Int64(v any) (int64, error) {
	switch x := v.(type) {
	case nil:
		return 0, nil
	case json.Number:
		return strconv.ParseInt(string(x), 10, 64)
	case string:
		return strconv.ParseInt(x, 10, 64)
	case float64:
		return int64(x), nil
	}
	return 0, fmt.Errorf("unexpected value %v (%T)", v, v)
}

// Float64 reads a JSON number (json.Number, float64, or a string such as
// "NaN"); nil (SQL NULL) is 0.
func Float64(v any) (float64, error) {
	switch x := v.(type) {
	case nil:
		return 0, nil
	case json.Number:
		return strconv.ParseFloat(string(x), 64)
	case string:
		return strconv.ParseFloat(x, 64)
	case float64:
		return x, nil
	}
	return 0, fmt.Errorf("unexpected value %v (%T)", v, v)
}
