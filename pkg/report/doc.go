// Package report turns loader results files (results.Results JSON, written by
// every cmd/load_* with --results-file) into what people publish: Markdown and
// CSV tables of a benchmark matrix or a database comparison, PNG/SVG plots of
// the insert rate over time, grouped bar charts, and a merged summary of the
// per-shard results of a scaled-out load.
//
// Tables group runs into cells (by default one per target, server version
// and API, and per comparison setting that splits one target's runs:
// DefaultGroup, the same for the table, the bars and the page; or by any
// keys of GroupKeys) and report, per cell, the median and the spread
// (minimum–maximum) of rows/s and metrics/s across repeats, the median p99
// batch latency, the rows loaded and the rows the database counted when the
// run verified. A cell with any run whose status is not "ok" shows the status
// ("failed", "interrupted") in place of every number: a failed run never
// turns into a rate.
//
// HTML puts everything on one self-contained page (inline CSS and SVG
// charts drawn here, so their layout is known and tested: nothing outside
// the chart's box, legends above the plotting area) together with the
// environment each run recorded: what differs between runs in a table,
// what they share in a footer. Under a table, a "differs between runs"
// line names each comparison setting (batch size, workers, body
// compression, dedup, request timeout) that runs of different targets did
// not share (Differs).
//
// Each cmd/report subcommand binds its flags to a Config and calls the
// matching function here (RunTable, RunPlot, RunBars, RunHTML, RunMerge),
// which returns an error.
package report
