package contentq

import (
	"encoding/json"
	"fmt"
	"math/big"
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
// scan meets them; octet_length is a string's length in bytes. Numeric
// fields' min and max: floats as JSON numbers (shortest round-trip text),
// integers as text (exact for any int64 or uint64).
type Plan struct {
	SQL     string
	q       fingerprint.Query
	stored  []fingerprint.Kind // per field of q: the kind the database stores, 0 when no such column
	tags    int                // tags of q that are columns
	tagCols []string           // and those, quoted
	quote   func(string) string
	grouped bool
	flat    []string // flat: the select list
	inner   []string // grouped: the per tag set aggregates and
	outer   []string // their sums
}

// Opaque is the kind of a column that is there but of a type content
// verification does not aggregate: its field comes back with Count -1.
const Opaque fingerprint.Kind = 255

// DataFusion plans q on a table whose columns and their stored kinds are
// cols (tags as String, Opaque for a type not aggregated; the time column
// need not be there). quote quotes an identifier the database's way.
//
// grouped asks for the aggregates per tag set (GROUP BY the tags), added
// up by an outer query whose count(*) is the series, instead of one
// aggregate with count(DISTINCT struct(tags)): InfluxDB 3.6.0 gave up on
// the latter at 1M rows of 1,000 series ("Resources exhausted": 2.3 GB in
// an aggregate that cannot spill), while CnosDB 2.4.2 answers it faster.
func DataFusion(q fingerprint.Query, cols map[string]fingerprint.Kind, quote func(string) string, grouped bool) *Plan {
	p := &Plan{q: q, quote: quote, grouped: grouped}
	// add selects flat AS alias, or (grouped) inner AS alias in the inner
	// query and outer ($ for the alias) in the outer one.
	add := func(alias, flat, inner, outer string) {
		p.flat = append(p.flat, flat+" AS "+alias)
		p.inner = append(p.inner, inner+" AS "+alias)
		p.outer = append(p.outer, strings.ReplaceAll(outer, "$", alias)+" AS "+alias)
	}
	sum := func(alias, expr string) { add(alias, "sum("+expr+")", "sum("+expr+")", "sum($)") }
	tm := q.Time
	if tm == "" {
		tm = "time"
	}
	add("n", "count(*)", "count(*)", "sum($)")
	for _, a := range []string{"min", "max"} {
		e := a + "(" + quote(tm) + ")"
		add(map[string]string{"min": "lo", "max": "hi"}[a], "CAST("+e+" AS BIGINT)", e, "CAST("+a+"($) AS BIGINT)")
	}
	for _, t := range q.Tags {
		if _, ok := cols[t]; ok {
			p.tagCols = append(p.tagCols, quote(t))
		}
	}
	p.tags = len(p.tagCols)
	if p.tags > 0 {
		p.flat = append(p.flat, "count(DISTINCT struct("+strings.Join(p.tagCols, ", ")+")) AS s")
		p.outer = append(p.outer, "count(*) AS s")
	}
	for i, f := range q.Fields {
		k := cols[f.Name]
		p.stored = append(p.stored, k)
		if k == 0 || k == Opaque {
			continue
		}
		c := quote(f.Name)
		n := strconv.Itoa(i)
		add("c"+n, "count("+c+")", "count("+c+")", "sum($)")
		switch k {
		case fingerprint.Float:
			sum("s"+n, c)
			sum("a"+n, "abs("+c+")")
			add("m"+n, "min("+c+")", "min("+c+")", "min($)")
			add("x"+n, "max("+c+")", "max("+c+")", "max($)")
		case fingerprint.Int, fingerprint.Uint:
			d := "sum(CAST(" + c + " AS DECIMAL(38,0)))"
			add("s"+n, "CAST("+d+" AS VARCHAR)", d, "CAST(sum($) AS VARCHAR)")
			for _, a := range [...]string{"m", "x"} {
				e := map[string]string{"m": "min", "x": "max"}[a]
				add(a+n, "CAST("+e+"("+c+") AS VARCHAR)", e+"("+c+")", "CAST("+e+"($) AS VARCHAR)")
			}
		case fingerprint.String:
			sum("l"+n, "octet_length("+c+")")
		case fingerprint.Bool:
			sum("t"+n, "CASE WHEN "+c+" THEN 1 ELSE 0 END")
		}
	}
	p.SQL = p.sql("")
	return p
}

// sql is the plan's query over the rows that match cond ("": all).
func (p *Plan) sql(cond string) string {
	from := " FROM " + p.quote(p.q.Table)
	if cond != "" {
		from += " WHERE " + cond
	}
	if !p.grouped {
		return "SELECT " + strings.Join(p.flat, ", ") + from
	}
	if p.tags > 0 {
		from += " GROUP BY " + strings.Join(p.tagCols, ", ")
	}
	return "SELECT " + strings.Join(p.outer, ", ") + " FROM (SELECT " + strings.Join(p.inner, ", ") + from + ") g"
}

// Where is the plan's query over the rows that match cond only.
func (p *Plan) Where(cond string) string { return p.sql(cond) }

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
		AddExtremes(f, o)
	}
}

// AddExtremes widens f's min and max (what some rows of a table hold) by
// o's (what other rows hold), both of the same kind: unknown when either
// has values and does not give them.
func AddExtremes(f, o *fingerprint.Field) {
	switch {
	case o.Count == 0:
	case f.Count == o.Count: // f had none (Count already added)
		f.Extremes, f.Min, f.Max, f.IntMin, f.IntMax = o.Extremes, o.Min, o.Max, o.IntMin, o.IntMax
	case !f.Extremes || !o.Extremes:
		f.Extremes = false
	default:
		f.Min, f.Max = min(f.Min, o.Min), max(f.Max, o.Max)
		if o.IntMin.Cmp(f.IntMin) < 0 {
			f.IntMin = o.IntMin
		}
		if o.IntMax.Cmp(f.IntMax) > 0 {
			f.IntMax = o.IntMax
		}
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
			if out.Count > 0 {
				out.Extremes, out.Min, out.Max = true, getF("m"+n), getF("x"+n)
			}
		case fingerprint.Int, fingerprint.Uint:
			for _, a := range [...]struct {
				key string
				to  *fingerprint.Int128
			}{{"s" + n, &out.IntSum}, {"m" + n, &out.IntMin}, {"x" + n, &out.IntMax}} {
				if s, ok := row[a.key].(string); ok {
					x, e := ParseInt128(s)
					if e != nil && err == nil {
						err = e
					}
					*a.to = x
				}
			}
			out.Extremes = out.Count > 0
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

// Int128 reads a JSON integer (json.Number, a decimal string, or a
// float64 that is an integer) exactly.
func Int128(v any) (fingerprint.Int128, error) {
	switch x := v.(type) {
	case json.Number:
		return ParseInt128(string(x))
	case string:
		return ParseInt128(x)
	case float64:
		if b, acc := big.NewFloat(x).Int(nil); acc == big.Exact {
			if i, ok := fingerprint.Int128FromBig(b); ok {
				return i, nil
			}
		}
	}
	return fingerprint.Int128{}, fmt.Errorf("unexpected value %v (%T)", v, v)
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
