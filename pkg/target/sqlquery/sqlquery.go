// Package sqlquery says a query.Query in SQL for the targets whose
// database speaks it (PostgreSQL and TimescaleDB, QuestDB, CnosDB,
// InfluxDB 3, DuckDB, SQLite) and reads the result rows back into a
// query.Answer. A Dialect holds what differs between them: how a time is
// written, how a time is cut into epoch-aligned buckets, how a value is
// made a double; the shape of the statement is the same for all:
//
//   - Rows: SELECT time, fields FROM table WHERE ... [ORDER BY time DESC
//     LIMIT n].
//   - Max, Min, Avg, Count: the kept rows (tags, bucket, fields) in a
//     subquery, aggregated GROUP BY the tags and the bucket; newest-N
//     buckets per group by row_number() over the aggregate, partitioned by
//     the tags (ORDER BY bucket DESC LIMIT n without groups).
//   - Last: row_number() OVER (PARTITION BY tags, bucket ORDER BY time
//     DESC) = 1, and newest-N buckets with dense_rank() over the buckets of
//     each group; SELECT DISTINCT ON (tags, bucket) ... ORDER BY tags,
//     bucket, time DESC where the dialect has it; ORDER BY time DESC
//     LIMIT 1 without groups and buckets.
//   - ArgMax dialects (ClickHouse) need no window function: Last is
//     argMax of the row's fields as one tuple per group and bucket, and
//     newest-N buckets per group is LIMIT n BY the tags.
//
// Every statement keeps only the rows with at least one asked field not
// NULL (query.Eval: such a row is not read), compares the time column
// with the window as the database stores times, and selects the GroupBy
// tags first, then the time (bucket start, or row time for Rows and
// Last), then one double per field.
package sqlquery

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/tsload/tsload/pkg/query"
)

// Dialect is what one database's SQL says its own way.
type Dialect struct {
	// Name is the database's name in errors.
	Name string
	// Ident quotes an identifier; nil: double quotes, a double quote
	// doubled.
	Ident func(string) string
	// Time is the literal of instant t, comparable with the time column.
	Time func(t time.Time) string
	// Bucket is the start of the epoch-aligned bucket of width w that
	// holds the time in expression col.
	Bucket func(col string, w time.Duration) string
	// Rebucket is Bucket of expression col that is itself a bucket's start
	// as Bucket gives it (a Rollup's bucket); nil: Bucket.
	Rebucket func(col string, w time.Duration) string
	// Double casts expression e to a double precision float.
	Double func(e string) string
	// DistinctOn: the database has SELECT DISTINCT ON (PostgreSQL,
	// DuckDB), which Last uses for the newest row per group and bucket
	// in place of a window function.
	DistinctOn bool
	// ArgMax: the database has argMax and LIMIT n BY (ClickHouse), which
	// Last and the newest-N buckets per group use in place of window
	// functions (argmax.go).
	ArgMax bool
	// CountRows counts a group's rows; "": count(*).
	CountRows string
	// Seconds is the time in expression col (a bucket's start) as seconds
	// since the epoch; nil: the database has no window functions, and a
	// query with a Change is unsupported.
	Seconds func(col string) string
	// Window is fn (lag or lead) of expression e one row away, NULL where
	// there is none, over the rows of each partition part in the order
	// of order (part "": one partition); nil: fn(e) OVER (PARTITION BY
	// part ORDER BY order).
	Window func(fn, e, part, order string) string
}

// Literal is s as an SQL string literal (a single quote doubled).
func Literal(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// QuoteIdent is s as a double-quoted identifier.
func QuoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func (d *Dialect) ident(s string) string {
	if d.Ident != nil {
		return d.Ident(s)
	}
	return QuoteIdent(s)
}

// Number is v as an SQL numeric literal (no exponent, exact round trip).
func Number(v float64) (string, error) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "", fmt.Errorf("threshold %g has no SQL literal", v)
	}
	return strconv.FormatFloat(v, 'f', -1, 64), nil
}

// Unsupported is an error wrapping errors.ErrUnsupported that names the
// database and the form of q it cannot state.
func Unsupported(db string, q *query.Query, form string) error {
	return fmt.Errorf("%s: query %s: %s: %w", db, q.Name, form, errors.ErrUnsupported)
}

// Layout is where the parts of a Row are among a result's columns: Groups
// columns of tag values (named tsq_g0, tsq_g1, ...), then the time when
// TimeName is not "" (tsq_time, or tsq_bucket for a bucket's start), then
// one value per field (tsq_v0, tsq_v1, ...).
type Layout struct {
	Groups   int
	TimeName string
	Values   int
}

// Columns is the number of the result's columns (len(Names())).
func (l Layout) Columns() int {
	n := l.Groups + l.Values
	if l.TimeName != "" {
		n++
	}
	return n
}

// Names are the result's column names, in order.
func (l Layout) Names() []string {
	var out []string
	for i := range l.Groups {
		out = append(out, "tsq_g"+strconv.Itoa(i))
	}
	if l.TimeName != "" {
		out = append(out, l.TimeName)
	}
	for i := range l.Values {
		out = append(out, "tsq_v"+strconv.Itoa(i))
	}
	return out
}

// SQL is q in d's dialect over table q.Table whose time column is
// timeCol, and the layout of its result.
func (d *Dialect) SQL(q *query.Query, timeCol string) (string, Layout, error) {
	if err := q.Validate(); err != nil {
		return "", Layout{}, err
	}
	stmt, lay, err := d.base(q, timeCol)
	if err != nil || !q.Staged() {
		return stmt, lay, err
	}
	return d.Stages(q, stmt)
}

// BaseLayout is the layout of q's rows before its Having and Rollups.
func BaseLayout(q *query.Query) Layout {
	lay := Layout{Groups: len(q.GroupBy), Values: len(q.Fields)}
	switch {
	case q.Bucket > 0:
		lay.TimeName = "tsq_bucket"
	case q.Agg == query.Rows || q.Agg == query.Last:
		lay.TimeName = "tsq_time"
	}
	return lay
}

// base is q's statement without its Having and Rollups.
func (d *Dialect) base(q *query.Query, timeCol string) (string, Layout, error) {
	lay := BaseLayout(q)
	where, err := d.Where(q, timeCol)
	if err != nil {
		return "", Layout{}, err
	}
	tc := d.ident(timeCol)
	from := " FROM " + d.ident(q.Table) + " WHERE " + where
	names := lay.Names()
	groups := names[:lay.Groups]
	fields := names[len(names)-lay.Values:]
	// The kept rows: tags, bucket start, row time, fields.
	var inner []string
	for i, g := range q.GroupBy {
		inner = append(inner, d.ident(g)+" AS "+groups[i])
	}
	if q.Bucket > 0 {
		inner = append(inner, d.Bucket(tc, q.Bucket)+" AS tsq_bucket")
	}
	if q.Agg == query.Rows || q.Agg == query.Last {
		inner = append(inner, tc+" AS tsq_time")
	}
	for i, f := range q.Fields {
		inner = append(inner, d.Double(d.ident(f))+" AS "+fields[i])
	}
	switch q.Agg {
	case query.Rows:
		s := "SELECT " + strings.Join(inner, ", ") + from
		if q.Limit > 0 {
			s += fmt.Sprintf(" ORDER BY tsq_time DESC LIMIT %d", q.Limit)
		}
		return s, lay, nil
	case query.Last:
		return d.last(q, inner, from, names, groups), lay, nil
	}
	// Max, Min, Avg, Count: the kept rows' aggregate per group and bucket.
	keys := names[:len(names)-lay.Values]
	out := slicesClone(keys)
	for _, v := range fields {
		var agg string
		switch q.Agg {
		case query.Max:
			agg = "max(" + v + ")"
		case query.Min:
			agg = "min(" + v + ")"
		case query.Avg:
			agg = "avg(" + v + ")"
		case query.Count:
			agg = "count(" + v + ")"
		}
		out = append(out, d.Double(agg)+" AS "+v)
	}
	s := "SELECT " + strings.Join(out, ", ") + " FROM (SELECT " + strings.Join(inner, ", ") + from + ") tsq_rows"
	if len(keys) > 0 {
		s += " GROUP BY " + strings.Join(keys, ", ")
	}
	if q.Limit == 0 || q.Bucket == 0 {
		return s, lay, nil
	}
	if len(groups) == 0 {
		return s + fmt.Sprintf(" ORDER BY tsq_bucket DESC LIMIT %d", q.Limit), lay, nil
	}
	if d.ArgMax {
		return limitBy("SELECT "+strings.Join(names, ", ")+" FROM ("+s+") tsq_agg", groups, q.Limit), lay, nil
	}
	cols := strings.Join(names, ", ")
	return fmt.Sprintf("SELECT %s FROM (SELECT %s, row_number() OVER (PARTITION BY %s ORDER BY tsq_bucket DESC) AS tsq_rank FROM (%s) tsq_agg) tsq_ranked WHERE tsq_rank <= %d",
		cols, cols, strings.Join(groups, ", "), s, q.Limit), lay, nil
}

// last is the Last statement over the kept rows (inner): the newest row
// of each group and bucket.
func (d *Dialect) last(q *query.Query, inner []string, from string, names, groups []string) string {
	rows := "(SELECT " + strings.Join(inner, ", ") + from + ") tsq_rows"
	switch {
	case len(groups) == 0 && q.Bucket == 0:
		return "SELECT " + strings.Join(names, ", ") + " FROM " + rows + " ORDER BY tsq_time DESC LIMIT 1"
	case d.DistinctOn && (q.Limit == 0 || q.Bucket == 0):
		keys := names[:len(groups)]
		if q.Bucket > 0 {
			keys = names[:len(groups)+1]
		}
		return "SELECT DISTINCT ON (" + strings.Join(keys, ", ") + ") " + strings.Join(names, ", ") + " FROM " + rows +
			" ORDER BY " + strings.Join(keys, ", ") + ", tsq_time DESC"
	case d.ArgMax:
		return lastArgMax(q, rows, names, groups)
	}
	part := slicesClone(groups)
	mid := slicesClone(groups) // the ranked rows' columns
	if q.Bucket > 0 {
		part = append(part, "tsq_bucket")
		mid = append(mid, "tsq_bucket")
	}
	mid = append(mid, "tsq_time")
	mid = append(mid, names[len(names)-len(q.Fields):]...)
	over := "ORDER BY tsq_time DESC"
	if len(part) > 0 {
		over = "PARTITION BY " + strings.Join(part, ", ") + " " + over
	}
	rank, cond := "", "tsq_n = 1"
	if q.Limit > 0 && q.Bucket > 0 {
		over2 := "ORDER BY tsq_bucket DESC"
		if len(groups) > 0 {
			over2 = "PARTITION BY " + strings.Join(groups, ", ") + " " + over2
		}
		rank = ", dense_rank() OVER (" + over2 + ") AS tsq_rank"
		cond += fmt.Sprintf(" AND tsq_rank <= %d", q.Limit)
	}
	return fmt.Sprintf("SELECT %s FROM (SELECT %s, row_number() OVER (%s) AS tsq_n%s FROM (SELECT %s%s) tsq_rows) tsq_ranked WHERE %s",
		strings.Join(names, ", "), strings.Join(mid, ", "), over, rank, strings.Join(inner, ", "), from, cond)
}

// Where is the condition that keeps q's rows (timeCol the time column).
func (d *Dialect) Where(q *query.Query, timeCol string) (string, error) {
	tc := d.ident(timeCol)
	conds := []string{tc + " >= " + d.Time(q.Start), tc + " < " + d.Time(q.End)}
	for _, m := range q.Where {
		if len(m.Values) == 0 {
			conds = append(conds, "1 = 0")
			continue
		}
		vs := make([]string, len(m.Values))
		for i, v := range m.Values {
			vs[i] = Literal(v)
		}
		conds = append(conds, d.ident(m.Tag)+" IN ("+strings.Join(vs, ", ")+")")
	}
	if f := q.Filter; f != nil {
		v, err := Number(f.Value)
		if err != nil {
			return "", fmt.Errorf("%s: query %s: %w", d.Name, q.Name, err)
		}
		op := " > "
		if f.Below {
			op = " < "
		}
		conds = append(conds, d.ident(f.Field)+op+v)
	}
	var set []string
	for _, f := range q.Fields {
		set = append(set, d.ident(f)+" IS NOT NULL")
	}
	if len(set) == 1 {
		conds = append(conds, set[0])
	} else {
		conds = append(conds, "("+strings.Join(set, " OR ")+")")
	}
	return strings.Join(conds, " AND "), nil
}

func slicesClone(s []string) []string { return append([]string(nil), s...) }

// Row reads one result row (laid out as l) into a query.Row: a NULL tag
// is "", a NULL value NaN, and the time is read by readTime (nil:
// time.Time values and RFC 3339 text only), in UTC.
func (l Layout) Row(vals []any, readTime func(any) (time.Time, error)) (query.Row, error) {
	if len(vals) != l.Columns() {
		return query.Row{}, fmt.Errorf("%d columns, want %d", len(vals), l.Columns())
	}
	var r query.Row
	i := 0
	if l.Groups > 0 {
		r.Group = make([]string, l.Groups)
		for ; i < l.Groups; i++ {
			s, err := text(vals[i])
			if err != nil {
				return query.Row{}, fmt.Errorf("column %d: %w", i+1, err)
			}
			r.Group[i] = s
		}
	}
	if l.TimeName != "" {
		if readTime == nil {
			readTime = Time
		}
		t, err := readTime(vals[i])
		if err != nil {
			return query.Row{}, fmt.Errorf("column %d: %w", i+1, err)
		}
		r.Time = t.UTC()
		i++
	}
	r.Values = make([]float64, l.Values)
	for j := range r.Values {
		v, err := Float(vals[i])
		if err != nil {
			return query.Row{}, fmt.Errorf("column %d: %w", i+1, err)
		}
		r.Values[j] = v
		i++
	}
	return r, nil
}

// TextRow is Row for a result given as text (an HTTP API's JSON): ""
// is NULL, a number or a time as the database wrote it. It spares a
// boxed value per column; the row's Group is vals' first columns, not a
// copy.
func (l Layout) TextRow(vals []string) (query.Row, error) {
	if len(vals) != l.Columns() {
		return query.Row{}, fmt.Errorf("%d columns, want %d", len(vals), l.Columns())
	}
	var r query.Row
	i := 0
	if l.Groups > 0 {
		r.Group = vals[:l.Groups:l.Groups]
		i = l.Groups
	}
	if l.TimeName != "" {
		if vals[i] == "" {
			return query.Row{}, fmt.Errorf("column %d: time is NULL", i+1)
		}
		t, err := ParseTime(vals[i])
		if err != nil {
			return query.Row{}, fmt.Errorf("column %d: %w", i+1, err)
		}
		r.Time = t
		i++
	}
	r.Values = make([]float64, l.Values)
	for j := range r.Values {
		v, err := parseFloat(vals[i])
		if err != nil {
			return query.Row{}, fmt.Errorf("column %d: %w", i+1, err)
		}
		r.Values[j] = v
		i++
	}
	return r, nil
}

// MapRow reads a result row given as a map by column name (a JSON
// object) as Row does.
func (l Layout) MapRow(m map[string]any, readTime func(any) (time.Time, error)) (query.Row, error) {
	names := l.Names()
	vals := make([]any, len(names))
	for i, n := range names {
		v, ok := m[n]
		if !ok && !strings.HasPrefix(n, "tsq_v") && !strings.HasPrefix(n, "tsq_g") {
			return query.Row{}, fmt.Errorf("no column %s in %v", n, m)
		}
		vals[i] = v
	}
	return l.Row(vals, readTime)
}

// MapQuery answers q where the database returns result rows as JSON
// objects by column name (CnosDB, InfluxDB 3): q's statement in d over
// time column timeCol, run by rows, each row read by Layout.MapRow. An
// error of the statement (errors.ErrUnsupported among them) comes back as
// it is, the others name q and, for a row, the statement and the row's
// number; the caller puts its database's name in front.
func (d *Dialect) MapQuery(ctx context.Context, q *query.Query, timeCol string, rows func(ctx context.Context, stmt string) ([]map[string]any, error)) (*query.Answer, error) {
	stmt, lay, err := d.SQL(q, timeCol)
	if err != nil {
		return nil, err
	}
	ms, err := rows(ctx, stmt)
	if err != nil {
		return nil, fmt.Errorf("query %s: %w", q.Name, err)
	}
	a := &query.Answer{Rows: make([]query.Row, 0, len(ms))}
	for i, m := range ms {
		r, err := lay.MapRow(m, nil)
		if err != nil {
			return nil, fmt.Errorf("query %s: %s: row %d: %w", q.Name, stmt, i+1, err)
		}
		a.Rows = append(a.Rows, r)
	}
	return a, nil
}

func text(v any) (string, error) {
	switch v := v.(type) {
	case nil:
		return "", nil
	case string:
		return v, nil
	case []byte:
		return string(v), nil
	}
	return "", fmt.Errorf("tag value %v (%T) is not text", v, v)
}

// Float is a result value as a float64: NaN for NULL.
func Float(v any) (float64, error) {
	switch v := v.(type) {
	case nil:
		return math.NaN(), nil
	case float64:
		return v, nil
	case float32:
		return float64(v), nil
	case int64:
		return float64(v), nil
	case int32:
		return float64(v), nil
	case int:
		return float64(v), nil
	case uint64:
		return float64(v), nil
	case string:
		return parseFloat(v)
	case []byte:
		return parseFloat(string(v))
	case interface{ Float64() (float64, error) }: // json.Number
		return v.Float64()
	}
	return 0, fmt.Errorf("value %v (%T) is not a number", v, v)
}

func parseFloat(s string) (float64, error) {
	switch s {
	case "", "null", "NULL":
		return math.NaN(), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("value %q is not a number", s)
	}
	return f, nil
}

// Time reads a time.Time or RFC 3339 text (with or without the zone: UTC
// then; a space or a T between date and time).
func Time(v any) (time.Time, error) {
	switch v := v.(type) {
	case time.Time:
		return v.UTC(), nil
	case string:
		return ParseTime(v)
	case []byte:
		return ParseTime(string(v))
	}
	return time.Time{}, fmt.Errorf("time %v (%T) is not a time", v, v)
}

// ParseTime reads RFC 3339 text; without a zone the time is UTC.
func ParseTime(s string) (time.Time, error) {
	s = strings.Replace(s, " ", "T", 1)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04:05.999999999Z07"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("time %q is not RFC 3339", s)
}

// UnixTime reads an integer count of unit since the epoch.
func UnixTime(unit time.Duration) func(any) (time.Time, error) {
	return func(v any) (time.Time, error) {
		var n int64
		switch v := v.(type) {
		case int64:
			n = v
		case int:
			n = int64(v)
		case float64:
			n = int64(v)
		default:
			return Time(v)
		}
		return time.Unix(0, n*int64(unit)).UTC(), nil
	}
}
