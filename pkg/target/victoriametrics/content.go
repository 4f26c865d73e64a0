package victoriametrics

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/tsload/tsload/pkg/fingerprint"
	"github.com/tsload/tsload/pkg/target/contentq"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// Content computes each table's fingerprint from the server: the rows as
// Count counts them, and from /api/v1/export of the fields' metrics (read
// whole: up to 64 MiB of export, a few million samples, per table) the
// distinct tag sets, the time range (milliseconds: TimeUnit 1e6) and per
// field the samples and their sum: exact for integer fields (every sample
// integral, summed in 128 bits), compensated for floats, true values for
// booleans; and the numeric fields' min and max (integers exact; floats
// marked Printed: the export's text may drop a 17th significant digit,
// float64's greatest comes back as 1.797693134862315e+308, so they are
// compared within 2^-49 as the sums are). String fields never reach the server (CheckLines refuses
// them): they come back with Count -1.
func (t *Target) Content(ctx context.Context, qs []fingerprint.Query) (map[string]*fingerprint.Table, error) {
	if len(qs) == 0 {
		return nil, nil // asked whether content can be verified: it can
	}
	return contentq.Each(qs, func(q fingerprint.Query) (*fingerprint.Table, error) { return t.content(ctx, q) })
}

func (t *Target) content(ctx context.Context, q fingerprint.Query) (*fingerprint.Table, error) {
	counts, err := t.Count(ctx, []string{q.Table}) // flushes first
	if err != nil {
		return nil, err
	}
	fp := contentq.Missing(q)
	fp.Rows, fp.TimeUnit = counts[q.Table], 1e6
	byMetric := map[string]*fingerprint.Field{}
	var alts []string
	for i := range fp.Fields {
		f := &fp.Fields[i]
		if f.Kind == fingerprint.String {
			f.Count, f.Len = -1, -1
			continue
		}
		name := q.Table + "_" + f.Name
		byMetric[name] = f
		alts = append(alts, regexp.QuoteMeta(name))
	}
	if fp.Rows == 0 {
		return fp, nil
	}
	if len(alts) == 0 {
		// No field asked for (a query before the load may list none): the
		// series and time range come from every metric of the table.
		names, err := t.metricNames(ctx)
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			if strings.HasPrefix(n, q.Table+"_") {
				alts = append(alts, regexp.QuoteMeta(n))
			}
		}
	}
	at, _ := window()
	v := url.Values{"match[]": {selector(strings.Join(alts, "|"), map[string]string{"db": t.cfg.DBName})}, "start": {"86399"}, "end": {strconv.FormatInt(at.Unix(), 10)}}
	res, err := t.p.Post(ctx, httpwrite.Request{Method: http.MethodGet, Path: "/api/v1/export", Query: v.Encode(), NoCompress: true})
	if err != nil {
		return nil, fmt.Errorf("victoriametrics: %w", err)
	}
	if res.Status != 200 || res.Truncated {
		return nil, fmt.Errorf("victoriametrics: GET /api/v1/export of %s: %d %s (truncated %v: content verification reads at most 64 MiB of export per table)", q.Table, res.Status, httpwrite.Snippet(res.Body, 300), res.Truncated)
	}
	series := map[string]bool{}
	comp := map[*fingerprint.Field]float64{}
	minT, maxT := int64(math.MaxInt64), int64(math.MinInt64)
	sc := bufio.NewScanner(bytes.NewReader(res.Body))
	sc.Buffer(nil, len(res.Body)+1)
	for sc.Scan() {
		var line struct {
			Metric     map[string]string `json:"metric"`
			Values     []float64         `json:"values"`
			Timestamps []int64           `json:"timestamps"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			return nil, fmt.Errorf("victoriametrics: /api/v1/export: %v", err)
		}
		f := byMetric[line.Metric["__name__"]]
		key := line.Metric
		delete(key, "db")
		series[seriesKey(key)] = true
		for _, ts := range line.Timestamps {
			minT, maxT = min(minT, ts), max(maxT, ts)
		}
		if f == nil {
			continue
		}
		for _, x := range line.Values {
			f.Count++
			switch f.Kind {
			case fingerprint.Int, fingerprint.Uint:
				if x != math.Trunc(x) || x < -(1<<63) || x >= 1<<64 { // int64's least to uint64's greatest: -2^63 is a float64
					return nil, fmt.Errorf("victoriametrics: %s.%s holds %v, not an integer", q.Table, f.Name, x)
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
				// One Neumaier step.
				s := f.Sum + x
				if math.Abs(f.Sum) >= math.Abs(x) {
					comp[f] += (f.Sum - s) + x
				} else {
					comp[f] += (x - s) + f.Sum
				}
				f.Sum = s
				f.AbsSum += math.Abs(x)
				contentq.Widen(f, x)
				f.Printed = true
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
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
