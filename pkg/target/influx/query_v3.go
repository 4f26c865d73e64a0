package influx

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/tsload/tsload/pkg/query"
	"github.com/tsload/tsload/pkg/target/httpwrite"
	"github.com/tsload/tsload/pkg/target/sqlquery"
)

// v3TimeColumn is the time column of every InfluxDB 3 table.
const v3TimeColumn = "time"

// v3Dialect is InfluxDB 3's SQL: DataFusion's (date_bin buckets from the
// epoch, window functions for newest-N and Last).
var v3Dialect = sqlquery.DataFusion("influxdb3")

// ask states qy in package sqlquery's statements in v3Dialect, posts it
// to /api/v3/query_sql over p and reads the JSON rows back by column
// name.
func (apiV3) ask(ctx context.Context, t *Target, p *httpwrite.Poster, qy *query.Query) (*query.Answer, error) {
	a, err := v3Dialect.MapQuery(ctx, qy, v3TimeColumn, func(ctx context.Context, stmt string) ([]map[string]any, error) {
		return t.v3QueryRows(ctx, p, stmt)
	})
	if err != nil {
		return nil, fmt.Errorf("influx: %w", err)
	}
	return a, nil
}

// v3QueryRows runs stmt over p and returns its JSON rows (a NULL is a
// missing key).
func (t *Target) v3QueryRows(ctx context.Context, p *httpwrite.Poster, stmt string) ([]map[string]any, error) {
	res, err := t.v3DoOn(ctx, p, http.MethodPost, "/api/v3/query_sql", nil, map[string]string{"db": t.cfg.DBName, "q": stmt, "format": "json"})
	if err != nil {
		return nil, err
	}
	switch {
	case res.Status != 200:
		return nil, fmt.Errorf("%s: %s answered %d: %s", stmt, p.BaseURL(), res.Status, v3Text(res))
	case res.Truncated:
		return nil, fmt.Errorf("%s: the answer is longer than the loader reads", stmt)
	}
	var rows []map[string]any
	dec := json.NewDecoder(strings.NewReader(string(res.Body)))
	dec.UseNumber()
	if err := dec.Decode(&rows); err != nil {
		return nil, fmt.Errorf("%s: unexpected answer %s", stmt, v3Text(res))
	}
	return rows, nil
}
