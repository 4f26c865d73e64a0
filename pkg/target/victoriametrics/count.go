package victoriametrics

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// Counting. VictoriaMetrics holds samples, one per field of a row, and
// applies written samples to searches after a delay; it caches query
// results. Count therefore first asks /internal/force_flush (written
// samples become searchable), then, per measurement m:
//
//  1. lists the metric names m_<field> of the db label
//     (/api/v1/label/__name__/values);
//  2. per metric, count_over_time over all time (nocache=1, at now + 3
//     days: the server takes samples up to 2 days ahead) gives the samples
//     of each series, deduplicated as the server deduplicates;
//  3. the rows of each series key (the labels without the metric name:
//     the row's tags) are the distinct timestamps of its fields' samples,
//     read from /api/v1/export; or, when every line this process wrote to
//     m had all of m's k field metrics (CheckLines' shape) and every key
//     has the same count in each of them, that count (the fast path of
//     dense data such as TSBS's, which reads no sample).
//
// What a pass proves: for every measurement, the server holds as many
// distinct (tags, millisecond) rows as were acknowledged for it (CheckLines
// refuses the timestamps and values the server would change), and with
// every field of every row present, each field's metric holds one sample
// per row. A measurement whose name is another's followed by "_" shares
// metric names with it and is refused: its rows cannot be told apart. The
// fast path can count too few rows, never too many, only when another
// process wrote rows of m with fields missing to the same db label (it was
// not dropped): a false failure there, never a false pass.

// window is the time the counting queries look back from: all of it.
func window() (at time.Time, seconds int64) {
	at = time.Now().Add(72 * time.Hour)
	return at, at.Unix()
}

// Count returns the rows of each measurement (see above).
func (t *Target) Count(ctx context.Context, tables []string) (map[string]int64, error) {
	for _, m := range tables {
		t.known[m] = true
	}
	for _, m := range tables {
		for k := range t.known {
			if strings.HasPrefix(k, m+"_") {
				return nil, fmt.Errorf("victoriametrics: measurements %q and %q: the metric %s_<field> of one may be that of the other, so their rows cannot be counted apart (rename one)", m, k, k)
			}
		}
	}
	if err := t.forceFlush(ctx); err != nil {
		return nil, err
	}
	names, err := t.metricNames(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(tables))
	for _, m := range tables {
		var fields []string
		for _, n := range names {
			if strings.HasPrefix(n, m+"_") {
				fields = append(fields, n)
			}
		}
		n, err := t.countMeasurement(ctx, fields, t.fieldsOf(m) == len(fields))
		if err != nil {
			return out, fmt.Errorf("victoriametrics: counting %s: %w", m, err)
		}
		out[m] = n
	}
	return out, nil
}

// countMeasurement counts the rows of the metrics (one measurement's);
// dense: every line written had every one of them.
func (t *Target) countMeasurement(ctx context.Context, metrics []string, dense bool) (int64, error) {
	per := map[string]map[string]int64{} // key -> metric -> samples
	labels := map[string]map[string]string{}
	for _, name := range metrics {
		series, err := t.countOverTime(ctx, name)
		if err != nil {
			return 0, err
		}
		for _, s := range series {
			k := seriesKey(s.labels)
			if per[k] == nil {
				per[k] = map[string]int64{}
				labels[k] = s.labels
			}
			per[k][name] += s.n
		}
	}
	sparse := !dense
	for _, counts := range per {
		if !sameCounts(counts) {
			sparse = true
			break
		}
	}
	var rows int64
	for k, counts := range per {
		if !sparse {
			for _, n := range counts {
				rows += n
				break
			}
			continue
		}
		n, err := t.distinctTimes(ctx, metrics, labels[k])
		if err != nil {
			return 0, err
		}
		rows += n
	}
	return rows, nil
}

func sameCounts(m map[string]int64) bool {
	first := int64(-1)
	for _, n := range m {
		if first >= 0 && n != first {
			return false
		}
		first = n
	}
	return true
}

// seriesKey is the labels other than the metric name, in a canonical form.
func seriesKey(labels map[string]string) string {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		if k != "__name__" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k)
		b.WriteByte(0)
		b.WriteString(labels[k])
		b.WriteByte(0)
	}
	return b.String()
}

// selector is a series selector matching exactly labels (the metric name
// left to nameRe, a regular expression, when not empty).
func selector(nameRe string, labels map[string]string) string {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		if k != "__name__" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var parts []string
	if nameRe != "" {
		parts = append(parts, `__name__=~`+quote(nameRe))
	}
	for _, k := range keys {
		parts = append(parts, k+"="+quote(labels[k]))
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// quote is a MetricsQL string literal.
func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s) + `"`
}

type seriesCount struct {
	labels map[string]string
	n      int64
}

// countOverTime returns the samples of each series of metric name in the
// db label, over all time, from an uncached instant query.
func (t *Target) countOverTime(ctx context.Context, name string) ([]seriesCount, error) {
	at, secs := window()
	q := fmt.Sprintf("count_over_time(%s[%ds])",
		"{__name__="+quote(name)+",db="+quote(t.cfg.DBName)+"}", secs)
	v := url.Values{"query": {q}, "time": {strconv.FormatInt(at.Unix(), 10)}, "nocache": {"1"}}
	var ans struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			ResultType string `json:"resultType"`
			Result     []struct {
				Metric map[string]string `json:"metric"`
				Value  [2]any            `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := t.getJSON(ctx, "/api/v1/query", v, &ans); err != nil {
		return nil, fmt.Errorf("%s: %w", q, err)
	}
	out := make([]seriesCount, 0, len(ans.Data.Result))
	for _, r := range ans.Data.Result {
		s, _ := r.Value[1].(string)
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f < 0 || f != float64(int64(f)) {
			return nil, fmt.Errorf("%s: a count of %v", q, r.Value[1])
		}
		out = append(out, seriesCount{labels: r.Metric, n: int64(f)})
	}
	return out, nil
}

// distinctTimes counts the distinct timestamps of the series with exactly
// labels (metric name aside) among metrics, read from /api/v1/export.
func (t *Target) distinctTimes(ctx context.Context, metrics []string, labels map[string]string) (int64, error) {
	alts := make([]string, len(metrics))
	for i, m := range metrics {
		alts[i] = regexp.QuoteMeta(m)
	}
	at, _ := window()
	v := url.Values{"match[]": {selector(strings.Join(alts, "|"), labels)}, "start": {"86399"}, "end": {strconv.FormatInt(at.Unix(), 10)}}
	res, err := t.p.Post(ctx, httpwrite.Request{Method: http.MethodGet, Path: "/api/v1/export", Query: v.Encode(), NoCompress: true})
	if err != nil {
		return 0, err
	}
	if res.Status != 200 || res.Truncated {
		return 0, fmt.Errorf("GET /api/v1/export: %d %s (truncated %v)", res.Status, httpwrite.Snippet(res.Body, 300), res.Truncated)
	}
	want := seriesKey(labels)
	seen := map[int64]struct{}{}
	sc := bufio.NewScanner(bytes.NewReader(res.Body))
	sc.Buffer(nil, len(res.Body)+1)
	for sc.Scan() {
		var line struct {
			Metric     map[string]string `json:"metric"`
			Timestamps []int64           `json:"timestamps"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			return 0, fmt.Errorf("/api/v1/export: %v", err)
		}
		if seriesKey(line.Metric) != want {
			continue // a series with more labels
		}
		for _, ts := range line.Timestamps {
			seen[ts] = struct{}{}
		}
	}
	return int64(len(seen)), sc.Err()
}

// forceFlush makes written samples searchable.
func (t *Target) forceFlush(ctx context.Context) error {
	res, err := t.p.Post(ctx, httpwrite.Request{Method: http.MethodGet, Path: "/internal/force_flush", NoCompress: true})
	if err != nil {
		return fmt.Errorf("victoriametrics: %w", err)
	}
	if res.Status != 200 {
		return fmt.Errorf("victoriametrics: GET /internal/force_flush: %d %s", res.Status, httpwrite.Snippet(res.Body, 300))
	}
	return nil
}

// metricNames lists the metric names of the db label.
func (t *Target) metricNames(ctx context.Context) ([]string, error) {
	at, _ := window()
	v := url.Values{"match[]": {selector("", map[string]string{"db": t.cfg.DBName})}, "start": {"86399"}, "end": {strconv.FormatInt(at.Unix(), 10)}}
	var ans struct {
		Data []string `json:"data"`
	}
	if err := t.getJSON(ctx, "/api/v1/label/__name__/values", v, &ans); err != nil {
		return nil, fmt.Errorf("victoriametrics: metric names: %w", err)
	}
	return ans.Data, nil
}

// getJSON GETs path?v and decodes a 200 answer into out.
func (t *Target) getJSON(ctx context.Context, path string, v url.Values, out any) error {
	res, err := t.p.Post(ctx, httpwrite.Request{Method: http.MethodGet, Path: path, Query: v.Encode(), Accept: "application/json", NoCompress: true})
	if err != nil {
		return err
	}
	if res.Status != 200 || res.Truncated {
		return fmt.Errorf("GET %s: %d %s (truncated %v)", path, res.Status, httpwrite.Snippet(res.Body, 300), res.Truncated)
	}
	if err := json.Unmarshal(res.Body, out); err != nil {
		return fmt.Errorf("GET %s: unreadable answer: %v (%s)", path, err, httpwrite.Snippet(res.Body, 200))
	}
	return nil
}

// drop deletes every series of the db label.
func (t *Target) drop(ctx context.Context, db string) error {
	v := url.Values{"match[]": {selector("", map[string]string{"db": db})}}
	res, err := t.p.Post(ctx, httpwrite.Request{Path: "/api/v1/admin/tsdb/delete_series", Query: v.Encode(), NoCompress: true})
	if err != nil {
		return fmt.Errorf("victoriametrics: %w", err)
	}
	if res.Status != 204 && res.Status != 200 {
		return fmt.Errorf("victoriametrics: delete_series %s: %d %s", v.Get("match[]"), res.Status, httpwrite.Snippet(res.Body, 300))
	}
	return nil
}

// exists reports whether any series has the db label.
func (t *Target) exists(ctx context.Context, db string) (bool, error) {
	saved := t.cfg.DBName
	t.cfg.DBName = db
	names, err := t.metricNames(ctx)
	t.cfg.DBName = saved
	return len(names) > 0, err
}
