package report

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
)

// TableConfig is `report table`.
type TableConfig struct {
	Files  []string
	Format string   // "md" (default), "csv" or "cost" (Markdown: rows/s and the cost columns only)
	Group  []string // GroupKeys; default DefaultGroup
	Out    io.Writer
}

// RunTable reads the results files and writes the grouped table.
func RunTable(cfg TableConfig) error {
	runs, err := ReadFiles(cfg.Files)
	if err != nil {
		return err
	}
	group := cfg.Group
	if len(group) == 0 {
		group = DefaultGroup(runs)
	}
	t := Summarize(runs, group)
	switch cfg.Format {
	case "", "md", "markdown":
		return t.WriteMarkdown(cfg.Out)
	case "csv":
		return t.WriteCSV(cfg.Out)
	case "cost":
		return t.WriteCostMarkdown(cfg.Out)
	}
	return fmt.Errorf("unknown table format %q (want md, csv or cost)", cfg.Format)
}

// PlotConfig is `report plot`.
type PlotConfig struct {
	Files  []string
	OutDir string
	Metric Metric    // default rows
	Out    io.Writer // the names of the files written, one a line
}

// RunPlot writes DIR/<results name>.rate.png and .svg for every results
// file: its insert rate per reporting period over time; for a paced run
// also .pace (offered vs achieved rows/s) and .latency (percentiles from
// due and from send per period).
func RunPlot(cfg PlotConfig) error {
	if cfg.Metric == "" {
		cfg.Metric = MetricRows
	}
	runs, err := ReadFiles(cfg.Files)
	if err != nil {
		return err
	}
	if err := mkdir(cfg.OutDir); err != nil {
		return err
	}
	used := map[string]bool{}
	for _, r := range runs {
		p, err := RatePlot(r, cfg.Metric)
		if err != nil {
			return err
		}
		files, err := savePlot(p, uniqueBase(cfg.OutDir, r.Path, ".rate", used))
		if err != nil {
			return err
		}
		more, err := savePacePlots(r, cfg.OutDir, used)
		for _, f := range append(files, more...) {
			fmt.Fprintln(cfg.Out, f)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// BarsConfig is `report bars`.
type BarsConfig struct {
	Files  []string
	OutDir string
	Group  []string // first key on the x axis, the rest grouped; default DefaultGroup
	Metric Metric   // default rows
	Name   string   // file name without extension; default "bars_<metric>"
	Out    io.Writer
}

// RunBars writes a grouped bar chart of the cells' median rate as
// DIR/<name>.png and .svg.
func RunBars(cfg BarsConfig) error {
	if cfg.Metric == "" {
		cfg.Metric = MetricRows
	}
	name := cfg.Name
	if name == "" {
		name = "bars_" + string(cfg.Metric)
	}
	runs, err := ReadFiles(cfg.Files)
	if err != nil {
		return err
	}
	group := cfg.Group
	if len(group) == 0 {
		group = chartKeys(runs, DefaultGroup(runs))
	}
	p, err := BarsPlot(Summarize(runs, group), cfg.Metric)
	if err != nil {
		return err
	}
	if err := mkdir(cfg.OutDir); err != nil {
		return err
	}
	files, err := savePlot(p, filepath.Join(cfg.OutDir, name))
	for _, f := range files {
		fmt.Fprintln(cfg.Out, f)
	}
	return err
}

// MergeConfig is `report merge`.
type MergeConfig struct {
	Files []string
	Out   io.Writer // the merged JSON document
}

// RunMerge merges per-shard results and writes the merged document.
func RunMerge(cfg MergeConfig) error {
	runs, err := ReadFiles(cfg.Files)
	if err != nil {
		return err
	}
	m, err := MergeRuns(runs)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(cfg.Out)
	enc.SetIndent("", "  ")
	return enc.Encode(m)
}
