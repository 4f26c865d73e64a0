package loadcli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/querybench"
	"github.com/tsload/tsload/pkg/results"
	"github.com/tsload/tsload/pkg/runner"
)

// Flags of the query benchmark after the load (package querybench;
// docs/queries.md).
const (
	FlagQueries        = "queries"
	FlagQueriesWorkers = "queries-workers"
	FlagQueriesRate    = "queries-rate"
	FlagQueriesWarmup  = "queries-warmup"
	FlagCheck          = "check"
	FlagSkipLoad       = "skip-load"
)

// benchFlags are the flags of the query benchmark.
func benchFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: FlagQueries, Usage: "after the load, run this query set (generate_queries' file) against the database: per-type latency and queries/s into the results, every answer checked against --file"},
		&cli.IntFlag{Name: FlagQueriesWorkers, Value: 1, Usage: "--queries: query connections, one query in flight each"},
		&cli.Float64Flag{Name: FlagQueriesRate, Usage: "--queries: queries per second over all connections (latency from each query's due time); 0: as fast as they answer"},
		&cli.IntFlag{Name: FlagQueriesWarmup, Usage: "--queries: run this many of the set's first queries before measuring"},
		&cli.BoolFlag{Name: FlagCheck, Value: true, Usage: "--queries: check every answer against the evaluator over --file (false: nothing is checked, and the results say so)"},
		&cli.BoolFlag{Name: FlagSkipLoad, Usage: "--queries: load nothing; run the set against the database as it is (loaded before from --file)"},
	}
}

// queryBench is a command's --queries run.
type queryBench struct {
	cfg      querybench.Config
	skipLoad bool
	results  string // the results file, "" for none
	loader   string
}

// benchConfig maps the benchmark flags; nil without --queries. With
// --check the reference answers are computed here, in one pass over the
// input, before anything is loaded; unit is the input's timestamps' unit,
// the target's (load.Hooks.LineUnit; 0: nanoseconds).
func benchConfig(c *cli.Context, spec Spec, cfg runner.Config, unit time.Duration) (*queryBench, error) {
	path := c.String(FlagQueries)
	if path == "" {
		// A value other than the default, not a flag set: a resumed load
		// sets every recorded flag (resume.go).
		for _, f := range []struct {
			name  string
			given bool
		}{{FlagQueriesWorkers, c.Int(FlagQueriesWorkers) != 1}, {FlagQueriesRate, c.Float64(FlagQueriesRate) != 0},
			{FlagQueriesWarmup, c.Int(FlagQueriesWarmup) != 0}, {FlagCheck, !c.Bool(FlagCheck)}, {FlagSkipLoad, c.Bool(FlagSkipLoad)}} {
			if f.given {
				return nil, fmt.Errorf("--%s needs --%s", f.name, FlagQueries)
			}
		}
		return nil, nil
	}
	set, err := querybench.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--%s: %w", FlagQueries, err)
	}
	if set.Header.TablePrefix != cfg.TablePrefix {
		return nil, fmt.Errorf("--%s %s: its tables start with %q, but --%s is %q (generate_queries --table-prefix)",
			FlagQueries, path, set.Header.TablePrefix, FlagTablePrefix, cfg.TablePrefix)
	}
	qb := &queryBench{skipLoad: c.Bool(FlagSkipLoad), results: cfg.ResultsFile, loader: spec.Name,
		cfg: querybench.Config{Set: set, File: path, Workers: c.Int(FlagQueriesWorkers), Rate: c.Float64(FlagQueriesRate),
			Warmup: c.Int(FlagQueriesWarmup), Log: cfg.Stderr}}
	if !c.Bool(FlagCheck) {
		qb.cfg.Note = "--check=false: no answer was checked"
		return qb, nil
	}
	if len(cfg.Inputs) != 1 {
		return nil, fmt.Errorf("--%s checks its answers against one --file (the data as loaded; or --%s=false)", FlagQueries, FlagCheck)
	}
	fmt.Fprintf(cfg.Stderr, "%s: computing the %d answers of %s over %s\n", spec.Name, len(set.Queries), path, cfg.Inputs[0])
	if qb.cfg.Expected, err = querybench.Expect(cfg.Inputs[0], cfg.TablePrefix, unit, set.Queries); err != nil {
		return nil, fmt.Errorf("--%s: %w", FlagQueries, err)
	}
	qb.cfg.Input = cfg.Inputs[0]
	return qb, nil
}

// run runs the set against t and adds its figures to the results file
// (written by the load before it, or on its own with --skip-load).
func (qb *queryBench) run(ctx context.Context, t load.Target, res *results.Results, stderr io.Writer) error {
	if t == nil || t.Hooks().NewQuerier == nil {
		return fmt.Errorf("--%s: %s cannot be queried", FlagQueries, qb.loader)
	}
	qb.cfg.NewQuerier = t.Hooks().NewQuerier
	qr, err := querybench.Run(ctx, qb.cfg)
	if qr != nil && qb.results != "" {
		if res == nil {
			res = &results.Results{Loader: qb.loader}
		}
		res.QueryBench = qr
		if werr := writeJSON(qb.results, res); werr != nil {
			err = errors.Join(err, fmt.Errorf("results %s: %w", qb.results, werr))
		}
	}
	if err != nil {
		return fmt.Errorf("--%s: %w", FlagQueries, err)
	}
	return nil
}

// writeJSON replaces path with v, indented, atomically.
func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".results-*.json")
	if err != nil {
		return err
	}
	if err := tmp.Chmod(0o644); err == nil {
		_, err = tmp.Write(append(data, '\n'))
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
