package sqlquery

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// µs is t rounded up to the microsecond: a database that keeps
// microseconds holds a row written at r as floor(r), so the row is in
// [start, end) when its stored time is in [ceil(start), ceil(end)).
func µs(t time.Time) time.Time {
	t = t.UTC()
	if r := t.Nanosecond() % 1000; r != 0 {
		t = t.Add(time.Duration(1000 - r))
	}
	return t
}

// seconds is w in whole seconds, or, when w has a fraction of a second, in
// microseconds (an interval literal's text).
func interval(w time.Duration) string {
	if w%time.Second == 0 {
		return strconv.FormatInt(int64(w/time.Second), 10) + " seconds"
	}
	return strconv.FormatInt(w.Microseconds(), 10) + " microseconds"
}

// Postgres is PostgreSQL's SQL over timestamptz (microseconds); with
// timescale the buckets are TimescaleDB's time_bucket (its origin,
// 2000-01-03, is a whole number of days after the epoch, so a bucket that
// divides a day starts where an epoch-aligned one does), without it
// date_bin from the epoch (PostgreSQL 14 and later).
func Postgres(timescale bool) *Dialect {
	d := &Dialect{
		Name: "postgres",
		Time: func(t time.Time) string {
			return Literal(µs(t).Format("2006-01-02 15:04:05.000000Z07:00")) + "::timestamptz"
		},
		Double:     func(e string) string { return "CAST(" + e + " AS double precision)" },
		DistinctOn: true,
		Seconds:    func(c string) string { return "EXTRACT(EPOCH FROM " + c + ")" },
	}
	if timescale {
		d.Name = "timescaledb"
		d.Bucket = func(c string, w time.Duration) string {
			return "time_bucket(" + Literal(interval(w)) + "::interval, " + c + ")"
		}
	} else {
		d.Bucket = func(c string, w time.Duration) string {
			return "date_bin(" + Literal(interval(w)) + "::interval, " + c + ", '1970-01-01 00:00:00+00'::timestamptz)"
		}
	}
	return d
}

// QuestDB is QuestDB's SQL over a designated timestamp of microseconds
// (TIMESTAMP): buckets are timestamp_floor with a stride, which QuestDB
// floors from the epoch.
func QuestDB() *Dialect {
	return &Dialect{
		Name: "questdb",
		Time: func(t time.Time) string {
			return "CAST(" + Literal(µs(t).Format("2006-01-02T15:04:05.000000Z")) + " AS timestamp)"
		},
		Double: func(e string) string { return "CAST(" + e + " AS double)" },
		Bucket: func(c string, w time.Duration) string {
			return "timestamp_floor(" + Literal(questUnit(w)) + ", " + c + ")"
		},
		// count(*) inside an expression is read as a product.
		CountRows: "count()",
		Seconds:   func(c string) string { return "CAST(" + c + " AS long) / 1000000.0" }, // a timestamp's microseconds
	}
}

// questUnit is w as a timestamp_floor stride: a count of the largest of
// QuestDB's units (h, m, s, T for milliseconds, U for microseconds) that
// divides it.
func questUnit(w time.Duration) string {
	for _, u := range []struct {
		d time.Duration
		s string
	}{{time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}, {time.Millisecond, "T"}, {time.Microsecond, "U"}} {
		if w%u.d == 0 {
			return strconv.FormatInt(int64(w/u.d), 10) + u.s
		}
	}
	return strconv.FormatInt(w.Microseconds(), 10) + "U"
}

// DataFusion is the SQL of CnosDB and InfluxDB 3 (Apache DataFusion) over a
// time column of nanoseconds: times as RFC 3339 text cast to a timestamp,
// buckets date_bin from the epoch.
func DataFusion(name string) *Dialect {
	return &Dialect{
		Name: name,
		Time: func(t time.Time) string {
			return "CAST(" + Literal(t.UTC().Format(time.RFC3339Nano)) + " AS TIMESTAMP)"
		},
		Double: func(e string) string { return "CAST(" + e + " AS DOUBLE)" },
		Bucket: func(c string, w time.Duration) string {
			return fmt.Sprintf("date_bin(INTERVAL %s, %s, CAST('1970-01-01T00:00:00Z' AS TIMESTAMP))", Literal(interval(w)), c)
		},
		Seconds: func(c string) string { return "CAST(" + c + " AS BIGINT) / 1000000000.0" }, // a timestamp's nanoseconds
	}
}

// DuckDB is DuckDB's SQL over TIMESTAMPTZ (microseconds): buckets by
// integer arithmetic on epoch_us, whatever the session's time zone.
func DuckDB() *Dialect {
	return &Dialect{
		Name: "duckdb",
		Time: func(t time.Time) string {
			return "TIMESTAMPTZ " + Literal(µs(t).Format("2006-01-02 15:04:05.000000Z07:00"))
		},
		Double: func(e string) string { return "CAST(" + e + " AS DOUBLE)" },
		Bucket: func(c string, w time.Duration) string {
			us := strconv.FormatInt(w.Microseconds(), 10)
			return "make_timestamp((epoch_us(" + c + ") // " + us + ") * " + us + ")"
		},
		Seconds: func(c string) string { return "epoch_us(" + c + ") / 1000000.0" },
	}
}

// SQLite is SQLite's SQL over integer nanoseconds since the epoch: times
// are integers, buckets integer arithmetic (SQLite has no time_bucket),
// read back with UnixTime(time.Nanosecond).
func SQLite() *Dialect {
	return &Dialect{
		Name:   "sqlite",
		Time:   func(t time.Time) string { return strconv.FormatInt(t.UnixNano(), 10) },
		Double: func(e string) string { return "CAST(" + e + " AS REAL)" },
		Bucket: func(c string, w time.Duration) string {
			ns := strconv.FormatInt(int64(w), 10)
			return "(" + c + " / " + ns + ") * " + ns
		},
		Seconds: func(c string) string { return c + " / 1000000000.0" },
	}
}

// ClickHouse is ClickHouse's SQL over a DateTime64(9) time column, or, with dt64 false (a
// server before 20.1), a DateTime of whole seconds: there an instant is rounded up to the
// second, as µs does for microseconds. Buckets are integer nanoseconds since the epoch (read
// back with UnixTime(time.Nanosecond)), identifiers in backquotes.
func ClickHouse(dt64 bool) *Dialect {
	d := &Dialect{
		Name:   "clickhouse",
		Ident:  func(s string) string { return "`" + strings.NewReplacer(`\`, `\\`, "`", "\\`").Replace(s) + "`" },
		Double: func(e string) string { return "toFloat64(" + e + ")" },
		ArgMax: true, // window functions only from 21.9; argMax and LIMIT BY on every version
		Rebucket: func(c string, w time.Duration) string { // a bucket's start is its nanoseconds
			return fmt.Sprintf("intDiv(%s, %d) * %d", c, int64(w), int64(w))
		},
	}
	if dt64 {
		d.Time = func(t time.Time) string {
			return "toDateTime64(" + Literal(t.UTC().Format("2006-01-02 15:04:05.000000000")) + ", 9, 'UTC')"
		}
		d.Bucket = func(c string, w time.Duration) string {
			return fmt.Sprintf("intDiv(toUnixTimestamp64Nano(%s), %d) * %d", c, int64(w), int64(w))
		}
		return d
	}
	d.Time = func(t time.Time) string {
		t = t.UTC()
		if t.Nanosecond() != 0 {
			t = t.Truncate(time.Second).Add(time.Second)
		}
		return "toDateTime(" + Literal(t.Format("2006-01-02 15:04:05")) + ", 'UTC')"
	}
	d.Bucket = func(c string, w time.Duration) string {
		return fmt.Sprintf("intDiv(toInt64(toUnixTimestamp(%s)) * 1000000000, %d) * %d", c, int64(w), int64(w))
	}
	return d
}

// ClickHouseWindows gives d, ClickHouse's dialect, the window functions a
// query.Change needs, for a server of 21.9 or later (chDB among them):
// lagInFrame and leadInFrame over the whole partition (the default frame
// ends at the current row, where leadInFrame finds nothing), of a
// Nullable value (outside the frame they give the type's default, here
// NULL).
func ClickHouseWindows(d *Dialect) {
	d.Seconds = func(c string) string { return c + " / 1000000000.0" } // a bucket's nanoseconds
	d.Window = func(fn, e, part, order string) string {
		over := "ORDER BY " + order + " ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING"
		if part != "" {
			over = "PARTITION BY " + part + " " + over
		}
		return fn + "InFrame(toNullable(" + e + ")) OVER (" + over + ")"
	}
}
