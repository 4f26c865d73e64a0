package envinfo

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
	// Fingerprint is the file's content per table as the loaders' reader
	// read it when it was written (generate_data --fingerprint; absent
	// otherwise): a loader with --verify content checks its reading
	// against it (docs/verify.md).
	Fingerprint []TableFingerprint `json:"fingerprint,omitempty"`
	// Disorder is what generate_data wrote out of order, late or twice
	// (absent: every series in time order, each row once).
	Disorder *Disorder `json:"disorder,omitempty"`
}

// Disorder is generate_data's --out-of-order, --late and --repeat settings
// (pkg/gen.Disorder; docs/generate.md).
type Disorder struct {
	OutOfOrder       float64 `json:"out_of_order,omitempty"`        // fraction of rows
	OutOfOrderWindow string  `json:"out_of_order_window,omitempty"` // e.g. "1h0m0s"
	Late             float64 `json:"late,omitempty"`                // fraction of rows
	LateBy           string  `json:"late_by,omitempty"`             // e.g. "24h0m0s"
	Repeat           float64 `json:"repeat,omitempty"`              // fraction of rows written twice
	RepeatChanges    bool    `json:"repeat_changes,omitempty"`      // the second has new values
}
