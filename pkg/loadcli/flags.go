package loadcli

import "github.com/urfave/cli/v2"

// The loaders' flags in one place: their names (commands, tests and error
// messages name a flag by these constants, never by a string of their
// own) and the flag sets besides CommonFlags' own and the HTTP ones
// (http.go). The files named after each topic map the flags to
// runner.Config.

// Common flag names.
const (
	FlagFile            = "file"
	FlagFormat          = "format"
	FlagTable           = "table"
	FlagBatchSize       = "batch-size"
	FlagWorkers         = "workers"
	FlagHashWorkers     = "hash-workers"
	FlagLimit           = "limit"
	FlagDoLoad          = "do-load"
	FlagVerify          = "verify"
	FlagReportingPeriod = "reporting-period"
	FlagRetryTimeout    = "retry-timeout"
	FlagSkipInvalid     = "skip-invalid"
	FlagDBName          = "db-name"
	FlagCreateDB        = "do-create-db"
	FlagAbortOnExist    = "do-abort-on-exist"
	FlagDropDB          = "drop-db"
	FlagTablePrefix     = "table-prefix"
	FlagResultsFile     = "results-file"
	FlagCPUProfile      = "cpu-profile"
)

// The errors file and the error limit.
const (
	FlagErrorsFile = "errors-file"
	FlagMaxErrors  = "max-errors"
)

// Flag names of the loaders that write over HTTP (load_influx, load_cnosdb,
// load_questdb).
const (
	FlagURLs, FlagPrecision           = "urls", "precision"         // where requests go, the input's timestamps
	FlagGzip, FlagGzipLevel           = "gzip", "gzip-level"        // request bodies
	FlagUser, FlagPassword, FlagToken = "user", "password", "token" // Basic auth or a token
	FlagInsecureSkipVerify            = "insecure-skip-verify"
	FlagRequestTimeout                = "request-timeout"
)

// Flags of the cost measurement (cost.Config).
const (
	FlagServerPID       = "server-pid"
	FlagServerDataDir   = "server-data-dir"
	FlagFootprintSettle = "footprint-settle"
)

// Flags of a long run (runner.Config.Loop and Duration; docs/rate.md).
const (
	FlagLoop     = "loop"
	FlagDuration = "duration"
)

// Flags of an open-loop run (pace.Pace; docs/rate.md).
const (
	FlagRate      = "rate"
	FlagRateSteps = "rate-steps"
	FlagSLO       = "slo"
)

// Resuming a stopped load.
const (
	FlagResume           = "resume"
	FlagAcceptDuplicates = "accept-duplicates"
)

// Flags of tabular input that does not say everything itself (a user's
// CSV or pgcopy file: runner.Config.Mapping; docs/own-data.md).
const (
	FlagColumns    = "columns"
	FlagTimeColumn = "time-column"
	FlagTimeUnit   = "time-unit"
	FlagTags       = "tags"
)

// costFlags are the flags of what a load costs: the server's process and
// data directory, and the wait for the footprint to settle.
func costFlags() []cli.Flag {
	return []cli.Flag{
		&cli.IntFlag{Name: FlagServerPID, DefaultText: "the local process listening on the target's port; a remote server is not measured", Usage: "the database server's pid, to sample its CPU, memory and I/O from /proc with its children"},
		&cli.StringFlag{Name: FlagServerDataDir, Usage: "the server's data directory: its size is recorded beside the database's own storage figures (and used when the target has none)"},
		&cli.DurationFlag{Name: FlagFootprintSettle, Usage: "after the load, wait up to this long for the tables' size on disk to stop changing (0: measure it once, right after the last batch)"},
	}
}

// loopFlags are the flags of a long run (runner.Config.Loop and
// Duration; docs/rate.md).
func loopFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: FlagLoop, Usage: "replay the files pass after pass, each pass's timestamps moved past the last's by the files' time span (last - first timestamp + 1 unit), so nothing overwrites and verification counts every pass; ends at --duration, --limit or the end of --rate-steps' MAX"},
		&cli.DurationFlag{Name: FlagDuration, Usage: "stop reading at this age of the run (e.g. 30m); what was sent is written and verified; without --loop the end of the input may come first"},
	}
}

// mappingFlags are the flags of tabular input that does not say
// everything itself (a user's CSV, Parquet or pgcopy file:
// runner.Config.Mapping; docs/own-data.md).
func mappingFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: FlagColumns, Usage: "`a,b,c`: the columns of a CSV without a header (its first line is a row) or of a pgcopy file's fields, in order (default: the header's; a pgcopy file's table chunk, else the table's columns)"},
		&cli.StringFlag{Name: FlagTimeColumn, Usage: "the timestamp column of CSV or Parquet written as line protocol (default: the first)"},
		&cli.StringFlag{Name: FlagTimeUnit, Usage: "unit of numeric (epoch) timestamps of CSV or Parquet written as line protocol: s, ms, us or ns (default: RFC 3339 text)"},
		&cli.StringFlag{Name: FlagTags, Usage: "`a,b`: the tag (QuestDB symbol) columns of CSV or Parquet written as line protocol; \"\" for none (default: the database's when the table exists, else the use case's when the header is one's, else the text columns)"},
	}
}

// rateFlags are the flags of an open-loop run (pace.Pace; docs/rate.md).
func rateFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: FlagRate, Usage: "offer this many rows/s over all workers on a fixed schedule (open loop; k and M suffixes: 200k) and measure latency from each batch's due time too (default: closed loop, as fast as the server answers)"},
		&cli.StringFlag{Name: FlagRateSteps, Usage: "START,STEP,EVERY[,MAX]: a staircase of offered rates, START rows/s for EVERY, then START+STEP, ...; with MAX the run ends after the step at MAX; reports the sustainable rate (see --slo)"},
		&cli.StringFlag{Name: FlagSLO, Usage: "pQ=D, e.g. p99=100ms: the bound on the latency from due that a step of --rate-steps must keep (with a bounded backlog) to count as sustainable; with --rate, the whole run is judged against it (met or not)"},
	}
}

// resumeFlags are the flags of resuming a stopped load (docs/resume.md).
func resumeFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: FlagResume, Usage: "continue the stopped load whose results file (with its journal beside it, RESULTS.journal) this is: inputs, target and flags come from it; batches already acknowledged are skipped, those in doubt settled; writes its results there unless --results-file says otherwise"},
		&cli.BoolFlag{Name: FlagAcceptDuplicates, Usage: "with --resume on a target that cannot settle batches in doubt (QuestDB without --dedup): send them again, accepting that their rows may be stored twice"},
	}
}

// errorFlags are the flags of the errors file and the error limit.
func errorFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: FlagErrorsFile, Usage: "write every line skipped as malformed or refused by the server to this file, each after a comment line naming the input, line, byte offset and reason, so that it can be fixed and loaded as is (ILP input)"},
		&cli.Int64Flag{Name: FlagMaxErrors, Value: -1, Usage: "stop (non-zero exit) once more than this many lines were skipped or refused; 0: the first one stops the run; implies --skip-invalid (-1: no limit)"},
	}
}
