package results

// Cost is what a load cost: storage after it, the server's resources
// during it, the loader's own.
type Cost struct {
	Footprint *Footprint  `json:"footprint,omitempty"`
	Server    *ServerCost `json:"server,omitempty"`
	Loader    LoaderCost  `json:"loader"`
	// Interference is what else ran on the machine meanwhile.
	Interference *Interference `json:"interference,omitempty"`
}

// Footprint is the storage the loaded tables take.
type Footprint struct {
	// NotMeasured says why no size was measured (then nothing else is set
	// but Error).
	NotMeasured string   `json:"not_measured,omitempty"`
	Error       string   `json:"error,omitempty"` // the database's error, when it gave one
	Method      string   `json:"method,omitempty"`
	Tables      []string `json:"tables,omitempty"`
	// AfterLoadBytes is the size right after the last batch was
	// acknowledged (and the target's Finish, e.g. compression).
	AfterLoadBytes int64 `json:"after_load_bytes"`
	// SettledBytes is the size once it stopped changing, measured until
	// SettleSeconds had passed (Settled false: still changing then, or not
	// waited for); equal to AfterLoadBytes when not waited for.
	SettledBytes  int64   `json:"settled_bytes"`
	SettleSeconds float64 `json:"settle_seconds"`
	Settled       bool    `json:"settled"`
	// Flush is what the server was asked to do before settling
	// (load.Hooks.FlushStorage), e.g. "COMPACT VNODE 12 13".
	Flush string `json:"flush,omitempty"`
	// Rows and Metrics are what the tables hold (counted by verification
	// when it ran, else the rows this run loaded); the ratios below use
	// SettledBytes.
	Rows           int64   `json:"rows"`
	Metrics        int64   `json:"metrics"`
	BytesPerRow    float64 `json:"bytes_per_row"`
	BytesPerMetric float64 `json:"bytes_per_metric"`
	// InputRatio is SettledBytes over the input's decompressed bytes;
	// CompressedInputRatio over its compressed file size (compressed
	// input, read whole).
	InputRatio           float64 `json:"input_ratio"`
	CompressedInputRatio float64 `json:"compressed_input_ratio,omitempty"`
	// Mark is the Size's Mark: the figures are a lower bound, or include
	// preallocated space (then DataBytes is the data's own size where the
	// database can tell it). Compare marked figures with care.
	Mark      string `json:"mark,omitempty"`
	DataBytes int64  `json:"data_bytes,omitempty"`
	// DataDirBytes is the size of the server's data directory (whole
	// server) when one was given, beside the database's own accounting.
	DataDirBytes int64  `json:"data_dir_bytes,omitempty"`
	Note         string `json:"note,omitempty"`
}

// ServerCost is what the database server's processes spent from the first
// batch to the end of the load (Results.Start to End).
type ServerCost struct {
	// NotMeasured says why not (e.g. "remote server"); nothing else is set.
	NotMeasured string `json:"not_measured,omitempty"`
	PID         int    `json:"pid,omitempty"`
	Method      string `json:"method,omitempty"` // how the process was found and read
	Procs       int    `json:"procs,omitempty"`  // most processes in its tree at a sample
	Samples     int    `json:"samples,omitempty"`
	// Note says what limits the figures (the process ended during the
	// load, I/O of some processes unreadable).
	Note string `json:"note,omitempty"`

	CPUSeconds    float64 `json:"cpu_seconds"` // user + system
	UserSeconds   float64 `json:"user_seconds"`
	SystemSeconds float64 `json:"system_seconds"`
	// RSSPeakBytes and RSSMeanBytes are over the samples (one every 2
	// seconds and one per reporting period).
	RSSPeakBytes int64 `json:"rss_peak_bytes"`
	RSSMeanBytes int64 `json:"rss_mean_bytes"`
	// ReadBytes and WriteBytes are storage I/O (of the processes whose
	// /proc/<pid>/io was readable: see Note).
	ReadBytes  int64 `json:"read_bytes"`
	WriteBytes int64 `json:"write_bytes"`

	CPUSecondsPerMRows float64 `json:"cpu_seconds_per_million_rows"`
	WriteBytesPerMRows float64 `json:"write_bytes_per_million_rows"`
}

// LoaderCost is what the loader process itself spent in the whole run.
type LoaderCost struct {
	NotMeasured  string  `json:"not_measured,omitempty"`
	CPUSeconds   float64 `json:"cpu_seconds"`
	RSSPeakBytes int64   `json:"rss_peak_bytes"`
	// CPUSecondsPerMRows is over the rows loaded.
	CPUSecondsPerMRows float64 `json:"cpu_seconds_per_million_rows,omitempty"`
}

// PeriodServer is the server's use in one reporting period.
type PeriodServer struct {
	CPUSeconds float64 `json:"cpu_seconds"` // spent in the period
	RSSBytes   int64   `json:"rss_bytes"`   // at the period's end
	ReadBytes  int64   `json:"read_bytes"`  // in the period
	WriteBytes int64   `json:"write_bytes"` // in the period
}

// Marks of a footprint that is not a plain measure of the rows' storage.
const (
	// MarkLowerBound: some rows are not counted (held in a cache or WAL).
	MarkLowerBound = "lower bound"
	// MarkPreallocated: files are counted as allocated, pages not yet
	// filled included.
	MarkPreallocated = "includes preallocation"
	// MarkWholeServer: the size is the whole server's storage (every
	// database on it, data loaded before included), not the loaded
	// tables' alone; it is the load's only on a server that holds nothing
	// else.
	MarkWholeServer = "whole server"
)
