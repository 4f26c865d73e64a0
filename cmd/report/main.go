// Command report reads loader results files (--results-file of every
// cmd/load_*) and writes tables, plots and merged summaries:
//
//	report table [--format md|csv|cost] [--group batch_size,workers] results/*.json
//	report plot  --out DIR [--metric rows|metrics] results/*.json
//	report bars  --out DIR [--group batch_size,workers] [--metric rows|metrics] [--name NAME] results/*.json
//	report html  --out FILE [--group target,batch_size,workers] [--title T] results/*.json
//	report merge shard*.json > merged.json
package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/cliflag"
	"github.com/tsload/tsload/pkg/report"
)

func main() {
	if err := newApp(os.Stdout).Run(os.Args); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
}

func files(c *cli.Context) ([]string, error) {
	if c.NArg() == 0 {
		return nil, fmt.Errorf("%s: no results files given", c.Command.Name)
	}
	for _, a := range c.Args().Slice() {
		if strings.HasPrefix(a, "-") {
			return nil, fmt.Errorf("%s: %q after the files: flags go before the results files", c.Command.Name, a)
		}
	}
	return c.Args().Slice(), nil
}

// groupFlag is --group of table, bars and html; empty: report.DefaultGroup.
var groupFlag = &cli.StringFlag{Name: "group",
	Usage: "comma-separated keys that make a cell: dataset, target, server, api, batch_size, workers, gzip, dedup, request_timeout, loader, format, inputs, db_name, name (the results file name: one cell per run) (default: target, server and API, plus the dataset and the settings that differ between the runs)"}

// group parses --group (nil when not given: the default).
func group(c *cli.Context) ([]string, error) {
	if c.String("group") == "" {
		return nil, nil
	}
	return report.ParseGroup(c.String("group"))
}

// outDirFlag is --out of plot and bars: the directory the images go to.
var outDirFlag = &cli.StringFlag{Name: "out", Required: true, Usage: "output directory"}

var metricFlag = &cli.StringFlag{Name: "metric", Value: "rows", Usage: "rate to plot: rows or metrics (per second)"}

// args are what the commands read besides their own flags: the results
// files, and --group and --metric where the command has them (a flag the
// command lacks reads as empty).
type args struct {
	files  []string
	group  []string
	metric report.Metric
}

// action runs run with the command's args, refusing bad ones first.
func action(run func(c *cli.Context, a args) error) cli.ActionFunc {
	return func(c *cli.Context) error {
		var a args
		var err error
		if a.files, err = files(c); err != nil {
			return err
		}
		if a.group, err = group(c); err != nil {
			return err
		}
		if m := c.String("metric"); m != "" {
			if a.metric, err = report.ParseMetric(m); err != nil {
				return err
			}
		}
		return run(c, a)
	}
}

// resultsCommand is a command that reads results files: name, usage, its
// flags, and run with the files and flags read (action).
func resultsCommand(name, usage string, flags []cli.Flag, run func(c *cli.Context, a args) error) *cli.Command {
	return &cli.Command{Name: name, Usage: usage, ArgsUsage: "results.json...", Flags: flags, Action: action(run)}
}

// usageError answers a bad flag in one line, as the loaders do
// (cliflag.UsageError), instead of the whole help.
func usageError(c *cli.Context, err error, _ bool) error {
	name, flags := "report", c.App.Flags
	if c.Command != nil && c.Command.Name != "" && c.Command.Name != c.App.Name {
		name += " " + c.Command.Name
		flags = c.Command.Flags
	}
	return cliflag.UsageError(err, flags, name)
}

func newApp(stdout io.Writer) *cli.App {
	app := &cli.App{
		Name:         "report",
		Usage:        "tables, plots and merged summaries from loader results files",
		Writer:       stdout,
		OnUsageError: usageError,
		// A word that is no command (report tabel) is an error in one line.
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return cli.ShowAppHelp(c)
			}
			var names []string
			for _, cmd := range c.App.Commands {
				if cmd.Name != "help" {
					names = append(names, cmd.Name)
				}
			}
			return fmt.Errorf("unknown command %q (want %s; see report --help)", c.Args().First(), strings.Join(names, ", "))
		},
		Commands: []*cli.Command{
			resultsCommand("table", "Markdown or CSV table: median and min–max of rows/s and metrics/s per cell, p99 batch latency, verified rows",
				[]cli.Flag{
					&cli.StringFlag{Name: "format", Value: "md", Usage: "md, csv, or cost (rows/s beside bytes on disk, bytes/row, server CPU-s per million rows, server peak RSS, loader CPU)"},
					groupFlag,
				},
				func(c *cli.Context, a args) error {
					return report.RunTable(report.TableConfig{Files: a.files, Format: c.String("format"), Group: a.group, Out: stdout})
				}),
			resultsCommand("plot", "PNG and SVG of each run's insert rate per reporting period over time (DIR/<name>.rate.png/.svg; a paced run also .pace: offered vs achieved rows/s, and .latency: percentiles from due and from send)",
				[]cli.Flag{
					outDirFlag,
					metricFlag,
				},
				func(c *cli.Context, a args) error {
					return report.RunPlot(report.PlotConfig{Files: a.files, OutDir: c.String("out"), Metric: a.metric, Out: stdout})
				}),
			resultsCommand("bars", "grouped bar chart of the median rate per cell (first group key on the x axis, the rest as bars)",
				[]cli.Flag{
					outDirFlag,
					groupFlag,
					metricFlag,
					&cli.StringFlag{Name: "name", Usage: "file name without extension (default bars_<metric>)"},
				},
				func(c *cli.Context, a args) error {
					return report.RunBars(report.BarsConfig{Files: a.files, OutDir: c.String("out"), Group: a.group, Metric: a.metric, Name: c.String("name"), Out: stdout})
				}),
			resultsCommand("html", "one self-contained HTML page (inline SVG and CSS, no network): comparison table, bars with min–max whiskers, each run's rate over time, the environment",
				[]cli.Flag{
					&cli.StringFlag{Name: "out", Required: true, Usage: "the HTML file to write (\"-\": stdout)"},
					groupFlag,
					&cli.StringFlag{Name: "title", Usage: "page title (default: the targets and the dataset)"},
				},
				func(c *cli.Context, a args) error {
					out := c.String("out")
					if out == "-" {
						out = ""
					}
					return report.RunHTML(report.HTMLConfig{Files: a.files, Group: a.group, Title: c.String("title"), OutFile: out, Out: stdout})
				}),
			{
				Name:      "merge",
				Usage:     "combine per-shard results into one results document on stdout (summed counts, rate over the common wall-clock window)",
				ArgsUsage: "shard.json...",
				Action: action(func(c *cli.Context, a args) error {
					return report.RunMerge(report.MergeConfig{Files: a.files, Out: stdout})
				}),
			},
		},
	}
	for _, cmd := range app.Commands {
		cmd.OnUsageError = usageError
	}
	return app
}
