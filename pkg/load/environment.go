package load

import "context"

// Environment is what a run was measured on, so that a result read later,
// or beside another, says which server, machine, data and build produced it.
// The runner fills it in every results file.
type Environment struct {
	Server  Server  `json:"server"`
	Machine Machine `json:"machine"`
	Dataset Dataset `json:"dataset"`
	// Tsload is this program's version from its build information: module
	// version, VCS revision and time (with "+dirty" for uncommitted
	// changes), and the Go version.
	Tsload string `json:"tsload"`
}

// Server is the database server's own account of itself.
type Server struct {
	// Version is what the server reports, e.g. "PostgreSQL 15.8 (Debian
	// 15.8-0+deb12u1), TimescaleDB 2.28.3" or "InfluxDB 1.6.7".
	Version string `json:"version,omitempty"`
	// Error says why Version is empty: the target cannot tell, the query
	// failed, or nothing was loaded (--do-load=false).
	Error string `json:"error,omitempty"`
}

// Machine is the computer the loader ran on (not necessarily the server's).
type Machine struct {
	CPUModel    string `json:"cpu_model,omitempty"`
	Cores       int    `json:"cores"`                  // logical CPUs available to the loader
	MemoryBytes int64  `json:"memory_bytes,omitempty"` // physical memory
	OS          string `json:"os,omitempty"`           // distribution, kernel, architecture
}

// Dataset describes the input. With Source "generate_data" the fields come
// from the description generate_data wrote beside the file it generated
// (FILE.dataset.json, trusted only while FILE keeps the size it had);
// with Source "input" only what loading could see is known: format,
// compression, size and the rows and bytes read.
type Dataset struct {
	Source      string  `json:"source"`                // "generate_data" or "input"
	UseCase     string  `json:"use_case,omitempty"`    // cpu-only, devops, iot, weather
	Scale       int     `json:"scale,omitempty"`       // hosts, trucks or grid locations
	Seed        *uint64 `json:"seed,omitempty"`        // nil when unknown
	Start       string  `json:"start,omitempty"`       // RFC 3339, inclusive
	End         string  `json:"end,omitempty"`         // RFC 3339, exclusive
	Interval    string  `json:"interval,omitempty"`    // between epochs, e.g. "10s"
	Shard       string  `json:"shard,omitempty"`       // "i/M" when only a shard was generated
	MaxRows     int64   `json:"max_rows,omitempty"`    // the generator's row cap, if any
	Format      string  `json:"format,omitempty"`      // ilp, csv, pgcopy
	Rows        int64   `json:"rows,omitempty"`        // rows in the dataset (input: rows read)
	Bytes       int64   `json:"bytes,omitempty"`       // uncompressed bytes (input: bytes read)
	FileBytes   int64   `json:"file_bytes,omitempty"`  // size on disk; 0 for a stream
	Compression string  `json:"compression,omitempty"` // "gzip level N", "gzip" or "none"
	Note        string  `json:"note,omitempty"`        // why the description was not used, or --limit
}

// ServerVersioner is an optional interface of a Target: the server's
// version as the server reports it (for PostgreSQL also the TimescaleDB
// extension's). The runner calls it once, after Prepare, only when loading;
// an error is recorded in Environment.Server.Error and never fails the run.
// The call is bounded by a short context deadline.
type ServerVersioner interface {
	ServerVersion(ctx context.Context) (string, error)
}
