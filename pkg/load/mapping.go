package load

import "time"

// Mapping says how the columns of a tabular input (CSV, Parquet) become a
// table's timestamp, tags and fields when the input does not say it itself
// (tsload's own typed headers do). It is the contract between the flags
// (pkg/loadcli: --time-column, --time-unit, --tags, --columns) and the
// readers that turn such rows into what a target takes.
type Mapping struct {
	// Columns names the input's columns in order, for input without a
	// header (CSV without one, pgcopy): empty to take the header's names.
	Columns []string
	// TimeColumn is the timestamp column (empty: the first column for CSV,
	// the first timestamp-typed column for Parquet).
	TimeColumn string
	// TimeUnit is the unit of a numeric timestamp: a second, millisecond,
	// microsecond or nanosecond (format.ParseEpochUnit reads the flag; 0:
	// RFC 3339 text for CSV, the logical type for Parquet).
	TimeUnit time.Duration
	// Tags are the series-identifying columns (ILP tags, QuestDB SYMBOLs).
	// Nil: the text columns of the matching use-case table when the
	// header matches one, else every text column; an empty non-nil
	// slice: no tags.
	Tags []string
}
