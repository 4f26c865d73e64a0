package report

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tsload/tsload/pkg/envinfo"
)

// Attr is one fact about a run's environment or parameters, e.g.
// {"server", "InfluxDB 1.6.7"}.
type Attr struct {
	Name, Value string
	Note        string // e.g. "not recorded by 1 of 9 runs"
}

// unknown is the value of a fact a results file does not record.
const unknown = "not recorded"

// DatasetText describes a run's dataset in one line, e.g. "cpu-only, scale
// 100, seed 123, 2016-01-01 00:00 to 04:00 UTC every 10s: 144,000 rows,
// 50.1 MiB (gzip level 1: 8.5 MiB on disk)".
func DatasetText(r Run) string {
	if r.Environment == nil {
		return unknown
	}
	d := r.Environment.Dataset
	head := datasetHead(d)
	if len(head) == 0 && d.Format != "" {
		head = append(head, d.Format+" input")
	}
	var size []string
	if d.Rows > 0 {
		w := " rows"
		if d.Source != "generate_data" {
			w = " rows read"
		}
		size = append(size, thousands(float64(d.Rows))+w)
	}
	if d.Bytes > 0 {
		b := envinfo.FormatBytes(d.Bytes)
		switch {
		case d.Compression != "" && d.Compression != "none" && d.FileBytes > 0:
			b += " (" + d.Compression + ": " + envinfo.FormatBytes(d.FileBytes) + " on disk)"
		case d.Compression != "" && d.Compression != "none":
			b += " (" + d.Compression + ")"
		}
		size = append(size, b)
	}
	s := strings.Join(head, ", ")
	if len(size) > 0 {
		if s != "" {
			s += ": "
		}
		s += strings.Join(size, ", ")
	}
	if s == "" {
		return unknown
	}
	return s
}

// datasetHead is what a dataset was generated from, in words: use case,
// scale, seed, time range, shard, row cap.
func datasetHead(d envinfo.Dataset) []string {
	var head []string
	if d.UseCase != "" {
		head = append(head, d.UseCase)
	}
	if d.Scale > 0 {
		head = append(head, "scale "+thousands(float64(d.Scale)))
	}
	if d.Seed != nil {
		head = append(head, "seed "+strconv.FormatUint(*d.Seed, 10))
	}
	if span := timeSpan(d.Start, d.End); span != "" {
		if d.Interval != "" {
			span += " every " + d.Interval
		}
		head = append(head, span)
	}
	if d.Shard != "" {
		head = append(head, "shard "+d.Shard)
	}
	if d.MaxRows > 0 {
		head = append(head, "at most "+thousands(float64(d.MaxRows))+" rows")
	}
	return head
}

// timeSpan writes an RFC 3339 range compactly: "2016-01-01 00:00 to 04:00 UTC".
func timeSpan(start, end string) string {
	a, err1 := time.Parse(time.RFC3339Nano, start)
	b, err2 := time.Parse(time.RFC3339Nano, end)
	if err1 != nil || err2 != nil {
		if start == "" && end == "" {
			return ""
		}
		return start + " to " + end
	}
	a, b = a.UTC(), b.UTC()
	layout := "2006-01-02 15:04"
	if a.Second() != 0 || b.Second() != 0 {
		layout = "2006-01-02 15:04:05"
	}
	endText := b.Format(layout)
	if a.Format("2006-01-02") == b.Format("2006-01-02") {
		endText = b.Format(strings.TrimPrefix(layout, "2006-01-02 "))
	}
	return a.Format(layout) + " to " + endText + " UTC"
}

// ServerText is the server's version as the run recorded it.
func ServerText(r Run) string {
	if r.Environment == nil {
		return unknown
	}
	s := r.Environment.Server
	if s.Version != "" {
		return s.Version
	}
	if s.Error != "" {
		return "unknown (" + s.Error + ")"
	}
	return unknown
}

// MachineText is the loader's machine in one line.
func MachineText(r Run) string {
	if r.Environment == nil {
		return unknown
	}
	m := r.Environment.Machine
	var parts []string
	if m.CPUModel != "" {
		parts = append(parts, m.CPUModel)
	}
	if m.Cores > 0 {
		parts = append(parts, fmt.Sprintf("%d cores", m.Cores))
	}
	if m.MemoryBytes > 0 {
		parts = append(parts, envinfo.FormatBytes(m.MemoryBytes))
	}
	if len(parts) == 0 {
		return unknown
	}
	return strings.Join(parts, ", ")
}

// skippedFlags are flags not listed: files that differ for every run by
// construction, and the flags already shown as the run's batch size and workers.
var skippedFlags = map[string]bool{"results-file": true, "file": true, "batch-size": true, "workers": true}

// Attrs lists what a run was measured with, in a fixed order: server,
// dataset, machine, build, the run's parameters, then every flag.
func Attrs(r Run) []Attr {
	env := r.Environment
	get := func(f func() string) string {
		if env == nil {
			return unknown
		}
		if v := f(); v != "" {
			return v
		}
		return unknown
	}
	attrs := []Attr{
		{Name: "target", Value: r.Target},
		{Name: "loader", Value: r.Loader},
		{Name: "server", Value: ServerText(r)},
		{Name: "API", Value: apiOf(r)},
		{Name: "address", Value: addressOf(r)},
		{Name: "dataset", Value: DatasetText(r)},
		{Name: "inputs", Value: strings.Join(r.Inputs, " ")},
		{Name: "format", Value: r.Format},
		{Name: "batch size", Value: strconv.Itoa(r.BatchSize)},
		{Name: "workers", Value: strconv.Itoa(r.Workers)},
		{Name: "CPU", Value: get(func() string { return env.Machine.CPUModel })},
		{Name: "cores", Value: get(func() string {
			if env.Machine.Cores == 0 {
				return ""
			}
			return strconv.Itoa(env.Machine.Cores)
		})},
		{Name: "memory", Value: get(func() string {
			if env.Machine.MemoryBytes == 0 {
				return ""
			}
			return envinfo.FormatBytes(env.Machine.MemoryBytes)
		})},
		{Name: "OS", Value: get(func() string { return env.Machine.OS })},
		{Name: "tsload build", Value: get(func() string { return env.Tsload })},
	}
	for _, k := range flagNames(r) {
		attrs = append(attrs, Attr{Name: "--" + k, Value: flagText(r.Flags[k])})
	}
	for i := range attrs {
		if attrs[i].Value == "" {
			attrs[i].Value = unknown
		}
	}
	return attrs
}

// addressOf is where a run loaded: the server URL and database or bucket
// (Results.Setup, schema version 2), "" when not recorded.
func addressOf(r Run) string {
	if r.Setup == nil {
		return ""
	}
	a := r.Setup.URL
	if r.Setup.Database != "" {
		a += ", database " + r.Setup.Database
	}
	return strings.TrimPrefix(a, ", ")
}

func flagNames(r Run) []string {
	names := make([]string, 0, len(r.Flags))
	for k := range r.Flags {
		if !skippedFlags[k] {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	return names
}

// flagText writes a recorded flag value: text as is (`""` when empty),
// lists comma-separated, numbers and booleans as JSON writes them. Results
// files before schema version 2 recorded every value as text.
func flagText(v any) string {
	s := flagValue(v)
	if s == "" {
		return `""`
	}
	return s
}

// flagValue is a recorded flag value as text ("" when empty or absent).
func flagValue(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = flagValue(e)
		}
		return strings.Join(parts, ",")
	case []string:
		return strings.Join(x, ",")
	}
	return fmt.Sprint(v)
}

// EnvDiff splits the runs' attributes into those that differ between runs
// (Varying, in Attrs order) and those every run shares (Common). Flags that
// only some of the runs' loaders have are not compared: Own lists them per
// run ("--name=value ...").
type EnvDiff struct {
	Varying []string            // attribute names
	Values  []map[string]string // per run: name -> value
	Common  []Attr
	Own     []string // per run: its loader's own flags
}

// DiffEnv compares the runs' attributes.
func DiffEnv(runs []Run) EnvDiff {
	var d EnvDiff
	var order []string
	seen := map[string]bool{}
	// A flag is shared when every loader among the runs has it (in at
	// least one of its runs: a results file written by a script for a
	// loader that died records few flags); the others are the loaders' own.
	loaders := map[string]bool{}
	hasFlag := map[string]map[string]bool{} // flag -> loaders
	for _, r := range runs {
		loaders[r.Loader] = true
		m := map[string]string{}
		for _, a := range Attrs(r) {
			m[a.Name] = a.Value
			if !seen[a.Name] {
				seen[a.Name] = true
				order = append(order, a.Name)
			}
			if strings.HasPrefix(a.Name, "--") {
				if hasFlag[a.Name] == nil {
					hasFlag[a.Name] = map[string]bool{}
				}
				hasFlag[a.Name][r.Loader] = true
			}
		}
		d.Values = append(d.Values, m)
	}
	shared := func(name string) bool {
		return !strings.HasPrefix(name, "--") || len(hasFlag[name]) == len(loaders)
	}
	for i, r := range runs {
		var own []string
		for _, k := range flagNames(r) {
			if !shared("--" + k) {
				own = append(own, "--"+k+"="+flagText(r.Flags[k]))
			}
		}
		d.Own = append(d.Own, strings.Join(own, " "))
		for name := range seen {
			if _, ok := d.Values[i][name]; !ok {
				d.Values[i][name] = unknown
			}
		}
	}
	for _, name := range order {
		if !shared(name) {
			continue
		}
		// A run that did not record a fact (a results file written by a
		// script for a loader that died) does not make it differ.
		first, same, missing := "", true, 0
		for _, m := range d.Values {
			v := m[name]
			switch {
			case v == unknown:
				missing++
			case first == "":
				first = v
			case v != first:
				same = false
			}
		}
		if same {
			a := Attr{Name: name, Value: first}
			if first == "" {
				a.Value = unknown
			} else if missing > 0 {
				a.Note = fmt.Sprintf("not recorded by %d of %d runs", missing, len(runs))
			}
			d.Common = append(d.Common, a)
		} else {
			d.Varying = append(d.Varying, name)
		}
	}
	return d
}

// common returns the value every run shares for name, and whether they do.
func (d EnvDiff) common(name string) (string, bool) {
	for _, a := range d.Common {
		if a.Name == name {
			return a.Value, true
		}
	}
	return "", false
}

// ChartContext is what a chart's subtitle says about the runs it draws:
// the dataset and the parameters they all share (those not on the chart's
// axes), e.g. "cpu-only, scale 100, ...; batch size 5000, workers 2;
// AMD EPYC, 2 cores, 23.5 GiB".
func ChartContext(runs []Run, keys []string) string {
	d := DiffEnv(runs)
	var parts []string
	if v, ok := d.common("dataset"); ok && v != unknown {
		parts = append(parts, v)
	} else if !ok {
		parts = append(parts, "several datasets")
	}
	onAxis := map[string]bool{}
	for _, k := range keys {
		onAxis[GroupKeys[k]] = true
	}
	var fixed []string
	for _, name := range []string{"target", "batch size", "workers"} {
		if v, ok := d.common(name); ok && !onAxis[name] {
			fixed = append(fixed, name+" "+v)
		}
	}
	if len(fixed) > 0 {
		parts = append(parts, strings.Join(fixed, ", "))
	}
	if len(runs) > 0 {
		if m := MachineText(runs[0]); m != unknown {
			same := true
			for _, r := range runs[1:] {
				same = same && MachineText(r) == m
			}
			if same {
				parts = append(parts, "loader on "+m)
			}
		}
	}
	return strings.Join(parts, "; ")
}

// runName is a results file's name without directory and .json.
func runName(r Run) string { return strings.TrimSuffix(filepath.Base(r.Path), ".json") }
