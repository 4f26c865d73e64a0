// Package results is the schema of the results file every loader writes
// (--results-file) and cmd/report reads: what a run loaded, at what rate
// and cost, how it was verified, and what it ran on. pkg/runner fills it
// in; docs/results-file.md describes every field.
package results

import "time"

// Run statuses in Results.Status.
const (
	StatusOK          = "ok"          // loaded and (when asked) verified
	StatusFailed      = "failed"      // stopped by an error, or verification failed
	StatusInterrupted = "interrupted" // stopped by SIGINT/SIGTERM
)

// SchemaVersion is the version of the results document the runner writes
// (Results.SchemaVersion). Files without one were written before version 2:
// their flag values are all strings and they have no Setup.
// docs/results-file.md describes every field.
const SchemaVersion = 2

// Results is the JSON document a loader writes with --results-file, and what
// cmd/report reads. Rates never count a row the server did not acknowledge.
type Results struct {
	SchemaVersion int    `json:"schema_version"`
	Loader        string `json:"loader"` // e.g. "load_questdb"
	Target        string `json:"target"` // e.g. "questdb"
	Status        string `json:"status"` // StatusOK, StatusFailed, StatusInterrupted
	// RunID names this run (a load resumed later links its runs by their
	// ids in Resume).
	RunID string `json:"run_id,omitempty"`
	// Resume is set on a run that continued a stopped load.
	Resume *Resume `json:"resume,omitempty"`
	Error  string  `json:"error,omitempty"`
	// Flags holds the value each flag the loader uses took effect with,
	// typed (numbers and booleans as JSON numbers and booleans, durations
	// as Go duration text, repeatable flags as arrays), secrets redacted.
	// A setting the target applied otherwise than the flag says (QuestDB's
	// dedup on a table the server created) is recorded as applied (Setup).
	Flags   map[string]any `json:"flags"`
	Inputs  []string       `json:"inputs"`  // file names, or "stdin"
	Format  string         `json:"format"`  // ilp, csv, pgcopy
	Start   time.Time      `json:"start"`   // wall clock when loading began
	End     time.Time      `json:"end"`     // wall clock when loading ended (before verify)
	Seconds float64        `json:"seconds"` // End - Start

	// Setup is where the load went and what the target made of the
	// tables (load.Target.Describe); nil when nothing was loaded.
	Setup *Setup `json:"setup,omitempty"`

	// SetupSeconds is the set-up before Start (the target's Prepare:
	// dropping and creating the database and its tables; connecting the
	// writers); it is not part of Seconds.
	SetupSeconds float64 `json:"setup_seconds"`
	// FinishSeconds is the target's Finish (load.Hooks.Finish) after the last
	// batch, such as deferred indexes or compression; it is part of Seconds.
	FinishSeconds float64 `json:"finish_seconds,omitempty"`
	// TargetReport holds figures of a target's own work (load.Hooks.Report),
	// keyed with their unit (e.g. "compress_seconds", "size_after_bytes").
	TargetReport map[string]float64 `json:"target_report,omitempty"`

	BatchSize int `json:"batch_size"`
	Workers   int `json:"workers"`
	// BatchesCapped are the batches cut at the splitter's byte bound
	// (32 MiB) before BatchSize rows; BatchSizeEffective is then the most
	// rows one of them held: the size the load's batches really had.
	BatchesCapped      int64 `json:"batches_capped,omitempty"`
	BatchSizeEffective int   `json:"batch_size_effective,omitempty"`

	Rows          int64   `json:"rows"`    // rows acknowledged by the server
	Metrics       int64   `json:"metrics"` // non-NULL field values in acknowledged rows
	Batches       int64   `json:"batches"` // batches acknowledged
	Bytes         int64   `json:"bytes"`   // decompressed input bytes read
	RowsPerSec    float64 `json:"rows_per_sec"`
	MetricsPerSec float64 `json:"metrics_per_sec"`

	RowsRead       int64 `json:"rows_read"`       // rows cut from the input
	Retries        int64 `json:"retries"`         // batch re-sends
	Errors         int64 `json:"errors"`          // batches or rows that failed
	RejectedRows   int64 `json:"rejected_rows"`   // rows the server dropped (partial writes)
	SkippedRecords int64 `json:"skipped_records"` // malformed records skipped by request

	Latency LatencySummary `json:"latency_ms"` // per-batch write latency, acknowledged batches
	Periods []Period       `json:"periods"`    // one per --reporting-period, or per PeriodSeconds
	// PeriodSeconds is the length of the periods (the last one may be
	// shorter); with PeriodsAuto it was chosen from the load's length (from
	// 50 ms, doubled to keep at most 64 periods) rather than given.
	PeriodSeconds float64 `json:"period_seconds,omitempty"`
	PeriodsAuto   bool    `json:"periods_auto,omitempty"`

	// Pace is the open-loop schedule of a paced run (--rate,
	// --rate-steps) and what it measured; nil for a closed-loop run.
	Pace *Pace `json:"pace,omitempty"`

	// Loop is how a run that replays its inputs (--loop) or ends at a
	// duration (--duration) went; nil for other runs.
	Loop *Loop `json:"loop,omitempty"`

	// Queries is the query load beside the writers (--query-rate); nil
	// when none ran.
	Queries *Queries `json:"queries,omitempty"`
	// QueryBench is the query set run after the load (--queries).
	QueryBench *QueryBench `json:"query_bench,omitempty"`

	Verify *Verification `json:"verify,omitempty"`

	// Serialization is filled by loaders that also time serialisation alone
	// (QuestDB): rows/s and MiB/s serialised vs sent.
	Serialization *Serialization `json:"serialization,omitempty"`

	// Cost is the storage footprint, the server's resources and the
	// loader's own (see Cost).
	Cost *Cost `json:"cost,omitempty"`

	// Environment is what the run was measured on (server version,
	// machine, dataset, build).
	Environment *Environment `json:"environment,omitempty"`
}

// LatencySummary is in milliseconds.
type LatencySummary struct {
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
}

// Period is one reporting period.
type Period struct {
	At            float64 `json:"at"`      // seconds since Start at the period's end
	Seconds       float64 `json:"seconds"` // the period's length
	Rows          int64   `json:"rows"`
	Metrics       int64   `json:"metrics"`
	Batches       int64   `json:"batches"`
	RowsPerSec    float64 `json:"rows_per_sec"`
	MetricsPerSec float64 `json:"metrics_per_sec"`
	TotalRows     int64   `json:"total_rows"` // cumulative at the period's end
	// Server is the server's resource use in the period (when measured).
	Server *PeriodServer `json:"server,omitempty"`
	// Pace is the schedule's state in the period of a paced run.
	Pace *PeriodPace `json:"pace,omitempty"`
	// Pass is the pass of the inputs being read at the period's end (a
	// run with Loop; 0 otherwise).
	Pass int `json:"pass,omitempty"`
	// Queries are the query types answered in the period (--query-rate).
	Queries []QueryType `json:"queries,omitempty"`
}

// Loop is a long run: its inputs replayed pass after pass (Replay), each
// pass's timestamps moved by the span of the first times the pass's
// number minus one, and/or reading stopped at a duration.
type Loop struct {
	Replay bool `json:"replay"`
	// Duration is the run's bound on reading, in seconds (0: none).
	Duration float64 `json:"duration_seconds,omitempty"`
	// Passes is how many passes were read (the last one may be partial).
	Passes int `json:"passes"`
	// Span is the shift between passes, in Unit: the inputs' largest
	// timestamp minus the smallest plus one unit.
	Span int64  `json:"span,omitempty"`
	Unit string `json:"unit,omitempty"` // "µs" (CSV, pgcopy) or "ILP timestamp units" (the loader's precision)
	// Stopped says reading stopped at Duration (rather than at the end of
	// the input, a row limit or a staircase's end).
	Stopped bool `json:"stopped_at_duration,omitempty"`
}

// Pace is what a paced (open-loop) run offered and measured. Latency from
// the due time is what a producer sending on the schedule sees: it counts
// the wait for a free worker and every retry, so a server that stalls
// cannot hide the stall (Results.Latency is from the send of the attempt
// that succeeded: what the server took).
type Pace struct {
	// Rate is the constant offered rate, rows/s (0 for a staircase).
	Rate float64 `json:"rate,omitempty"`
	// StepsStart, StepsStep, StepsEvery and StepsMax describe a staircase.
	StepsStart float64 `json:"steps_start,omitempty"`
	StepsStep  float64 `json:"steps_step,omitempty"`
	StepsEvery float64 `json:"steps_every_seconds,omitempty"`
	StepsMax   float64 `json:"steps_max,omitempty"`
	// SLOQuantile and SLOMillis are the latency bound steps are judged by
	// (e.g. 99 and 100: p99 from due under 100 ms); 0 when none.
	SLOQuantile float64 `json:"slo_quantile,omitempty"`
	SLOMillis   float64 `json:"slo_ms,omitempty"`

	// OfferedRowsPerSec is the rows the schedule made due over the time it
	// took to make them due; AchievedRowsPerSec the rows acknowledged over
	// the run's seconds (a server that falls behind stretches them).
	OfferedRowsPerSec  float64 `json:"offered_rows_per_sec"`
	AchievedRowsPerSec float64 `json:"achieved_rows_per_sec"`
	// LatencyFromDue is per batch, from its due time to its acknowledgement.
	LatencyFromDue LatencySummary `json:"latency_from_due_ms"`
	// MaxBacklogRows and MaxLagSeconds are the largest backlog and lag
	// sampled (each period's end, each step's end).
	MaxBacklogRows int64   `json:"max_backlog_rows"`
	MaxLagSeconds  float64 `json:"max_lag_seconds"`

	// Steps are the staircase's steps, in order.
	Steps []RateStep `json:"steps,omitempty"`
	// Halted: the staircase stopped at the end of a step whose backlog
	// was not bounded (the steps above it were not run).
	Halted bool `json:"halted,omitempty"`
	// SustainableRowsPerSec is the rate of the highest step that kept the
	// SLO with a bounded backlog (0: none did; see docs/rate.md).
	SustainableRowsPerSec float64 `json:"sustainable_rows_per_sec,omitempty"`
	// SustainableAtLeast: no step above the sustainable one was run to
	// its end (the staircase ended by EndedBy before a step failed), so
	// the sustainable rate is a lower bound, not the server's limit.
	SustainableAtLeast bool `json:"sustainable_at_least,omitempty"`
	// FailedBelow are the rates of complete steps below the sustainable
	// one that failed (a passing stall, or a rate near the limit).
	FailedBelow []float64 `json:"failed_below,omitempty"`
	// EndedBy is what ended a staircase: "max" (the step at MAX ran its
	// time), "input" (the input, or --limit, ended), "backlog" (Halted),
	// "duration" (--duration), "stopped" (an interrupt or an error).
	EndedBy string `json:"ended_by,omitempty"`
	// SLOMet judges the SLO of a constant rate (--rate with --slo): the
	// SLO's quantile of the run's latency from due (SLOQuantileMillis)
	// under SLOMillis; nil without an SLO or a staircase (judged per step).
	SLOMet            *bool   `json:"slo_met,omitempty"`
	SLOQuantileMillis float64 `json:"slo_quantile_ms,omitempty"`
}

// RateStep is one step of a staircase.
type RateStep struct {
	RowsPerSec         float64        `json:"rows_per_sec"` // offered
	At                 float64        `json:"at"`           // seconds since Start when it began
	Seconds            float64        `json:"seconds"`      // how long it ran
	AchievedRowsPerSec float64        `json:"achieved_rows_per_sec"`
	Batches            int64          `json:"batches"` // acknowledged batches due in the step
	LatencyFromDue     LatencySummary `json:"latency_from_due_ms"`
	// QuantileMillis is the SLO's quantile of LatencyFromDue (e.g. p99).
	QuantileMillis float64 `json:"slo_quantile_ms,omitempty"`
	BacklogRows    int64   `json:"backlog_rows"` // at the step's end
	LagSeconds     float64 `json:"lag_seconds"`  // at the step's end
	// Bounded: the backlog did not grow through the step (it was not
	// above one batch per worker at half, three quarters and the end of
	// the step while growing; docs/rate.md). Complete: the step ran for
	// its whole duration.
	Bounded  bool `json:"bounded"`
	Complete bool `json:"complete"`
	// OK: complete, bounded, and within the SLO.
	OK bool `json:"ok"`
}

// PeriodPace is a paced run's schedule in one reporting period.
type PeriodPace struct {
	Rate              float64 `json:"rate"`                 // the schedule's rate at the period's end, rows/s
	OfferedRowsPerSec float64 `json:"offered_rows_per_sec"` // rows that fell due in the period / its seconds
	// BacklogRows are the rows due and not yet taken by a worker at the
	// period's end; LagSeconds how long ago the oldest of them fell due.
	BacklogRows int64   `json:"backlog_rows"`
	LagSeconds  float64 `json:"lag_seconds"`
	// Latencies of the batches acknowledged in the period, from the send
	// and from the due time.
	Latency        LatencySummary `json:"latency_ms"`
	LatencyFromDue LatencySummary `json:"latency_from_due_ms"`
}

// Verification compares the rows acknowledged per table with the database's count.
// Expected is Before plus the rows acknowledged: what the database should
// hold after the load.
type Verification struct {
	OK       bool             `json:"ok"`
	Before   map[string]int64 `json:"before,omitempty"` // counted before this run wrote to each table
	Expected map[string]int64 `json:"expected"`
	Actual   map[string]int64 `json:"actual"`
	Seconds  float64          `json:"seconds"`
	Note     string           `json:"note,omitempty"`
	// Mode is what was verified: "count" (rows per table) or "content"
	// (each table's fingerprint: rows, series, time range, per field the
	// non-NULL count and sum; docs/verify.md).
	Mode string `json:"mode,omitempty"`
	// Content is the comparison of each table's fingerprint (Mode
	// "content"), sorted by table.
	Content []ContentCheck `json:"content,omitempty"`
}

// ContentCheck is one table's content verification: what the loader read
// (rows, series, time range in nanoseconds since the epoch; after a
// before-the-load fingerprint was combined in) and what differs.
type ContentCheck struct {
	Table   string `json:"table"`
	OK      bool   `json:"ok"`
	Rows    int64  `json:"rows"`
	Series  int64  `json:"series"`
	MinTime int64  `json:"min_time"`
	MaxTime int64  `json:"max_time"`
	Fields  int    `json:"fields"`
	// Mismatches name the field, the aggregate, the expected and the
	// found value; Notes say what could not be compared and why.
	Mismatches []string `json:"mismatches,omitempty"`
	Notes      []string `json:"notes,omitempty"`
}

// Serialization compares serialising alone with serialising and sending.
type Serialization struct {
	SerializedRowsPerSec float64 `json:"serialized_rows_per_sec"`
	SerializedMiBPerSec  float64 `json:"serialized_mib_per_sec"`
	SentRowsPerSec       float64 `json:"sent_rows_per_sec"`
	SentMiBPerSec        float64 `json:"sent_mib_per_sec"`
}

// Setup is where a load went and what the target set up, as the target
// reports it after the load (load.Target.Describe).
type Setup struct {
	// URL is the server address written to (credentials removed); several
	// are comma-separated.
	URL string `json:"url,omitempty"`
	// Database is the database (InfluxDB 1.x, CnosDB, PostgreSQL) or
	// bucket (InfluxDB 2.x) loaded; empty for QuestDB (one namespace).
	Database string `json:"database,omitempty"`
	// API is the protocol variant used, as detected or given: InfluxDB's
	// "v1", "v2" or "v3", QuestDB's "ilp/http" or "ilp/tcp"; empty for a
	// target with one (the load method is in the flags).
	API string `json:"api,omitempty"`
	// Tables are the tables loaded, with what the target made of each.
	Tables []TableSetup `json:"tables,omitempty"`
	// Settings are the settings that bear on a comparison between
	// databases, as applied, keyed by the flag that sets them: "gzip"
	// (request bodies compressed), "dedup" (every table loaded replaces
	// rows with the same timestamp and tags), "request-timeout" (Go
	// duration text). A key is absent when it does not apply.
	Settings map[string]any `json:"settings,omitempty"`
}

// TableSetup is one table as loaded. A nil field does not apply to the
// target.
type TableSetup struct {
	Name string `json:"name"`
	// Dedup: the table replaces a row with the timestamp and tags of one
	// it holds (QuestDB DEDUP UPSERT KEYS).
	Dedup *bool `json:"dedup,omitempty"`
	// Hypertable: a TimescaleDB hypertable (false: a plain table).
	Hypertable *bool `json:"hypertable,omitempty"`
}
