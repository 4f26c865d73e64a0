// Package fingerprint describes the content of a table as a few aggregates
// that both a loader (while it reads the input) and a database (with one
// query after the load) can compute: rows, distinct series, the time range,
// and per field the count of non-NULL values and their sum, and for a
// numeric field its min and max. Verification compares the two: a count
// proves the rows arrived, a fingerprint that they arrived unchanged.
//
// What a fingerprint cannot see is a change that leaves every aggregate as
// it was: values swapped between rows of a field, or changes that
// compensate (one value up, another down by as much) and move neither the
// smallest nor the largest value. The sum alone misses every compensating
// change, including a float64 column rounding 9007199254740993 down and
// 9007199254741003 up; min and max catch those that touch an extreme.
// Targets that cannot compute min and max leave Field.Extremes false, and
// Compare notes it.
//
// This file is the contract between the reader side (which accumulates a
// Table per table while it checks the input) and the targets (which answer
// a Query with the database's own aggregates, load.Target.Content).
package fingerprint

// Kind is the kind of a field's values, as the input carries them (ILP:
// a float, an `i` integer, a `u` unsigned integer, a quoted string, a
// boolean; CSV and pgcopy: the column's type).
type Kind uint8

// Field kinds.
const (
	Float  Kind = 1 // float8 or float4 (Float4 in Field says which was stored)
	Int    Kind = 2 // signed integer (ILP `i`, int8, int4)
	Uint   Kind = 3 // unsigned integer (ILP `u`)
	String Kind = 4 // string field (not a tag)
	Bool   Kind = 5
)

var kindNames = [...]string{Float: "float", Int: "integer", Uint: "unsigned", String: "string", Bool: "boolean"}

// String names the kind.
func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "kind?"
}

// Int128 is an exact signed 128-bit sum of integers (two's complement:
// Hi holds the sign and the high 64 bits, Lo the low 64 bits), so that the
// sum of any number of int64 or uint64 values a file can hold is exact.
type Int128 struct {
	Hi int64
	Lo uint64
}

// FieldQuery asks a database for the aggregates of one field.
type FieldQuery struct {
	Name string
	Kind Kind
}

// Query asks a database for the fingerprint of one table.
type Query struct {
	Table string
	// Time is the name of the timestamp column where the database has one
	// ("time" in InfluxDB and CnosDB, the table's first column otherwise).
	Time string
	// Tags are the series-identifying columns (ILP tags, text columns).
	Tags []string
	// Fields are the fields to aggregate, sorted by name.
	Fields []FieldQuery
}

// Field is the aggregate of one field of a table.
type Field struct {
	Name string
	Kind Kind
	// Count is the number of non-NULL values.
	Count int64
	// Float fields: Sum is a compensated (Neumaier) sum of the values and
	// AbsSum the sum of their magnitudes, which bounds the rounding error a
	// comparison must allow (float4 storage, the database's own summation).
	// A target fills AbsSum too where it can (sum(abs(x))): appending needs
	// it to bound the error of the sum found before the load. The reader
	// also fills AbsSum for integer fields (a database that sums integers
	// in floating point answers Kind Float and Sum).
	Sum, AbsSum float64
	// Float4 marks a float field the database stores in 32 bits (set by
	// the target from the column's type): values are compared after rounding.
	Float4 bool
	// Int and Uint fields: the exact sum.
	IntSum Int128
	// Extremes is true when the smallest and largest value of a numeric
	// field (Float, Int, Uint) are known: Min and Max for a Float field,
	// IntMin and IntMax (exact) for an Int or Uint one. The loader knows
	// them for every numeric field with values (not when the input holds a
	// NaN); a target gives them where its query can compute them, and
	// leaves Extremes false where it cannot. A sum misses changes that
	// compensate (one value up, another down); the extremes catch those
	// that move the smallest or the largest value.
	Extremes       bool
	Min, Max       float64
	IntMin, IntMax Int128
	// Printed marks float extremes a database gave as decimal text with
	// fewer digits than a float64 needs (VictoriaMetrics' export: 16 where
	// float64's greatest needs 17): compared within 2⁻⁴⁹ of the value.
	Printed bool
	// String fields: the sum of the values' lengths in bytes (after
	// unescaping), where the database can compute it (Len < 0: not known).
	// Bool fields: the number of true values.
	Len  int64
	True int64
}

// Table is the fingerprint of one table: what the loader read into it, or
// what the database holds.
type Table struct {
	Name string
	Rows int64
	// Series is the number of distinct tag sets; exact when SeriesExact,
	// an estimate otherwise (beyond the exact limit, or a database that
	// only estimates).
	Series      int64
	SeriesExact bool
	// MinTime and MaxTime are the smallest and largest timestamps, in
	// nanoseconds since the Unix epoch (0 and 0 for an empty table).
	MinTime, MaxTime int64
	// TimeUnit is the resolution in nanoseconds the database stores
	// timestamps in (1000: microseconds, as in QuestDB and PostgreSQL),
	// set by the target on what it found; 0 or 1 means nanoseconds.
	// Compare allows the found time to differ from the read one by less
	// than one unit (databases truncate or round).
	TimeUnit int64
	// Fields, sorted by name.
	Fields []Field
}
