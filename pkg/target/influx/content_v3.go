package influx

import (
	"context"
	"encoding/json"
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
	}
	p := contentq.DataFusion(q, cols, sqlIdent)
	rows, missing, err := v3Rows(ctx, t, p.SQL)
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
		return nil, false, fmt.Errorf("%s: the server refuses a query over this many Parquet files (raise its --query-file-limit, or verify by count): %s", q, text)
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
