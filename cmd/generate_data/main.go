// Command generate_data writes seeded benchmark data (cpu-only, devops, iot,
// weather) as ILP, CSV or PostgreSQL binary COPY to stdout, a file or a
// directory. See pkg/gen for how it stays deterministic on many cores and
// machines, and docs/formats.md for the formats.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/cliflag"
	"github.com/tsload/tsload/pkg/envinfo"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/gen"
	"github.com/tsload/tsload/pkg/split"
	"github.com/tsload/tsload/pkg/usecase"
)

func main() {
	signal.Ignore(syscall.SIGPIPE) // a closed stdout becomes an EPIPE error
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args, os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

// exitCode prints err (one line) and returns the exit status. A broken pipe
// on stdout is quiet (status 141, as if killed by SIGPIPE).
func exitCode(err error, stderr io.Writer) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errStdoutPipe):
		return 141
	}
	fmt.Fprintf(stderr, "generate_data: %v\n", err)
	return 1
}

var errStdoutPipe = errors.New("stdout closed")

func run(ctx context.Context, args []string, stdout io.Writer, stderr io.Writer) error {
	var cfg gen.Config
	app := &cli.App{
		Name:            "generate_data",
		Usage:           "write seeded time-series benchmark data (ILP, CSV, PostgreSQL COPY binary or Parquet)",
		Writer:          stderr,
		ErrWriter:       stderr,
		HideHelpCommand: true,
		// one line on stderr for a bad flag, not the whole help
		OnUsageError: func(c *cli.Context, err error, _ bool) error { return cliflag.UsageError(err, c.App.Flags, "") },
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "use-case", Value: "cpu-only", Usage: "cpu-only, devops, iot or weather"},
			&cli.StringFlag{Name: "format", Value: "ilp", Usage: "ilp, csv, pgcopy or parquet"},
			&cli.Int64Flag{Name: "row-group-rows", DefaultText: "1048576", Usage: "parquet: rows per row group"},
			&cli.Uint64Flag{Name: "seed", DefaultText: "none, required", Usage: "random seed (the same seed gives the same bytes)"},
			&cli.IntFlag{Name: "scale", DefaultText: "1; weather: the whole grid, 1038240", Usage: "hosts (cpu-only, devops), trucks (iot) or grid locations (weather)"},
			&cli.StringFlag{Name: "timestamp-start", Value: "2016-01-01T00:00:00Z", Usage: "first timestamp (RFC 3339 or YYYY-MM-DD)"},
			&cli.StringFlag{Name: "timestamp-end", Value: "2016-01-02T00:00:00Z", Usage: "end of the range, exclusive"},
			&cli.StringFlag{Name: "log-interval", Usage: "time between epochs (default 10s; weather 1h)"},
			&cli.Int64Flag{Name: "max-rows", Usage: "stop after this many rows (0: no cap)"},
			&cli.StringFlag{Name: "file", Usage: "output file (default stdout; a .gz or .zst suffix compresses)"},
			&cli.StringFlag{Name: "out-dir", Usage: "write one file per table and schema.sql into this directory"},
			&cli.BoolFlag{Name: "gzip", Usage: "compress with gzip (parallel, one member per MiB)"},
			&cli.BoolFlag{Name: "zstd", Usage: "compress with zstd (parallel, level 3, one frame per 4 MiB)"},
			&cli.IntFlag{Name: "gzip-level", Value: gen.DefaultGzipLevel, Usage: "gzip level: 1 (fastest) to 9, -1 (library default), -2 (Huffman only)"},
			&cli.IntFlag{Name: "workers", Value: runtime.NumCPU(), Usage: "generating goroutines"},
			&cli.StringFlag{Name: "shard", Value: "0/1", Usage: "write only shard i of M (0-based, i/M): a subset of the series"},
			&cli.Float64Flag{Name: "out-of-order", Usage: "fraction of rows (0 to 1) written after later rows of their series, by up to --out-of-order-window (docs/generate.md)"},
			&cli.StringFlag{Name: "out-of-order-window", DefaultText: gen.DefaultOutOfOrderWindow.String(), Usage: "how far back an out-of-order row is, at most"},
			&cli.Float64Flag{Name: "late", Usage: "fraction of rows (0 to 1) written --late-by after their time"},
			&cli.StringFlag{Name: "late-by", DefaultText: gen.DefaultLateBy.String(), Usage: "how late a late row is"},
			&cli.Float64Flag{Name: "repeat", Usage: "fraction of rows (0 to 1) written twice, with the same series and time"},
			&cli.BoolFlag{Name: "repeat-changes", Usage: "a repeated row has new values (each field + 1)"},
			&cli.BoolFlag{Name: "fingerprint", Usage: "with --file: read the file back as the loaders do and write its content fingerprint into FILE.dataset.json, which a loader with --verify content checks its reading against (docs/verify.md)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return fmt.Errorf("unexpected argument %q", c.Args().First())
			}
			if !c.IsSet("seed") {
				return fmt.Errorf("--seed is required (the same seed gives the same data; pick any number)")
			}
			var err error
			cfg.UseCase = c.String("use-case")
			if cfg.Format, err = format.Parse(c.String("format")); err != nil {
				return err
			}
			cfg.Seed = c.Uint64("seed")
			cfg.Scale = c.Int("scale")
			if c.IsSet("scale") && cfg.Scale <= 0 {
				return fmt.Errorf("scale %d: must be positive", cfg.Scale)
			}
			if cfg.Start, err = gen.ParseTimestamp(c.String("timestamp-start")); err != nil {
				return fmt.Errorf("--timestamp-start: %w", err)
			}
			if cfg.End, err = gen.ParseTimestamp(c.String("timestamp-end")); err != nil {
				return fmt.Errorf("--timestamp-end: %w", err)
			}
			if s := c.String("log-interval"); s != "" {
				if cfg.Interval, err = gen.ParseInterval(s); err != nil {
					return fmt.Errorf("--log-interval: %w", err)
				}
			}
			cfg.MaxRows = c.Int64("max-rows")
			d := &cfg.Disorder
			d.OutOfOrder, d.Late, d.Repeat = c.Float64("out-of-order"), c.Float64("late"), c.Float64("repeat")
			d.RepeatChanges = c.Bool("repeat-changes")
			for _, w := range []struct {
				name string
				v    *time.Duration
			}{{"out-of-order-window", &d.OutOfOrderWindow}, {"late-by", &d.LateBy}} {
				if s := c.String(w.name); s != "" {
					if *w.v, err = gen.ParseInterval(s); err != nil {
						return fmt.Errorf("--%s: %w", w.name, err)
					}
				}
			}
			cfg.RowGroupRows = c.Int64("row-group-rows")
			cfg.File = c.String("file")
			cfg.OutDir = c.String("out-dir")
			cfg.Gzip = c.Bool("gzip")
			cfg.Zstd = c.Bool("zstd")
			cfg.GzipLevel = c.Int("gzip-level")
			// The file's suffix chooses a compression too: say so when it
			// contradicts the flag (gen only knows both were asked for).
			switch f := cfg.File; {
			case strings.HasSuffix(f, ".gz") && cfg.Zstd:
				return fmt.Errorf("--file %s: the .gz suffix means gzip, and --zstd asks for zstd (name the file .zst, or drop --zstd)", f)
			case strings.HasSuffix(f, ".zst") && cfg.Gzip:
				return fmt.Errorf("--file %s: the .zst suffix means zstd, and --gzip asks for gzip (name the file .gz, or drop --gzip)", f)
			}
			if cfg.GzipLevel == 0 {
				return fmt.Errorf("gzip level 0: want -2 (Huffman only), -1 (default) or 1 to 9")
			}
			cfg.Workers = c.Int("workers")
			if cfg.Workers < 1 {
				return fmt.Errorf("workers %d: must be at least 1", cfg.Workers)
			}
			if cfg.Shard, err = gen.ParseShard(c.String("shard")); err != nil {
				return err
			}
			cfg.Stdout, cfg.Stderr = stdout, stderr
			tty := isTerminal(stderr)
			cfg.Progress = cfg.File != "" && cfg.File != "-" || cfg.OutDir != "" || tty
			cfg.ProgressTTY = tty
			if c.Bool("fingerprint") && (cfg.File == "" || cfg.File == "-") {
				return fmt.Errorf("--fingerprint needs --file (the file is read back)")
			}
			err = gen.Run(c.Context, cfg)
			if errors.Is(err, gen.ErrBrokenPipe) && cfg.File == "" && cfg.OutDir == "" {
				return errStdoutPipe
			}
			if err == nil && c.Bool("fingerprint") {
				err = addFingerprint(cfg.File, stderr)
			}
			return err
		},
	}
	return app.RunContext(ctx, args)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// addFingerprint reads the file back with the loaders' reader and writes
// its content fingerprint into its dataset description.
func addFingerprint(path string, stderr io.Writer) error {
	acc, err := split.FingerprintFile(path, usecase.LookupTable)
	if err != nil {
		return fmt.Errorf("--fingerprint: %w", err)
	}
	d, err := envinfo.ReadDataset(path)
	if err != nil || d == nil {
		return fmt.Errorf("--fingerprint: %s%s: %v", path, envinfo.SidecarSuffix, err)
	}
	d.Fingerprint = envinfo.FingerprintOf(acc.Result())
	if err := envinfo.WriteDataset(path, *d); err != nil {
		return fmt.Errorf("--fingerprint: %w", err)
	}
	fmt.Fprintf(stderr, "generate_data: fingerprint of %d tables written to %s%s\n", len(d.Fingerprint), path, envinfo.SidecarSuffix)
	return nil
}
