package influx

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/tsload/tsload/pkg/fingerprint"
	"github.com/tsload/tsload/pkg/target/contentq"
)

// content on InfluxDB 3: the measurement's columns from
// information_schema.columns, then one DataFusion query
// (contentq.DataFusion: count(DISTINCT struct(tags)) exact, integers
// summed as DECIMAL(38,0) since a BIGINT sum wraps, octet_length for
// strings).
func (apiV3) content(ctx context.Context, t *Target, q fingerprint.Query) (*fingerprint.Table, error) {
	lit := "'" + strings.ReplaceAll(q.Table, "'", "''") + "'"
	colRows, missing, err := v3Rows(ctx, t, "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'iox' AND table_name = "+lit)
	if err != nil {
		return nil, err
	}
	if missing || len(colRows) == 0 {
		return contentq.Missing(q), nil
	}
	cols := map[string]fingerprint.Kind{}
	for _, c := range colRows {
		name, _ := c["column_name"].(string)
		typ, _ := c["data_type"].(string)
		cols[name] = v3Kind(typ)
		// The time column is the server's, named time whatever the input
		// called it (a CSV's ts is written as the lines' timestamp).
		if strings.HasPrefix(typ, "Timestamp") {
			q.Time = name
		}
	}
	p := contentq.DataFusion(q, cols, sqlIdent, true)
	rows, missing, err := v3Rows(ctx, t, p.SQL)
	if errors.Is(err, errFileLimit) {
		return v3ContentInParts(ctx, t, q, p)
	}
	if err != nil {
		return nil, err
	}
	if missing {
		return contentq.Missing(q), nil
	}
	if len(rows) != 1 {
		return nil, fmt.Errorf("%s: want one row, got %d", p.SQL, len(rows))
	}
	return p.Read(rows[0])
}

// errFileLimit is the server's refusal of a query over more Parquet files
// than its --query-file-limit.
var errFileLimit = errors.New("the server refuses a query over this many Parquet files")

// maxSeriesInParts bounds the tag sets v3ContentInParts keeps to count the
// distinct ones across parts (a variable for tests).
var maxSeriesInParts = 1 << 20

// v3ContentInParts is content for a table persisted in more Parquet files
// than the server lets one query read, as count does it: the rows outside
// the persisted files' time range, then that range halved until each part
// is under the limit. Counts, sums and the range add up over the parts;
// the distinct tag sets are collected from each part and counted once
// (up to maxSeriesInParts of them).
func v3ContentInParts(ctx context.Context, t *Target, q fingerprint.Query, p *contentq.Plan) (*fingerprint.Table, error) {
	lo, hi, err := v3FileRange(ctx, t, q.Table)
	if err != nil {
		return nil, err
	}
	total := contentq.Missing(q)
	series := map[string]struct{}{}
	var part func(cond string, a, b int64, split bool) error
	part = func(cond string, a, b int64, split bool) error {
		rows, _, err := v3Rows(ctx, t, p.Where(cond))
		if errors.Is(err, errFileLimit) && split && a < b {
			mid := a + (b-a)/2
			if err := part(v3Range(a, mid), a, mid, true); err != nil {
				return err
			}
			return part(v3Range(mid+1, b), mid+1, b, true)
		}
		if err != nil {
			return err
		}
		if len(rows) != 1 {
			return fmt.Errorf("%s: want one row, got %d", p.Where(cond), len(rows))
		}
		fp, err := p.Read(rows[0])
		if err != nil {
			return err
		}
		if fp.Rows == 0 {
			return nil
		}
		contentq.Add(total, fp)
		sq := p.SeriesSQL(cond)
		if sq == "" {
			return nil
		}
		tags, _, err := v3Rows(ctx, t, sq)
		if err != nil {
			return err
		}
		for _, r := range tags {
			k, _ := json.Marshal(r) // keys sorted: one form per tag set
			series[string(k)] = struct{}{}
		}
		if len(series) > maxSeriesInParts {
			return fmt.Errorf("%s: more than %d series to count across the parts of a table beyond the server's query file limit", q.Table, maxSeriesInParts)
		}
		return nil
	}
	for _, c := range []string{fmt.Sprintf("time < to_timestamp_nanos(%d)", lo), fmt.Sprintf("time > to_timestamp_nanos(%d)", hi)} {
		if err := part(c, 0, 0, false); err != nil {
			return nil, err
		}
	}
	if err := part(v3Range(lo, hi), lo, hi, true); err != nil {
		return nil, err
	}
	total.Series = int64(len(series))
	if p.SeriesSQL("true") == "" {
		total.Series = contentq.NoTagSeries(total.Rows)
	}
	return total, nil
}

func v3Range(lo, hi int64) string {
	return fmt.Sprintf("time >= to_timestamp_nanos(%d) AND time <= to_timestamp_nanos(%d)", lo, hi)
}

// v3FileRange is the time range of m's persisted Parquet files.
func v3FileRange(ctx context.Context, t *Target, m string) (lo, hi int64, err error) {
	q := "SELECT MIN(min_time) AS lo, MAX(max_time) AS hi FROM system.parquet_files WHERE table_name = '" + strings.ReplaceAll(m, "'", "''") + "'"
	var rows []struct{ Lo, Hi *int64 }
	if err := t.v3SQL(ctx, q, &rows); err != nil {
		return 0, 0, fmt.Errorf("%w (asked because %s is in more files than the server's query file limit)", err, m)
	}
	if len(rows) != 1 || rows[0].Lo == nil || rows[0].Hi == nil {
		return 0, 0, fmt.Errorf("%s: no Parquet files of %s, yet too many to read at once", q, m)
	}
	return *rows[0].Lo, *rows[0].Hi, nil
}

// v3Rows runs q and returns its JSON rows with numbers kept exact
// (json.Number: nanosecond times exceed a float64's 53 bits); missing
// reports a database or table that does not exist.
func v3Rows(ctx context.Context, t *Target, q string) (rows []map[string]any, missing bool, err error) {
	res, err := t.v3Do(ctx, http.MethodPost, "/api/v3/query_sql", nil, map[string]string{"db": t.cfg.DBName, "q": q, "format": "json"})
	if err != nil {
		return nil, false, err
	}
	text := v3Text(res)
	switch {
	case res.Status == 404:
		return nil, true, nil
	case res.Status != 200 && strings.Contains(text, "exceed file limit"):
		return nil, false, fmt.Errorf("%s: %w: %s", q, errFileLimit, text)
	case res.Status != 200 && strings.Contains(text, "not found"):
		return nil, true, nil
	case res.Status != 200:
		return nil, false, fmt.Errorf("%s: %s answered %d: %s", q, t.query.BaseURL(), res.Status, text)
	case res.Truncated:
		return nil, false, fmt.Errorf("%s: the answer is longer than the loader reads", q)
	}
	dec := json.NewDecoder(strings.NewReader(string(res.Body)))
	dec.UseNumber()
	if err := dec.Decode(&rows); err != nil {
		return nil, false, fmt.Errorf("%s: unexpected answer %s", q, v3Text(res))
	}
	return rows, false, nil
}

// v3Kind maps an InfluxDB 3 column's Arrow type (information_schema) to
// the kind content verification aggregates it as; tags are dictionaries
// of strings.
func v3Kind(typ string) fingerprint.Kind {
	switch {
	case typ == "Float64":
		return fingerprint.Float
	case typ == "Int64":
		return fingerprint.Int
	case typ == "UInt64":
		return fingerprint.Uint
	case typ == "Utf8" || strings.HasPrefix(typ, "Dictionary("):
		return fingerprint.String
	case typ == "Boolean":
		return fingerprint.Bool
	}
	return contentq.Opaque
}
