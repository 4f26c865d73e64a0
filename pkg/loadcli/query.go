package loadcli

import (
	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/query"
	"github.com/tsload/tsload/pkg/queryload"
	"github.com/tsload/tsload/pkg/runner"
)

// Flags of the query load beside the writers (runner.Config.QueryRate;
// docs/query-load.md).
const (
	FlagQueryRate    = "query-rate"
	FlagQueryWorkers = "query-workers"
	FlagQueryMix     = "query-mix"
)

// queryFlags are the flags of the query load.
func queryFlags() []cli.Flag {
	return []cli.Flag{
		&cli.Float64Flag{Name: FlagQueryRate, Usage: "while loading, run this many queries per second (open loop, latency from each query's due time) on connections of their own, their answers checked against a generated input (its .dataset.json); 0: none"},
		&cli.IntFlag{Name: FlagQueryWorkers, Value: queryload.DefaultWorkers, Usage: "query connections of --query-rate (one query in flight each)"},
		&cli.StringFlag{Name: FlagQueryMix, Usage: "`name=weight,...`: the query types of --query-rate and their shares (default: every type of the input's use case, equally; cpu-only/devops: lastpoint, single-groupby-1-1-1, double-groupby-1, high-cpu-1, groupby-orderby-limit; iot: last-loc, low-fuel, avg-load)"},
	}
}

// queryConfig maps the query flags.
func queryConfig(c *cli.Context, cfg *runner.Config) error {
	cfg.QueryRate = c.Float64(FlagQueryRate)
	cfg.QueryWorkers = c.Int(FlagQueryWorkers)
	m, err := query.ParseMix(c.String(FlagQueryMix))
	if err != nil {
		return err
	}
	cfg.QueryMix = m
	return nil
}
