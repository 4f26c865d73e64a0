package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// HTMLConfig is `report html`.
type HTMLConfig struct {
	Files []string
	// Group makes the comparison table's cells; default DefaultGroup, as
	// `report table`, so both show the same rows in the same order.
	Group []string
	Title string // default: from the dataset
	// OutFile receives the page (written atomically); Out when empty.
	OutFile string
	Out     io.Writer
}

// RunHTML writes one self-contained HTML page: the comparison table, bar
// charts of rows/s and metrics/s with min–max whiskers, each run's rate
// over time, what differs between the runs' environments, and a footer
// with what they share. Everything is inline (CSS and SVG): the page makes
// no network request and opens from a file.
func RunHTML(cfg HTMLConfig) error {
	runs, err := ReadFiles(cfg.Files)
	if err != nil {
		return err
	}
	page, err := HTML(runs, cfg.Group, cfg.Title)
	if err != nil {
		return err
	}
	if cfg.OutFile == "" {
		_, err := cfg.Out.Write(page)
		return err
	}
	if dir := filepath.Dir(cfg.OutFile); dir != "" {
		if err := mkdir(dir); err != nil {
			return err
		}
	}
	tmp := cfg.OutFile + ".tmp"
	if err := os.WriteFile(tmp, page, 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, cfg.OutFile); err != nil {
		os.Remove(tmp)
		return err
	}
	if cfg.Out != nil {
		fmt.Fprintln(cfg.Out, cfg.OutFile)
	}
	return nil
}

// chartKeys are the group keys that vary: a key every run shares is said
// once in the chart's subtitle instead of labelling every bar.
func chartKeys(runs []Run, group []string) []string {
	var keys []string
	for _, k := range group {
		first, same := "", true
		for i, r := range runs {
			v := keyValue(k, r)
			if i == 0 {
				first = v
			} else if v != first {
				same = false
			}
		}
		if !same {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		keys = group[:1]
	}
	return keys
}

type htmlCell struct {
	Key    []string
	Values []string
	OK     bool
	Server string
}

type htmlRun struct {
	Name, Target, Status, Rate, Seconds, Rows string
	OK                                        bool
	Error                                     string
	Values                                    []string
	Own                                       string
}

type htmlPage struct {
	Title, Lede, Context string
	KeyHeads, ValueHeads []string
	ShowServer           bool
	Cells                []htmlCell
	Legend, CostLegend   string
	Notes                []string
	CostNotes            []string
	Failures             []string
	Differs              []string
	Bench                *htmlBench
	Bars                 []template.HTML
	Rates                []template.HTML
	Varying              []string
	ShowOwn              bool
	Runs                 []htmlRun
	Common               []Attr
	Style                template.CSS
}

// HTML renders the page for runs. group may be nil (see HTMLConfig.Group).
func HTML(runs []Run, group []string, title string) ([]byte, error) {
	if len(runs) == 0 {
		return nil, fmt.Errorf("no runs")
	}
	if len(group) == 0 {
		group = DefaultGroup(runs)
	}
	t := Summarize(runs, group)
	ctx := ChartContext(runs, group)
	diff := DiffEnv(runs)
	p := htmlPage{Style: template.CSS(pageCSS), Context: ctx}

	p.Title = title
	if p.Title == "" {
		targets := map[string]bool{}
		for _, r := range runs {
			targets[r.Target] = true
		}
		names := make([]string, 0, len(targets))
		for n := range targets {
			names = append(names, n)
		}
		sort.Strings(names)
		p.Title = "tsload: " + strings.Join(names, ", ")
		if v, ok := diff.common("dataset"); ok && v != unknown {
			p.Title += " loading " + strings.SplitN(v, ": ", 2)[0]
		}
	}
	first, last := runs[0].Start, runs[0].End
	for _, r := range runs {
		if !r.Start.IsZero() && (first.IsZero() || r.Start.Before(first)) {
			first = r.Start
		}
		if r.End.After(last) {
			last = r.End
		}
	}
	p.Lede = fmt.Sprintf("%d runs measured %s.", len(runs), timeRange(first, last))

	for _, k := range group {
		p.KeyHeads = append(p.KeyHeads, GroupKeys[k])
	}
	cols := t.shownColumns()
	p.ValueHeads = cols.heads(mdForm)
	if t.hasCost() {
		p.CostLegend = costLegend
		p.CostNotes = t.costNotes()
	}
	servers := map[string]bool{}
	for i := range t.Cells {
		c := &t.Cells[i]
		seen := map[string]bool{}
		var sv []string
		for _, r := range c.Runs {
			if s := ServerText(r); !seen[s] {
				seen[s] = true
				sv = append(sv, s)
			}
		}
		srv := strings.Join(sv, "; ")
		servers[srv] = true
		p.Cells = append(p.Cells, htmlCell{Key: c.Key, Values: cols.values(c, mdForm), OK: c.OK(), Server: srv})
		p.Failures = append(p.Failures, c.Errors...)
	}
	p.Legend = tableLegend
	p.Notes = append(t.interferenceNotes(), t.retryNotes()...)
	p.ShowServer = len(servers) > 1 && !slices.Contains(group, "server")
	p.Differs = t.Differs
	p.Bench = benchHTML(t)

	keys := chartKeys(runs, group)
	bt := Summarize(runs, keys)
	barCtx := ChartContext(runs, keys)
	for _, m := range []Metric{MetricRows, MetricMetrics} {
		svg, err := BarsSVG(bt, m, barCtx)
		if err != nil {
			return nil, err
		}
		p.Bars = append(p.Bars, template.HTML(svg))
	}
	if bt.hasFootprint() {
		svg, err := BarsSVG(bt, MetricBytesPerRow, barCtx)
		if err != nil {
			return nil, err
		}
		p.Bars = append(p.Bars, template.HTML(svg))
	}
	// The rate plots say only what differs from the page's context.
	for _, r := range runs {
		p.Rates = append(p.Rates, template.HTML(RateSVG(r, MetricRows, "")))
		if svg := QuerySVG(r); svg != "" {
			p.Rates = append(p.Rates, template.HTML(svg)) // under its rate
		}
		if svg := ServerSVG(r); svg != "" {
			p.Rates = append(p.Rates, template.HTML(svg)) // beside its rate
		}
		for _, svg := range PaceSVGs(r) {
			p.Rates = append(p.Rates, template.HTML(svg))
		}
	}

	for _, name := range diff.Varying {
		switch name {
		case "target", "loader", "inputs": // loader follows target; inputs are in the footer or the dataset
			continue
		}
		p.Varying = append(p.Varying, name)
	}
	for i, r := range runs {
		hr := htmlRun{Name: runName(r), Target: r.Target, Status: r.Status, OK: r.Status == "ok", Error: r.Error,
			Rate: thousands(r.RowsPerSec), Seconds: fmt.Sprintf("%.2f", r.Seconds), Rows: thousands(float64(r.Rows))}
		for _, name := range p.Varying {
			hr.Values = append(hr.Values, diff.Values[i][name])
		}
		hr.Own = diff.Own[i]
		if hr.Own != "" {
			p.ShowOwn = true
		}
		p.Runs = append(p.Runs, hr)
	}
	p.Common = diff.Common

	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, p); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func timeRange(a, b time.Time) string {
	if a.IsZero() {
		return "at an unrecorded time"
	}
	a, b = a.UTC(), b.UTC()
	if a.Format("2006-01-02") == b.Format("2006-01-02") {
		return "on " + a.Format("2006-01-02") + " from " + a.Format("15:04:05") + " to " + b.Format("15:04:05") + " UTC"
	}
	return "from " + a.Format("2006-01-02 15:04:05") + " to " + b.Format("2006-01-02 15:04:05") + " UTC"
}

const pageCSS = `
:root { color-scheme: light; }
body { margin: 0; background: #f6f6f4; color: #1b1b1b; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; }
main { max-width: 1400px; margin: 0 auto; padding: 24px 16px 8px; }
h1 { font-size: 1.55em; margin: 0 0 4px; }
h2 { font-size: 1.2em; margin: 28px 0 10px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
.lede, .context { color: #444; margin: 4px 0; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; background: #fff; font-size: 0.85em; }
th, td { border: 1px solid #ddd; padding: 4px 8px; vertical-align: top; }
table.runs td { max-width: 20em; }
th { background: #efefeb; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.comparison { font-size: 0.78em; }
table.comparison th, table.comparison td { padding: 4px 5px; }
table.comparison th { min-width: 3em; hyphens: auto; }
table.comparison td.num { white-space: normal; }
table.comparison td:not(.num) { max-width: 9em; overflow-wrap: anywhere; }
tr.bad td, td.bad { color: #a00000; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(480px, 1fr)); gap: 14px; }
figure { margin: 0; background: #fff; border: 1px solid #ddd; padding: 6px; }
figure svg { display: block; width: 100%; height: auto; }
td.flags { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 0.9em; min-width: 24em; overflow-wrap: anywhere; }
td.server { min-width: 12em; max-width: 18em; }
.failures li { color: #a00000; }
footer { max-width: 1400px; margin: 20px auto 0; padding: 8px 20px 28px; color: #333; font-size: 0.88em; }
footer dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 0; }
footer dt { font-weight: 600; }
footer dd { margin: 0; overflow-wrap: anywhere; }
.note { color: #777; }
`

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>{{.Style}}</style>
</head>
<body>
<main>
<h1>{{.Title}}</h1>
<p class="lede">{{.Lede}}</p>
<p class="context">{{.Context}}</p>

<h2 id="table">Comparison</h2>
<div class="scroll">
<table class="comparison">
<thead><tr>{{range .KeyHeads}}<th>{{.}}</th>{{end}}{{if .ShowServer}}<th>server</th>{{end}}{{range .ValueHeads}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{- $show := .ShowServer}}
{{range .Cells}}<tr{{if not .OK}} class="bad"{{end}}>{{range .Key}}<td>{{.}}</td>{{end}}{{if $show}}<td class="server">{{.Server}}</td>{{end}}{{range .Values}}<td class="num">{{.}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
</div>
<p class="context">{{.Legend}}</p>{{if .Notes}}
<ul class="context">{{range .Notes}}<li>{{.}}</li>{{end}}</ul>{{end}}{{if .CostLegend}}
<p class="context">{{.CostLegend}}</p>{{if .CostNotes}}
<ul class="context">{{range .CostNotes}}<li>{{.}}</li>{{end}}</ul>{{end}}{{end}}
{{range .Differs}}<p class="differs">differs between runs: {{.}}</p>
{{end}}{{if .Failures}}<p>Runs that did not finish ok:</p>
<ul class="failures">{{range .Failures}}<li>{{.}}</li>{{end}}</ul>{{end}}{{with .Bench}}

<h2 id="querybench">Query benchmark</h2>
<div class="scroll">
<table class="comparison">
<thead><tr>{{range $.KeyHeads}}<th>{{.}}</th>{{end}}<th>query type</th>{{range .Heads}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr>{{range .Key}}<td>{{.}}</td>{{end}}{{range .Values}}<td class="num">{{.}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
</div>
<p class="context">{{.Legend}}</p>
<ul class="context">{{range .Notes}}<li>{{.}}</li>{{end}}</ul>{{if .Charts}}
<div class="charts">
{{range .Charts}}<figure>{{.}}</figure>
{{end}}</div>{{end}}{{end}}

<h2 id="bars">Throughput</h2>
<div class="charts">
{{range .Bars}}<figure>{{.}}</figure>
{{end}}</div>

<h2 id="rates">Insert rate over time{{if .CostLegend}}, and the server's CPU and memory{{end}}</h2>
<div class="charts">
{{range .Rates}}<figure>{{.}}</figure>
{{end}}</div>

<h2 id="runs">Runs{{if .Varying}} and what differs between them{{end}}</h2>
<div class="scroll">
<table class="runs">
<thead><tr><th>run</th><th>target</th><th>status</th><th>rows/s</th><th>seconds</th><th>rows</th>{{range .Varying}}<th>{{.}}</th>{{end}}{{if .ShowOwn}}<th>the loader's own flags</th>{{end}}</tr></thead>
<tbody>
{{range .Runs}}<tr{{if not .OK}} class="bad"{{end}}><td>{{.Name}}</td><td>{{.Target}}</td><td{{if .Error}} title="{{.Error}}"{{end}}>{{.Status}}</td><td class="num">{{.Rate}}</td><td class="num">{{.Seconds}}</td><td class="num">{{.Rows}}</td>{{range .Values}}<td>{{.}}</td>{{end}}{{if $.ShowOwn}}<td class="flags">{{.Own}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
</div>
</main>
<footer>
<h2 id="environment">Common to every run</h2>
<dl>
{{range .Common}}<dt>{{.Name}}</dt><dd>{{.Value}}{{if .Note}} <span class="note">({{.Note}})</span>{{end}}</dd>
{{end}}</dl>
<p>Written by tsload's <code>report html</code> from loader results files; the environment is what each loader recorded (the server's version as the server reported it; CPU, memory and OS of the loader's machine).</p>
</footer>
</body>
</html>
`))
