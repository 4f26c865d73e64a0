package prometheus

import (
	"context"
	"fmt"
	"io/fs"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tsload/tsload/pkg/fingerprint"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/results"
	"github.com/tsload/tsload/pkg/target/contentq"
	"github.com/tsload/tsload/pkg/target/httpwrite"
	"github.com/tsload/tsload/pkg/target/promtext"
)

// Counting through PromQL. A committed remote write is searchable at once
// (the head appender's commit), so nothing waits. Per measurement m:
//
//  1. /api/v1/series lists the series of m's metrics m_<field> in the db
//     label (deleted series are left out);
//  2. per metric, count_over_time(<metric>{db="d"}[W]) at T, with T a year
//     and a day ahead (the Writer takes samples up to a year ahead) and W
//     reaching back before 1970, gives each series' samples, one per
//     millisecond (the server keeps one sample per series and timestamp);
//  3. the rows of each series key (the labels but the metric name: the
//     row's tags) are the distinct timestamps of its fields' samples, read
//     raw (the range vector m_...{...}[W] at T); or, when every line this
//     process wrote to m had all of m's k field metrics and every key has
//     the same count in each of them, that count (dense data such as
//     TSBS's: no sample is read).
//
// What a pass proves and where the fast path could err are as in
// pkg/target/victoriametrics: it can count too few rows, never too many,
// only when another process wrote rows of m with fields missing to the
// same db label. A measurement whose name is another's followed by "_"
// shares metric names with it and is refused.

// window is the instant T and the range W, in seconds, the counting
// queries read.
func window() (at int64, secs int64) {
	at = time.Now().Add(horizon + 24*time.Hour).Unix()
	return at, at + 86400
}

// Count returns the rows of each measurement (see above).
func (t *Target) Count(ctx context.Context, tables []string) (map[string]int64, error) {
	out := make(map[string]int64, len(tables))
	for _, m := range tables {
		for _, k := range tables {
			if strings.HasPrefix(k, m+"_") {
				return nil, fmt.Errorf("prometheus: measurements %q and %q: the metric %s_<field> of one may be that of the other, so their rows cannot be counted apart (rename one)", m, k, k)
			}
		}
		n, err := t.countMeasurement(ctx, m)
		if err != nil {
			return out, fmt.Errorf("prometheus: counting %s: %w", m, err)
		}
		out[m] = n
	}
	return out, nil
}

func (t *Target) countMeasurement(ctx context.Context, m string) (int64, error) {
	metrics, err := t.metricNames(ctx, m)
	if err != nil {
		return 0, err
	}
	per := map[string]map[string]int64{} // key -> metric -> samples
	for _, name := range metrics {
		series, err := t.instant(ctx, fmt.Sprintf("count_over_time(%s[%%ds])", selector(quote(name), t.cfg.DBName, nil)))
		if err != nil {
			return 0, err
		}
		for _, s := range series {
			n, err := strconv.ParseFloat(s.Value[1].(string), 64)
			if err != nil || n < 0 || n != math.Trunc(n) {
				return 0, fmt.Errorf("count_over_time of %s: a count of %v", name, s.Value[1])
			}
			k := seriesKey(s.Metric)
			if per[k] == nil {
				per[k] = map[string]int64{}
			}
			per[k][name] += int64(n)
		}
	}
	sparse := t.fieldsOf(m) != len(metrics)
	for _, counts := range per {
		sparse = sparse || !sameCounts(counts)
	}
	var rows int64
	if !sparse {
		for _, counts := range per {
			for _, n := range counts {
				rows += n
				break
			}
		}
		return rows, nil
	}
	seen := map[string]map[int64]struct{}{}
	if err := t.raw(ctx, metrics, func(labels map[string]string, _ string, ts int64, _ float64) error {
		k := seriesKey(labels)
		if seen[k] == nil {
			seen[k] = map[int64]struct{}{}
		}
		seen[k][ts] = struct{}{}
		return nil
	}); err != nil {
		return 0, err
	}
	for _, s := range seen {
		rows += int64(len(s))
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

// seriesKey is the labels other than the metric name and db, in a
// canonical form.
func seriesKey(labels map[string]string) string {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		if k != "__name__" && k != "db" {
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

// quote is a PromQL string literal.
func quote(s string) string { return strconv.Quote(s) }

// selector matches the metric (a quoted name for =, or nameRe for =~ when
// it starts with "~") in db label db, with the further matchers more.
func selector(name, db string, more []string) string {
	op := "="
	if strings.HasPrefix(name, "~") {
		op, name = "=~", name[1:]
	}
	return "{" + strings.Join(append([]string{"__name__" + op + name, "db=" + quote(db)}, more...), ",") + "}"
}

type vectorSample struct {
	Metric map[string]string `json:"metric"`
	Value  [2]any            `json:"value"`
}

// instant runs the instant query q at the counting window's T, with %d in
// q replaced by W.
func (t *Target) instant(ctx context.Context, q string) ([]vectorSample, error) {
	at, secs := window()
	q = fmt.Sprintf(q, secs)
	var ans struct {
		Data struct {
			Result []vectorSample `json:"result"`
		} `json:"data"`
	}
	v := url.Values{"query": {q}, "time": {strconv.FormatInt(at, 10)}}
	if err := t.getJSON(ctx, "/api/v1/query", v, &ans); err != nil {
		return nil, fmt.Errorf("%s: %w", q, err)
	}
	return ans.Data.Result, nil
}

// raw calls fn with every sample of the metrics in the db label (the range
// vector over the whole window), read one metric at a time.
func (t *Target) raw(ctx context.Context, metrics []string, fn func(labels map[string]string, metric string, ms int64, v float64) error) error {
	at, secs := window()
	for _, name := range metrics {
		q := fmt.Sprintf("%s[%ds]", selector(quote(name), t.cfg.DBName, nil), secs)
		var ans struct {
			Data struct {
				Result []struct {
					Metric map[string]string `json:"metric"`
					Values [][2]any          `json:"values"`
				} `json:"result"`
			} `json:"data"`
		}
		v := url.Values{"query": {q}, "time": {strconv.FormatInt(at, 10)}}
		if err := t.getJSON(ctx, "/api/v1/query", v, &ans); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
		for _, s := range ans.Data.Result {
			for _, p := range s.Values {
				ts, ok := p[0].(float64)
				str, ok2 := p[1].(string)
				if !ok || !ok2 {
					return fmt.Errorf("%s: a sample %v", q, p)
				}
				x, err := strconv.ParseFloat(str, 64)
				if err != nil {
					return fmt.Errorf("%s: a value %q", q, str)
				}
				if err := fn(s.Metric, name, int64(math.Round(ts*1000)), x); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// metricNames lists the metric names m_<field> of m in the db label.
func (t *Target) metricNames(ctx context.Context, m string) ([]string, error) {
	series, err := t.series(ctx, selector("~"+quote(regexp.QuoteMeta(m)+"_.+"), t.cfg.DBName, nil))
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []string
	for _, s := range series {
		if n := s["__name__"]; !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out, nil
}

// series lists the series that match (over the counting window).
func (t *Target) series(ctx context.Context, match string) ([]map[string]string, error) {
	at, secs := window()
	v := url.Values{"match[]": {match}, "start": {strconv.FormatInt(at-secs, 10)}, "end": {strconv.FormatInt(at, 10)}}
	var ans struct {
		Data []map[string]string `json:"data"`
	}
	if err := t.getJSON(ctx, "/api/v1/series", v, &ans); err != nil {
		return nil, fmt.Errorf("series %s: %w", match, err)
	}
	return ans.Data, nil
}

// Content computes each table's fingerprint from the server: the rows as
// Count counts them, and from the raw samples of the fields' metrics the
// distinct tag sets, the time range (milliseconds: TimeUnit 1e6) and per
// field the samples and their sum: exact for integer fields (every sample
// integral, summed in 128 bits), compensated for floats, true values for
// booleans; and the numeric fields' min and max (integers exact; values
// come as strconv's round-trip text). String fields never reach the server (the Writer refuses
// them): they come back with Count -1.
func (t *Target) Content(ctx context.Context, qs []fingerprint.Query) (map[string]*fingerprint.Table, error) {
	if len(qs) == 0 {
		return nil, nil // asked whether content can be verified: it can
	}
	return contentq.Each(qs, func(q fingerprint.Query) (*fingerprint.Table, error) { return t.content(ctx, q) })
}

func (t *Target) content(ctx context.Context, q fingerprint.Query) (*fingerprint.Table, error) {
	counts, err := t.Count(ctx, []string{q.Table})
	if err != nil {
		return nil, err
	}
	fp := contentq.Missing(q)
	fp.Rows, fp.TimeUnit = counts[q.Table], 1e6
	byMetric := map[string]*fingerprint.Field{}
	var metrics []string
	for i := range fp.Fields {
		f := &fp.Fields[i]
		if f.Kind == fingerprint.String {
			f.Count, f.Len = -1, -1
			continue
		}
		name := q.Table + "_" + f.Name
		byMetric[name] = f
		metrics = append(metrics, name)
	}
	if fp.Rows == 0 {
		return fp, nil
	}
	if len(metrics) == 0 {
		if metrics, err = t.metricNames(ctx, q.Table); err != nil {
			return nil, fmt.Errorf("prometheus: %w", err)
		}
	}
	series := map[string]bool{}
	comp := map[*fingerprint.Field]float64{}
	minT, maxT := int64(math.MaxInt64), int64(math.MinInt64)
	err = t.raw(ctx, metrics, func(labels map[string]string, metric string, ms int64, x float64) error {
		series[seriesKey(labels)] = true
		minT, maxT = min(minT, ms), max(maxT, ms)
		f := byMetric[metric]
		if f == nil {
			return nil
		}
		f.Count++
		switch f.Kind {
		case fingerprint.Int, fingerprint.Uint:
			if x != math.Trunc(x) || x < -(1<<63) || x >= 1<<64 { // int64's least to uint64's greatest: -2^63 is a float64
				return fmt.Errorf("%s.%s holds %v, not an integer", q.Table, f.Name, x)
			}
			var v fingerprint.Int128
			if x < 0 {
				v = fingerprint.Int128FromInt64(int64(x))
			} else {
				v = fingerprint.Int128FromUint64(uint64(x))
			}
			f.IntSum = f.IntSum.Add(v)
			f.AbsSum += math.Abs(x)
			contentq.WidenInt(f, v)
		case fingerprint.Bool:
			if x == 1 {
				f.True++
			}
		default:
			s := f.Sum + x // one Neumaier step
			if math.Abs(f.Sum) >= math.Abs(x) {
				comp[f] += (f.Sum - s) + x
			} else {
				comp[f] += (x - s) + f.Sum
			}
			f.Sum = s
			f.AbsSum += math.Abs(x)
			contentq.Widen(f, x)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("prometheus: content of %s: %w", q.Table, err)
	}
	for f, c := range comp {
		f.Sum += c
	}
	fp.Series, fp.SeriesExact = int64(len(series)), true
	if minT <= maxT {
		fp.MinTime, fp.MaxTime = minT*1e6, maxT*1e6
	}
	return fp, nil
}

// drop deletes every series of the db label (delete_series of the admin
// API, over all time). The server keeps a deleted series in its head, with
// its newest sample, until the head is compacted: a sample written again at
// that series' newest millisecond is dropped as a duplicate of it, so a
// load of the same rows into a db label just dropped may verify short.
// (clean_tombstones, which rewrites blocks only, does not help, and was
// seen to hang 2.42 while writes went on.) Deleting waits for a running
// compaction, so a label without series is not deleted.
func (t *Target) drop(ctx context.Context, db string) error {
	had, err := t.exists(ctx, db)
	if err != nil {
		return fmt.Errorf("prometheus: %w", err)
	}
	if !had {
		return nil // nothing to delete: delete_series would wait for a running compaction for nothing
	}
	if t.cfg.Log != nil {
		fmt.Fprintf(t.cfg.Log, "prometheus: note: dropping db=%s: the server keeps the deleted series' newest samples in its head until it is compacted, "+
			"so rows loaded again at those times are dropped as duplicates (load them under a new --db-name, or into a label not dropped)\n", db)
	}
	v := url.Values{"match[]": {`{db=` + quote(db) + `}`}}
	res, err := t.p.Post(ctx, httpwrite.Request{Path: "/api/v1/admin/tsdb/delete_series", ContentType: "application/x-www-form-urlencoded",
		Body: []byte(v.Encode()), NoCompress: true})
	if err != nil {
		return fmt.Errorf("prometheus: %w (delete_series waits for a running compaction: compacting out-of-order samples spread over years takes minutes)", err)
	}
	if res.Status == http.StatusUnauthorized || res.Status == http.StatusForbidden || res.Status == http.StatusNotFound ||
		strings.Contains(string(res.Body), "admin APIs disabled") {
		return fmt.Errorf("prometheus: delete_series: %d %s (dropping a db label needs --web.enable-admin-api)", res.Status, httpwrite.Snippet(res.Body, 200))
	}
	if res.Status != 204 && res.Status != 200 {
		return fmt.Errorf("prometheus: delete_series %s: %d %s", v.Get("match[]"), res.Status, httpwrite.Snippet(res.Body, 300))
	}
	return nil
}

// exists reports whether any series has the db label.
func (t *Target) exists(ctx context.Context, db string) (bool, error) {
	s, err := t.series(ctx, `{db=`+quote(db)+`}`)
	return len(s) > 0, err
}

// Footprint is the size of the whole TSDB (every db label: the server has
// one), the blocks and the head's files (chunks_head, the WAL and the
// out-of-order WBL). For a server on this machine it is what its data
// directory (storage.tsdb.path, from /api/v1/status/flags) takes on disk;
// for another, the blocks' bytes of /metrics (prometheus_tsdb_storage_blocks_bytes),
// a lower bound that leaves the head out.
func (t *Target) Footprint(ctx context.Context, _ []string) (load.Size, error) {
	var flags struct {
		Data map[string]string `json:"data"`
	}
	if err := t.getJSON(ctx, "/api/v1/status/flags", nil, &flags); err != nil {
		return load.Size{}, fmt.Errorf("prometheus: %w", err)
	}
	dir := flags.Data["storage.tsdb.path"]
	if local(t.ServerAddr()) && filepath.IsAbs(dir) {
		if n, err := diskUsage(dir); err == nil {
			return load.Size{Bytes: n, Method: "disk usage of the data directory " + dir + " (blocks, head chunks, WAL, WBL; every db label)",
				Mark: results.MarkWholeServer}, nil
		}
	}
	res, err := t.p.Post(ctx, httpwrite.Request{Method: http.MethodGet, Path: "/metrics", Accept: "text/plain", NoCompress: true})
	if err != nil {
		return load.Size{}, fmt.Errorf("prometheus: %w", err)
	}
	samples, err := promtext.Samples(res.Body, "prometheus_tsdb_storage_blocks_bytes")
	if err != nil || len(samples) != 1 {
		return load.Size{}, fmt.Errorf("prometheus: /metrics: no prometheus_tsdb_storage_blocks_bytes (%v)", err)
	}
	return load.Size{Bytes: int64(samples[0].Value), Method: "prometheus_tsdb_storage_blocks_bytes (blocks only: the head is left out; every db label)",
		Mark: results.MarkLowerBound}, nil
}

// local reports whether hostport is on this machine.
func local(hostport string) bool {
	h, _, err := net.SplitHostPort(hostport)
	if err != nil {
		return false
	}
	ip := net.ParseIP(h)
	return h == "localhost" || ip != nil && ip.IsLoopback()
}

// diskUsage is the bytes the files under dir take on disk (as du counts).
func diskUsage(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil // a file compaction removed meanwhile
			}
			return err
		}
		if d.Type().IsRegular() {
			info, err := d.Info()
			if err != nil {
				return nil
			}
			if b, ok := allocated(info); ok {
				n += b
			} else {
				n += info.Size()
			}
		}
		return nil
	})
	return n, err
}
