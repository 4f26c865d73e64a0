// Command generate_queries writes a seeded query set of TSBS's catalogue
// (package querybench) for data that generate_data wrote: the same flags
// give the same file, which each load_<db> then runs with --queries after
// its load (or against a database already loaded) and checks against the
// data file.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/gen"
	"github.com/tsload/tsload/pkg/querybench"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "generate_queries: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var cfg querybench.GenConfig
	var file string
	app := &cli.App{
		Name:            "generate_queries",
		Usage:           "write a seeded query set of TSBS's query types, for load_<db> --queries",
		Writer:          stderr,
		ErrWriter:       stderr,
		HideHelpCommand: true,
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return err
		},
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "use-case", Value: "cpu-only", Usage: "cpu-only, devops or iot (as the data was generated)"},
			&cli.Uint64Flag{Name: "seed", DefaultText: "none, required", Usage: "random seed (the same seed gives the same queries)"},
			&cli.IntFlag{Name: "scale", Value: 1, Usage: "hosts or trucks of the data (generate_data --scale)"},
			&cli.StringFlag{Name: "timestamp-start", Value: "2016-01-01T00:00:00Z", Usage: "the data's first timestamp (generate_data's)"},
			&cli.StringFlag{Name: "timestamp-end", Value: "2016-01-02T00:00:00Z", Usage: "the data's end, exclusive (generate_data's)"},
			&cli.IntFlag{Name: "queries", Value: 10, Usage: "queries of each type"},
			&cli.StringFlag{Name: "query-type", Usage: "comma-separated query types (default: every type of the use case; docs/queries.md)"},
			&cli.StringFlag{Name: "table-prefix", Usage: "the loaders' --table-prefix"},
			&cli.StringFlag{Name: "file", Usage: "output file (default stdout)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return fmt.Errorf("unexpected argument %q", c.Args().First())
			}
			if !c.IsSet("seed") {
				return fmt.Errorf("--seed is required (the same seed gives the same queries)")
			}
			var err error
			cfg.UseCase, cfg.Seed, cfg.Scale = c.String("use-case"), c.Uint64("seed"), c.Int("scale")
			cfg.PerType, cfg.TablePrefix = c.Int("queries"), c.String("table-prefix")
			if cfg.Start, err = gen.ParseTimestamp(c.String("timestamp-start")); err != nil {
				return fmt.Errorf("--timestamp-start: %w", err)
			}
			if cfg.End, err = gen.ParseTimestamp(c.String("timestamp-end")); err != nil {
				return fmt.Errorf("--timestamp-end: %w", err)
			}
			if s := strings.TrimSpace(c.String("query-type")); s != "" {
				for _, name := range strings.Split(s, ",") {
					cfg.Types = append(cfg.Types, strings.TrimSpace(name))
				}
			}
			file = c.String("file")
			return nil
		},
	}
	if err := app.RunContext(ctx, args); err != nil {
		return err
	}
	if cfg.UseCase == "" { // --help
		return nil
	}
	return querybench.WriteFile(cfg, file, stdout)
}
