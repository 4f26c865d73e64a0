// Package loadcli is the one command-line front end of every load_*
// command: the common flags, mapped to a runner.Config, plus the target's
// own flags, and a single exit point.
//
// A loader's main is just
//
//	func main() { loadcli.Main(loadcli.Spec{Name: "load_x", Usage: "...", Target: "x", Flags: xFlags(), New: newTarget}) }
//
// Spec.New must not connect to the server: the target connects in Prepare,
// NewWriter and Count, which the runner does not call with --do-load=false.
//
// # Common flags
//
//	--file F (repeatable)   inputs, read in order; stdin when absent; gzip or zstd detected from the content
//	--format ilp|csv|pgcopy|parquet default: detected from the first bytes (Spec.Takes: what --help offers)
//	--table T               (csv/pgcopy loaders) table of a single-table input (default: file name, cpu.csv.gz => cpu)
//	--batch-size 5000       rows per batch (per request / COPY)
//	--workers 2             parallel writers (connections)
//	--hash-workers          route each series to one worker (series keep their input order)
//	--limit N               load the first N rows only
//	--do-load=false         read, split and count everything without connecting (loader overhead)
//	--verify count          afterwards check the database: count (rows per table), content (fingerprints: docs/verify.md) or off
//	--reporting-period 10s  a rates line on stderr per period (a progress bar on a terminal)
//	--retry-timeout 60s     total back-off (100ms doubling to 5s) for one batch's retryable errors
//	--skip-invalid          skip and count malformed records and rows the server rejects
//	--errors-file F         write every skipped or refused line to F, after a comment naming file, line, offset, reason (ILP)
//	--max-errors N          stop (failed) once more than N lines were skipped or refused (0: the first; implies --skip-invalid)
//	--resume RESULTS        continue the stopped load of that results file (its journal RESULTS.journal): inputs and flags from it
//	--accept-duplicates     with --resume where batches in doubt cannot be settled (QuestDB without DEDUP): send them again
//	--db-name benchmark, --do-create-db (true), --do-abort-on-exist, --drop-db
//	--table-prefix P        load every table as P<table> (data, queries and verification alike)
//	--columns a,b,c         the columns of a CSV without a header, or of a pgcopy file's fields (mapping.go)
//	--time-column, --time-unit, --tags  CSV written as line protocol: the timestamp column and its epoch unit, the tags
//	--results-file F        the results as JSON (rates, latency, periods, flags; secrets redacted)
//	--cpu-profile F         a CPU profile of the run, for go tool pprof
//	--server-pid P          the server's process for its CPU/RSS/IO (default: the local listener on the target's port)
//	--server-data-dir D     the server's data directory, sized beside the database's own storage figures
//	--footprint-settle D    wait up to D for the tables' size on disk to stop changing (0: measured once)
//	--rate R                offer R rows/s on a fixed schedule (open loop); latency also from each batch's due time
//	--rate-steps S,STEP,EVERY[,MAX]  a staircase of offered rates; with --slo pQ=D, the sustainable rate
//
// # Configuration vocabulary
//
// The targets' Config types (pkg/target/...) name one idea one way, and the
// flags follow them:
//
//	URLs                --urls                  base URLs, workers round-robin (QuestDB: one URL, --http-url)
//	User, Password      --user, --password      Basic auth (PostgreSQL: the role and its password)
//	Token               --token                 token (bearer) auth
//	InsecureSkipVerify  --insecure-skip-verify  do not check the server's TLS certificate
//	SSLMode             --sslmode               PostgreSQL only: libpq's six modes do not fit one bool
//	Gzip, GzipLevel     --gzip, --gzip-level    compress request bodies
//	RequestTimeout      --request-timeout       bound on one request (or one batch's write)
//	Precision           --precision             timestamp unit of the input
//	DBName              --db-name               the database loaded
//	Log                 (stderr)                the target's notes and warnings; nil discards them
//
// A target checks its own rules in its constructor (New or Config.Validate)
// and says what is wrong in terms of its Config; the command names the flag
// (SettingError).
//
// # Errors and exit status
//
// Any failure prints one line "load_x: <error>" on stderr and exits 1 after
// the summary (and the results file, with status "failed" or
// "interrupted") is written. A malformed record names the file, record,
// line and byte offset; a refused batch names its records and the server's
// reason; SIGINT/SIGTERM stops reading (stdin too, while it waits for
// input), gives in-flight batches 5s, and exits 1 with status
// "interrupted"; a second signal exits at once with 128 + its number.
package loadcli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/runner"
	"github.com/tsload/tsload/pkg/tabular"
)

// Spec describes one loader command.
type Spec struct {
	Name, Usage, Target string     // "load_influx", "...", "influx"
	Flags               []cli.Flag // target-specific flags
	// New builds the target from the parsed flags and the common settings
	// as their flags set them (cfg, a copy). What the target's flags decide
	// about the common settings it returns as Overrides, which the command
	// applies and records. It must not connect.
	New func(c *cli.Context, cfg runner.Config) (load.Target, Overrides, error)
	// Takes are the input formats the target loads itself: its package's
	// declaration, which its Accepts is made of (nil: ilp, csv and pgcopy,
	// or a choice its settings make, as TimescaleDB's --method). The help
	// offers these, CSV too for a target of lines only (the runner writes
	// CSV as lines: tabular.Loadable) and Parquet; no --table when all
	// are line protocol.
	Takes []format.Format
	// Unused are common flags the loader takes (so that one command line
	// fits every loader) but does not use: the results do not record
	// them (load_questdb has no database to name).
	Unused []string
	// Settings maps the target's Config fields to the flags that set them,
	// beside CommonSettings and HTTPSettingFlags: a load.SettingError
	// naming a field is shown with its flag.
	Settings map[string]string
}

// CommonSettings maps the runner's and load.PrepareOptions' fields to the
// common flags.
var CommonSettings = map[string]string{
	"Inputs": FlagFile, "Format": FlagFormat, "Table": FlagTable, "BatchSize": FlagBatchSize,
	"Workers": FlagWorkers, "HashWorkers": FlagHashWorkers, "Limit": FlagLimit, "DoLoad": FlagDoLoad,
	"Verify": FlagVerify, "ReportingPeriod": FlagReportingPeriod, "RetryTimeout": FlagRetryTimeout,
	"SkipInvalid": FlagSkipInvalid, "DBName": FlagDBName, "CreateDB": FlagCreateDB,
	"AbortOnExist": FlagAbortOnExist, "DropDB": FlagDropDB, "ResultsFile": FlagResultsFile,
	"TablePrefix":      FlagTablePrefix,
	"AcceptDuplicates": FlagAcceptDuplicates,
	"QueryRate":        FlagQueryRate, "QueryWorkers": FlagQueryWorkers, "QueryMix": FlagQueryMix,
}

// credentials are the fields whose flags are shown with their environment
// variables: secrets are best given there.
var credentials = map[string]bool{"User": true, "Password": true, "Token": true, "Org": true}

// flagOf returns the flag ("--name") that sets a Config field of spec's, or
// "" (a credential's comes with its environment variables: "--token or
// INFLUX_TOKEN"; the targets name credentials in parentheses).
func (spec Spec) flagOf(field string) string {
	for _, m := range []map[string]string{spec.Settings, HTTPSettingFlags, CommonSettings} {
		name, ok := m[field]
		if !ok {
			continue
		}
		if credentials[field] {
			for _, f := range spec.Flags {
				if s, ok := f.(*cli.StringFlag); ok && s.Name == name && len(s.EnvVars) > 0 {
					return "--" + name + " or " + strings.Join(s.EnvVars, " or ")
				}
			}
		}
		return "--" + name
	}
	return ""
}

// cliError is an error whose load.SettingErrors name flags, not Config
// fields; it wraps the original.
type cliError struct {
	msg string
	err error
}

func (e *cliError) Error() string { return e.msg }
func (e *cliError) Unwrap() error { return e.err }

// withFlags renders err's settings as spec's flags.
func (spec Spec) withFlags(err error) error {
	if err == nil {
		return nil
	}
	return &cliError{msg: load.RenderSettings(err, spec.flagOf), err: err}
}

// CommonFlags returns the flags shared by every loader, as spec's help shows
// them: --format offers what the runner loads into a target that takes
// spec.Takes, and --table is left out when spec
// takes line protocol only (it names the table of a csv or pgcopy input).
func CommonFlags(spec Spec) []cli.Flag {
	formats := []format.Format{format.ILP, format.CSV, format.PGCopy}
	if spec.Takes != nil {
		formats = tabular.Loadable(spec.Takes)
	}
	formats = append(formats, format.Parquet) // every loader reads Parquet (turned into what it takes)
	names := make([]string, len(formats))
	tables := false
	for i, f := range formats {
		names[i] = f.String()
		tables = tables || f != format.ILP
	}
	formatUsage := "input format: " + strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1] + " (default: detected from the content)"
	if len(names) == 1 {
		formatUsage = "input format: " + names[0] + ", the only one this loader takes (default: detected from the content)"
	}
	flags := []cli.Flag{
		&cli.StringSliceFlag{Name: FlagFile, Aliases: []string{"f"}, Usage: "input file (repeatable; gzip or zstd detected from the content); stdin when absent"},
		&cli.StringFlag{Name: FlagFormat, Usage: formatUsage},
	}
	if tables {
		flags = append(flags, &cli.StringFlag{Name: FlagTable, Usage: "table of a single-table csv/pgcopy input (default: the input's own declaration (pgcopy table chunk, or a CSV header matching a use-case table), else the file name, e.g. cpu.csv.gz => cpu)"})
	}
	flags = append(flags,
		&cli.IntFlag{Name: FlagBatchSize, Value: load.DefaultBatchSize, Usage: "rows per batch"},
		&cli.IntFlag{Name: FlagWorkers, Value: runner.DefaultWorkers, Usage: "parallel writers (each its own connection)"},
		&cli.BoolFlag{Name: FlagHashWorkers, Usage: "route each series to a fixed worker so it arrives in order"},
		&cli.Int64Flag{Name: FlagLimit, Usage: "load at most this many rows (0: all)"},
		&cli.BoolFlag{Name: FlagDoLoad, Value: true, Usage: "write to the database (false: read and split only, no connection)"},
		&cli.StringFlag{Name: FlagVerify, Value: string(VerifyCount), Usage: "after loading, check the database and fail on a mismatch: " + string(VerifyCount) + " (rows per table), " + string(VerifyContent) + " (rows, series, time range, per field count and sum: docs/verify.md) or " + string(VerifyOff) + " (true and false, deprecated, still mean count and off)"},
		&cli.DurationFlag{Name: FlagReportingPeriod, Value: runner.DefaultReportingPeriod, Usage: "interval of the progress lines on stderr; when given, also the length of the results' periods (otherwise chosen from the load's length: 20 to 64 periods)"},
		&cli.DurationFlag{Name: FlagRetryTimeout, Value: runner.DefaultRetryTimeout, Usage: "total back-off time for one batch's retryable errors"},
		&cli.BoolFlag{Name: FlagSkipInvalid, Usage: "skip and count malformed records and rows the server rejects instead of failing"},
		&cli.StringFlag{Name: FlagDBName, Value: load.DefaultDatabase, Usage: "database name"},
		&cli.BoolFlag{Name: FlagCreateDB, Value: true, Usage: "create the database and tables when missing"},
		&cli.BoolFlag{Name: FlagAbortOnExist, Usage: "fail if the database (or a table) already exists"},
		&cli.BoolFlag{Name: FlagDropDB, Usage: "drop the database (or the tables) first"},
		&cli.StringFlag{Name: FlagTablePrefix, Usage: "load every table as `P`<table> (letters, digits, _ or -), in the data and in every query, verification included: a run of its own on a shared server (QuestDB has one namespace)"},
		&cli.StringFlag{Name: FlagResultsFile, Usage: "write the results as JSON to this file (also on failure)"},
		&cli.StringFlag{Name: FlagCPUProfile, Usage: "write a CPU profile of the run to this file (go tool pprof)"},
	)
	return append(flags, costFlags()...)
}

// errorConfig sets cfg's errors file and error limit from the flags.
func errorConfig(c *cli.Context, cfg *runner.Config) error {
	cfg.ErrorsFile = c.String(FlagErrorsFile)
	if n := c.Int64(FlagMaxErrors); c.IsSet(FlagMaxErrors) && n >= 0 {
		cfg.LimitErrors, cfg.MaxErrors = true, n
	} else if c.IsSet(FlagMaxErrors) && n != -1 {
		return fmt.Errorf("--%s must be 0 or more (-1: no limit)", FlagMaxErrors)
	}
	return nil
}

// App returns the cli.App of spec; the Action runs the load with stdin and
// stderr, and returns its error.
func App(spec Spec, stdin io.Reader, stderr io.Writer) *cli.App {
	flags := append(append(append(append(append(append(CommonFlags(spec), errorFlags()...), resumeFlags()...), rateFlags()...), loopFlags()...), queryFlags()...), append(append(mappingFlags(), benchFlags()...), spec.Flags...)...)
	return &cli.App{
		Name:            spec.Name,
		Usage:           spec.Usage,
		Flags:           flags,
		HideHelpCommand: true,
		Writer:          stderr,
		ErrWriter:       stderr,
		ExitErrHandler:  func(*cli.Context, error) {},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return usageError(err, flags)
		},
		Action: func(c *cli.Context) error {
			return spec.withFlags(action(c, spec, stdin, stderr))
		},
	}
}

// action runs the load of App.
func action(c *cli.Context, spec Spec, stdin io.Reader, stderr io.Writer) error {
	if c.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q (inputs are given with --file)", c.Args().Slice())
	}
	resume, err := applyResume(c, spec)
	if err != nil {
		return err
	}
	if resume != nil && resume.Complete {
		finishedLoad(stderr, spec, c.String(FlagResume), resume)
		return nil
	}
	cfg, err := Config(c, spec, stdin, stderr)
	if err != nil {
		return err
	}
	cfg.Resume, cfg.AcceptDuplicates = resume, c.Bool(FlagAcceptDuplicates)
	var t load.Target
	if spec.New != nil {
		var o Overrides
		if t, o, err = spec.New(c, cfg); err != nil {
			return err
		}
		o.apply(&cfg)
	}
	if t == nil && cfg.DoLoad {
		return fmt.Errorf("%s: no target", spec.Name)
	}
	if t != nil {
		defer t.Close()
		if cfg.Format != format.Unknown && cfg.Format != format.Parquet { // Parquet becomes what the target takes
			// A given format is refused before any input is read.
			if err := runner.Accepts(t, cfg.Format); err != nil {
				return fmt.Errorf("--%s %s: %w", FlagFormat, cfg.Format, err)
			}
		}
	}
	if p := c.String(FlagCPUProfile); p != "" {
		stop, err := startCPUProfile(p)
		if err != nil {
			return err
		}
		defer stop()
	}
	var unit time.Duration
	if t != nil {
		unit = t.Hooks().LineUnit
	}
	qb, err := benchConfig(c, spec, cfg, unit) // querybench.go: --queries
	if err != nil {
		return err
	}
	if qb != nil && qb.skipLoad {
		return qb.run(c.Context, t, nil, stderr)
	}
	res, err := runner.Run(c.Context, cfg, t)
	if err == nil && qb != nil {
		err = qb.run(c.Context, t, res, stderr)
	}
	return err
}

// Config maps the common flags to a runner.Config.
func Config(c *cli.Context, spec Spec, stdin io.Reader, stderr io.Writer) (runner.Config, error) {
	cfg := runner.Config{
		Inputs:          c.StringSlice(FlagFile),
		Stdin:           stdin,
		Table:           c.String(FlagTable),
		BatchSize:       c.Int(FlagBatchSize),
		Workers:         c.Int(FlagWorkers),
		HashWorkers:     c.Bool(FlagHashWorkers),
		Limit:           c.Int64(FlagLimit),
		DoLoad:          c.Bool(FlagDoLoad),
		ReportingPeriod: c.Duration(FlagReportingPeriod),
		AutoPeriods:     !c.IsSet(FlagReportingPeriod), // the results' periods from the load's length
		RetryTimeout:    c.Duration(FlagRetryTimeout),
		SkipInvalid:     c.Bool(FlagSkipInvalid),
		TablePrefix:     c.String(FlagTablePrefix),
		Prepare: load.PrepareOptions{
			DBName:       c.String(FlagDBName),
			CreateDB:     c.Bool(FlagCreateDB),
			AbortOnExist: c.Bool(FlagAbortOnExist),
			DropDB:       c.Bool(FlagDropDB),
		},
		ResultsFile: c.String(FlagResultsFile),
		Stderr:      stderr,
		Loader:      spec.Name,
		Target:      spec.Target,
		Flags:       FlagValues(c, spec.Unused...),
	}
	if err := errorConfig(c, &cfg); err != nil {
		return cfg, err
	}
	if err := verifyConfig(c, &cfg); err != nil {
		return cfg, err
	}
	if f := c.String(FlagFormat); f != "" {
		format, err := format.Parse(f)
		if err != nil {
			return cfg, err
		}
		cfg.Format = format
	}
	if err := queryConfig(c, &cfg); err != nil {
		return cfg, err
	}
	if err := cfg.Validate(); err != nil {
		return cfg, spec.withFlags(err)
	}
	var err error
	if cfg.Cost, err = costConfig(c); err != nil {
		return cfg, err
	}
	if cfg.Pace, err = paceConfig(c); err != nil {
		return cfg, err
	}
	if err = loopConfig(c, &cfg); err != nil {
		return cfg, err
	}
	if err = mappingConfig(c, &cfg); err != nil {
		return cfg, err
	}
	if f, ok := stderr.(*os.File); ok && isatty.IsTerminal(f.Fd()) {
		cfg.Progress = true
	}
	if f, ok := stdin.(*os.File); ok && len(cfg.Inputs) == 0 && isatty.IsTerminal(f.Fd()) {
		// Without this a loader started without --file just waits.
		fmt.Fprintf(stderr, "%s: reading stdin (no --file given; Ctrl-D ends the input, Ctrl-C stops)\n", spec.Name)
	}
	return cfg, nil
}

// startCPUProfile profiles the process into path until stop is called.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--%s: %w", FlagCPUProfile, err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--%s: %w", FlagCPUProfile, err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// FlagValues returns the value of every flag of c's app but --help and
// those in unused, typed for the results file: booleans and numbers as
// they are, durations as Go duration text, repeatable flags as lists, the
// rest as text. The runner masks the secrets.
func FlagValues(c *cli.Context, unused ...string) map[string]any {
	skip := map[string]bool{"help": true}
	for _, u := range unused {
		skip[u] = true
	}
	out := map[string]any{}
	for _, f := range c.App.Flags {
		name := f.Names()[0]
		if skip[name] {
			continue
		}
		var v any
		switch x := c.Value(name).(type) {
		case cli.StringSlice:
			v = append([]string{}, x.Value()...)
		case *cli.StringSlice:
			v = append([]string{}, x.Value()...)
		case time.Duration:
			v = x.String()
		case bool, int, int64, uint, uint64, float64, string:
			v = x
		case nil:
			v = ""
		default:
			v = fmt.Sprint(x)
		}
		out[name] = v
	}
	return out
}

// flagString is a flag's value as a string (not redacted).
func flagString(c *cli.Context, name string) string {
	switch x := c.Value(name).(type) {
	case cli.StringSlice:
		return strings.Join(x.Value(), ",")
	case *cli.StringSlice:
		return strings.Join(x.Value(), ",")
	case nil:
		return ""
	default:
		return fmt.Sprint(x)
	}
}

// absPath is p made absolute (p itself when it cannot be).
func absPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// Run runs the loader with args (args[0] is the program name) and returns
// its error; it does not exit.
func Run(ctx context.Context, spec Spec, args []string, stdin io.Reader, stderr io.Writer) error {
	return App(spec, stdin, stderr).RunContext(ctx, args)
}

// Main runs the loader with os.Args, stopping cleanly on SIGINT/SIGTERM
// (a second one exits at once), prints an error as one line "name: error"
// on stderr and exits 1 on error.
func Main(spec Spec) {
	ctx, stop := notifyContext(spec.Name, os.Stderr, os.Exit)
	err := Run(ctx, spec, os.Args, os.Stdin, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %s\n", spec.Name, OneLine(err))
		os.Exit(1)
	}
}

// notifyContext returns a context cancelled by the first SIGINT or
// SIGTERM (its cause names the signal): the run stops reading, gives the
// writes in flight their grace, and writes its summary and results. A
// second signal exits at once through exit (128 + the signal's number),
// for a stop that waits on a server that does not answer. stop restores
// the signals' default action.
func notifyContext(name string, stderr io.Writer, exit func(int)) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	quit := make(chan struct{})
	wipe := "" // a progress bar's line is cleared first
	if f, ok := stderr.(*os.File); ok && isatty.IsTerminal(f.Fd()) {
		wipe = "\r\033[K"
	}
	go func() {
		select {
		case s := <-sigs:
			fmt.Fprintf(stderr, "%s%s: %v: stopping (in-flight batches get up to %s to finish); Ctrl-C again to exit at once\n", wipe, name, s, runner.DefaultGrace)
			cancel(signalError(s.String() + " signal received"))
		case <-quit:
			return
		}
		select {
		case s := <-sigs:
			fmt.Fprintf(stderr, "%s%s: second %v signal: exiting at once (no summary; a results file is not written)\n", wipe, name, s)
			code := 1
			if n, ok := s.(syscall.Signal); ok {
				code = 128 + int(n)
			}
			exit(code)
		case <-quit:
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			signal.Stop(sigs)
			close(quit)
			cancel(nil)
		})
	}
}

// signalError is the cause of a context a signal cancelled.
type signalError string

func (e signalError) Error() string { return string(e) }

// OneLine renders err on one line.
func OneLine(err error) string {
	s := err.Error()
	s = strings.ReplaceAll(s, "\r", "")
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", "; ")), " ")
}
