package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/tsload/tsload/pkg/results"
)

// GroupKeys are the keys a table can group runs by, with their column titles.
var GroupKeys = map[string]string{
	"batch_size": "batch size",
	"workers":    "workers",
	"target":     "target",
	"loader":     "loader",
	"format":     "format",
	"inputs":     "inputs",
	"db_name":    "database",
	"name":       "run",
	"server":     "server",
	"api":        "API",
	"dataset":    "dataset",
	// Comparison settings (see settingKeys).
	"gzip":            "gzip",
	"dedup":           "dedup",
	"request_timeout": "request timeout",
}

func keyValue(key string, r Run) string {
	switch key {
	case "batch_size":
		return strconv.Itoa(r.BatchSize)
	case "workers":
		return strconv.Itoa(r.Workers)
	case "target":
		return r.Target
	case "loader":
		return r.Loader
	case "format":
		return r.Format
	case "inputs":
		return strings.Join(r.Inputs, " ")
	case "db_name":
		return flagValue(r.Flags["db-name"])
	case "name":
		return runName(r)
	case "server":
		return serverKey(r)
	case "api":
		return apiOf(r)
	case "dataset":
		return datasetKey(r)
	}
	for _, st := range settingKeys {
		if st.key == key && st.name != "" {
			return setting(r, st.name)
		}
	}
	return ""
}

// ParseGroup parses a comma-separated list of GroupKeys.
func ParseGroup(s string) ([]string, error) {
	var keys []string
	for _, k := range strings.Split(s, ",") {
		k = strings.TrimSpace(k)
		if k == "" {
			continue
		}
		if _, ok := GroupKeys[k]; !ok {
			known := make([]string, 0, len(GroupKeys))
			for g := range GroupKeys {
				known = append(known, g)
			}
			sort.Strings(known)
			return nil, fmt.Errorf("unknown group key %q (known: %s)", k, strings.Join(known, ", "))
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("empty group")
	}
	return keys, nil
}

// Spread is the median and range of one quantity across a cell's runs.
type Spread struct {
	Median, Min, Max float64
}

func spreadOf(v []float64) Spread {
	if len(v) == 0 {
		return Spread{}
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	n := len(s)
	med := s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return Spread{Median: med, Min: s[0], Max: s[n-1]}
}

// Cell is the runs that share one group key.
type Cell struct {
	Key  []string // one value per Table.Keys entry
	Runs []Run
	// Status is results.StatusOK when every run is ok, else the status of the
	// first run that is not (failed before interrupted).
	Status string
	Errors []string // "path: error" of each run that is not ok

	// The following are meaningful only when Status is ok.
	RowsPerSec    Spread
	MetricsPerSec Spread
	P99ms         float64 // median of the runs' p99 batch latency
	Rows          Spread  // rows acknowledged per run
	// Verified is the number of rows the database counted (summed over
	// tables), as a spread across runs; VerifiedRuns says how many runs
	// verified (a run without --verify has no count).
	Verified     Spread
	VerifiedRuns int
	VerifyFailed int // runs whose count differed from the rows acknowledged
	// Retries and Failed are the runs' batch re-sends and failed batches
	// or rows (results.Results.Retries, Errors): a rate measured with retries
	// includes their back-off.
	Retries, Failed Spread
	RetriedRuns     int // runs with at least one retry
	// Cost is what the runs cost (nil when no run recorded costs).
	Cost *CellCost
	// InterferenceRuns is how many runs measured interference, Disturbed
	// how many of them crossed the threshold, InterferenceMax the most
	// other work (cores) a run measured.
	InterferenceRuns, Disturbed int
	InterferenceMax             float64
}

// Table is runs grouped into cells, sorted by key (numerically where the
// values are numbers).
type Table struct {
	Keys  []string
	Cells []Cell
	// Differs lists the comparison settings that runs of different
	// targets used with different values (see Differs).
	Differs []string
}

// Summarize groups runs by keys.
func Summarize(runs []Run, keys []string) *Table {
	t := &Table{Keys: keys, Differs: Differs(runs)}
	index := map[string]int{}
	values := make([][]string, len(runs))
	for j, r := range runs {
		values[j] = make([]string, len(keys))
		for i, key := range keys {
			values[j][i] = keyValue(key, r)
		}
	}
	fillUnrecorded(runs, keys, values)
	for j, r := range runs {
		k := values[j]
		id := strings.Join(k, "\x00")
		i, ok := index[id]
		if !ok {
			i = len(t.Cells)
			index[id] = i
			t.Cells = append(t.Cells, Cell{Key: k})
		}
		t.Cells[i].Runs = append(t.Cells[i].Runs, r)
	}
	for i := range t.Cells {
		t.Cells[i].compute()
	}
	sort.SliceStable(t.Cells, func(i, j int) bool { return keyLess(t.Cells[i].Key, t.Cells[j].Key) })
	return t
}

func keyLess(a, b []string) bool {
	for i := range a {
		if a[i] == b[i] {
			continue
		}
		x, ex := strconv.ParseFloat(a[i], 64)
		y, ey := strconv.ParseFloat(b[i], 64)
		if ex == nil && ey == nil {
			return x < y
		}
		return a[i] < b[i]
	}
	return false
}

func (c *Cell) compute() {
	c.Status = results.StatusOK
	var rows, metrics, p99, loaded, verified, retries, failed []float64
	for _, r := range c.Runs {
		if r.Status != results.StatusOK {
			if c.Status == results.StatusOK || r.Status == results.StatusFailed {
				c.Status = r.Status
			}
			msg := r.Error
			if msg == "" {
				msg = "status " + r.Status
			}
			c.Errors = append(c.Errors, r.Path+": "+msg)
			continue
		}
		rows = append(rows, r.RowsPerSec)
		metrics = append(metrics, r.MetricsPerSec)
		p99 = append(p99, r.Latency.P99)
		loaded = append(loaded, float64(r.Rows))
		retries = append(retries, float64(r.Retries))
		failed = append(failed, float64(r.Errors))
		if r.Retries > 0 {
			c.RetriedRuns++
		}
		if v := r.Verify; v != nil {
			var n int64
			for _, a := range v.Actual {
				n += a
			}
			verified = append(verified, float64(n))
			c.VerifiedRuns++
			if !v.OK {
				c.VerifyFailed++
			}
		}
	}
	c.RowsPerSec = spreadOf(rows)
	c.MetricsPerSec = spreadOf(metrics)
	c.P99ms = spreadOf(p99).Median
	c.Rows = spreadOf(loaded)
	c.Verified = spreadOf(verified)
	c.Retries = spreadOf(retries)
	c.Failed = spreadOf(failed)
	c.computeCost()
	c.interferenceOf()
}

// OK reports whether every run of the cell succeeded.
func (c *Cell) OK() bool { return c.Status == results.StatusOK }

// Columns of the table after the group keys.
var valueColumns = []string{"runs", "rows/s median", "rows/s min–max", "metrics/s median", "metrics/s min–max", "p99 batch ms", "retries / errors", "rows", "verified rows"}

var csvValueColumns = []string{"runs", "status", "rows_per_sec_median", "rows_per_sec_min", "rows_per_sec_max",
	"metrics_per_sec_median", "metrics_per_sec_min", "metrics_per_sec_max", "p99_batch_ms", "retries_max", "errors_max", "rows", "verified_rows", "error"}

// tableLegend explains the value columns, in Markdown and HTML.
const tableLegend = "rows/s and metrics/s: median and min–max across runs; p99 batch ms: median of the runs' p99 write latency; " +
	"retries / errors: batches re-sent after a retryable error and batches or rows that failed, min–max across runs; verified rows: what the database counted afterwards."

// retryNotes says, for each cell whose runs retried, that its rates and
// latency include the retries' back-off; and for a cell of durable
// InfluxDB 3 writes, what bounds their rate.
func (t *Table) retryNotes() []string {
	var notes []string
	for i := range t.Cells {
		c := &t.Cells[i]
		if !c.OK() {
			continue
		}
		if c.RetriedRuns > 0 {
			notes = append(notes, fmt.Sprintf("%s: %s retries in %d of %d runs: its rows/s and p99 include the retries' back-off (the loader's summary names each retry's error)",
				strings.Join(c.Key, ", "), rangeText(c.Retries, thousands), c.RetriedRuns, len(c.Runs)))
		}
		if durableV3(c.Runs) {
			notes = append(notes, strings.Join(c.Key, ", ")+": an InfluxDB 3 write is acknowledged after the server's next WAL flush (1 s by default), "+
				"so each worker sends about one batch a second: rows/s is near batch size × workers, not the server's capacity "+
				"(larger batches and more workers raise it; --no-sync answers before the flush and may lose acknowledged rows; docs/results.md)")
		}
	}
	return notes
}

// durableV3 reports whether runs wrote through InfluxDB 3's API and waited
// for its WAL (no --no-sync).
func durableV3(runs []Run) bool {
	for _, r := range runs {
		if apiOf(r) != "v3" || flagValue(r.Flags["no-sync"]) == "true" {
			return false
		}
	}
	return len(runs) > 0
}

// thousands formats v rounded to an integer with comma separators.
func thousands(v float64) string {
	s := strconv.FormatInt(int64(math.Round(v)), 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, ch := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(ch)
	}
	return b.String()
}

func rangeText(s Spread, f func(float64) string) string {
	if math.Round(s.Min) == math.Round(s.Max) {
		return f(s.Min)
	}
	return f(s.Min) + "–" + f(s.Max)
}

func (c *Cell) verifiedText(f func(float64) string) string {
	switch {
	case c.VerifiedRuns == 0:
		return "not verified"
	case c.VerifyFailed > 0:
		return fmt.Sprintf("mismatch (%d of %d runs)", c.VerifyFailed, len(c.Runs))
	case c.VerifiedRuns < len(c.Runs):
		return rangeText(c.Verified, f) + fmt.Sprintf(" (%d of %d runs)", c.VerifiedRuns, len(c.Runs))
	}
	return rangeText(c.Verified, f)
}

func ms(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// markdownRow is the cell's values after the key columns.
func (c *Cell) markdownRow() []string {
	runs := strconv.Itoa(len(c.Runs))
	if !c.OK() {
		ok := len(c.Runs) - len(c.Errors)
		row := []string{fmt.Sprintf("%s (%d of %d ok)", runs, ok, len(c.Runs))}
		for range valueColumns[1:] {
			row = append(row, c.Status)
		}
		return row
	}
	return []string{runs,
		thousands(c.RowsPerSec.Median), rangeText(c.RowsPerSec, thousands),
		thousands(c.MetricsPerSec.Median), rangeText(c.MetricsPerSec, thousands),
		ms(c.P99ms), rangeText(c.Retries, thousands) + " / " + rangeText(c.Failed, thousands),
		rangeText(c.Rows, thousands), c.verifiedText(thousands)}
}

func plain(v float64) string { return strconv.FormatInt(int64(math.Round(v)), 10) }

func (c *Cell) csvRow() []string {
	runs := strconv.Itoa(len(c.Runs))
	if !c.OK() {
		row := []string{runs, c.Status}
		for range csvValueColumns[2 : len(csvValueColumns)-1] {
			row = append(row, c.Status)
		}
		return append(row, strings.Join(c.Errors, "; "))
	}
	verified := ""
	switch {
	case c.VerifiedRuns == 0:
		verified = "not verified"
	case c.VerifyFailed > 0 || c.VerifiedRuns < len(c.Runs) || c.Verified.Min != c.Verified.Max:
		verified = c.verifiedText(plain)
	default:
		verified = plain(c.Verified.Min)
	}
	return []string{runs, c.Status,
		plain(c.RowsPerSec.Median), plain(c.RowsPerSec.Min), plain(c.RowsPerSec.Max),
		plain(c.MetricsPerSec.Median), plain(c.MetricsPerSec.Min), plain(c.MetricsPerSec.Max),
		ms(c.P99ms), plain(c.Retries.Max), plain(c.Failed.Max), plain(c.Rows.Median), verified, ""}
}

// form is how a table is written: Markdown (and HTML) or CSV.
type form int

const (
	mdForm form = iota
	csvForm
)

// columnGroup is a run of a table's value columns: their heads and a
// cell's values in each form. The optional groups (has set) are shown
// only when some run of the table has what they show.
type columnGroup struct {
	has   func(*Table) bool
	heads [2][]string
	row   [2]func(*Cell) []string
}

// columnGroups are the value columns in their order: those of every
// table, then cost, pace and queries.
var columnGroups = []columnGroup{
	{nil, [2][]string{valueColumns, csvValueColumns}, [2]func(*Cell) []string{(*Cell).markdownRow, (*Cell).csvRow}},
	{(*Table).hasCost, [2][]string{costColumns, csvCostColumns}, [2]func(*Cell) []string{(*Cell).costRow, (*Cell).csvCostRow}},
	{(*Table).hasPace, [2][]string{paceColumns, csvPaceColumns}, [2]func(*Cell) []string{
		func(c *Cell) []string { return c.paceRow(thousands, true) }, func(c *Cell) []string { return c.paceRow(plain, false) }}},
	{(*Table).hasQueries, [2][]string{queryColumns, csvQueryColumns}, [2]func(*Cell) []string{
		func(c *Cell) []string { return c.queryRow(thousands) }, func(c *Cell) []string { return c.queryRow(plain) }}},
	{(*Table).hasInterference, [2][]string{interferenceColumns, csvInterferenceColumns}, [2]func(*Cell) []string{
		func(c *Cell) []string { return c.interferenceRow(mdForm) }, func(c *Cell) []string { return c.interferenceRow(csvForm) }}},
}

// columnSet is the column groups a table shows.
type columnSet []columnGroup

// shownColumns returns the column groups t shows.
func (t *Table) shownColumns() columnSet {
	var gs columnSet
	for _, g := range columnGroups {
		if g.has == nil || g.has(t) {
			gs = append(gs, g)
		}
	}
	return gs
}

// heads returns the heads of the value columns in form f.
func (gs columnSet) heads(f form) []string {
	var heads []string
	for _, g := range gs {
		heads = append(heads, g.heads[f]...)
	}
	return heads
}

// values returns cell c's values in form f, one per head.
func (gs columnSet) values(c *Cell, f form) []string {
	var row []string
	for _, g := range gs {
		row = append(row, g.row[f](c)...)
	}
	return row
}

func mdEscape(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}

// writeMDHeader writes the Markdown head row (the group keys, then cols)
// and its separator: keys left-aligned, values right-aligned.
func (t *Table) writeMDHeader(b *strings.Builder, cols []string) {
	head := make([]string, 0, len(t.Keys)+len(cols))
	for _, k := range t.Keys {
		head = append(head, GroupKeys[k])
	}
	head = append(head, cols...)
	writeMDRow(b, head)
	sep := make([]string, len(head))
	for i := range sep {
		sep[i] = "---"
		if i >= len(t.Keys) {
			sep[i] = "---:"
		}
	}
	writeMDRow(b, sep)
}

// WriteMarkdown writes the table as GitHub Markdown. Runs that are not ok
// are listed below the table with their error.
func (t *Table) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	cols := t.shownColumns()
	t.writeMDHeader(&b, cols.heads(mdForm))
	var failures []string
	for i := range t.Cells {
		c := &t.Cells[i]
		writeMDRow(&b, append(append([]string(nil), c.Key...), cols.values(c, mdForm)...))
		failures = append(failures, c.Errors...)
	}
	b.WriteString("\n" + tableLegend + "\n")
	if t.hasPace() {
		b.WriteString("\n" + paceLegend + "\n")
	}
	if t.hasQueries() {
		b.WriteString("\n" + queryLegend + "\n")
	}
	if t.hasQueryBench() {
		t.writeQueryBenchMD(&b)
	}
	t.writeMDNotes(&b, t.hasCost(), failures)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeMDNotes writes what follows a Markdown table: the cost legend and
// what was not measured (when cost), then the runs that did not finish ok.
// First, a "differs between runs" line per comparison setting that runs
// of different targets did not share.
func (t *Table) writeMDNotes(b *strings.Builder, cost bool, failures []string) {
	if notes := append(t.interferenceNotes(), t.retryNotes()...); len(notes) > 0 {
		b.WriteString("\n")
		for _, n := range notes {
			b.WriteString("- " + mdEscape(n) + "\n")
		}
	}
	for _, d := range t.Differs {
		b.WriteString("\ndiffers between runs: " + mdEscape(d) + "\n")
	}
	if cost {
		b.WriteString("\n" + costLegend + "\n")
		for _, n := range t.costNotes() {
			b.WriteString("- " + mdEscape(n) + "\n")
		}
	}
	if len(failures) > 0 {
		b.WriteString("\nRuns that did not finish ok:\n\n")
		for _, f := range failures {
			b.WriteString("- " + mdEscape(f) + "\n")
		}
	}
}

func writeMDRow(b *strings.Builder, cells []string) {
	b.WriteString("|")
	for _, c := range cells {
		b.WriteString(" " + mdEscape(c) + " |")
	}
	b.WriteString("\n")
}

// WriteCSV writes the table as CSV with a header row; numbers are plain
// integers (milliseconds with one decimal), and a cell that is not ok carries
// its status in every numeric column.
func (t *Table) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cols := t.shownColumns()
	if err := cw.Write(append(append([]string(nil), t.Keys...), cols.heads(csvForm)...)); err != nil {
		return err
	}
	for i := range t.Cells {
		c := &t.Cells[i]
		if err := cw.Write(append(append([]string(nil), c.Key...), cols.values(c, csvForm)...)); err != nil {
			return err
		}
	}
	if t.hasQueryBench() {
		if err := t.writeQueryBenchCSV(cw); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
