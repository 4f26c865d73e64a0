package format

import "fmt"

// Format is a tsload file format: what the generator writes and the loaders
// read. docs/formats.md describes the bytes of each.
type Format int

// The file formats.
const (
	Unknown Format = iota
	ILP            // InfluxDB line protocol
	CSV            // RFC 4180 CSV: single table with header, or the tsload multi-table stream
	PGCopy         // PostgreSQL COPY binary: single table, or the tsload multi-table stream
	Parquet        // Apache Parquet: one table per file (pkg/format/parquet)
)

func (f Format) String() string {
	switch f {
	case ILP:
		return "ilp"
	case CSV:
		return "csv"
	case PGCopy:
		return "pgcopy"
	case Parquet:
		return "parquet"
	}
	return "unknown"
}

// Parse parses "ilp", "csv", "pgcopy" or "parquet".
func Parse(s string) (Format, error) {
	switch s {
	case "ilp":
		return ILP, nil
	case "csv":
		return CSV, nil
	case "pgcopy":
		return PGCopy, nil
	case "parquet":
		return Parquet, nil
	}
	return Unknown, fmt.Errorf("unknown format %q (want ilp, csv, pgcopy or parquet)", s)
}
