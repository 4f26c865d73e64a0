package influx

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/query"
	"github.com/tsload/tsload/pkg/target/httpwrite"
	"github.com/tsload/tsload/pkg/target/sqlquery"
)

// v3TimeColumn is the time column of every InfluxDB 3 table.
const v3TimeColumn = "time"

// newV3Querier is query connection n on InfluxDB 3: package sqlquery's
// statements in DataFusion's SQL (date_bin buckets from the epoch, window
// functions for newest-N and Last) posted to /api/v3/query_sql on a
// Poster of its own, rows read back from JSON by column name.
func (t *Target) newV3Querier(n int) load.Querier {
	return &v3Querier{t: t, p: t.client.NewPoster(n), d: sqlquery.DataFusion("influxdb3")}
}

type v3Querier struct {
	t *Target
	p *httpwrite.Poster
	d *sqlquery.Dialect
}

func (q *v3Querier) Query(ctx context.Context, qr *query.Query) (*query.Answer, error) {
	a, err := q.d.MapQuery(ctx, qr, v3TimeColumn, q.rows)
	if err != nil {
		return nil, fmt.Errorf("influx: %w", err)
	}
	return a, nil
}

// rows runs stmt and returns its JSON rows (a NULL is a missing key).
func (q *v3Querier) rows(ctx context.Context, stmt string) ([]map[string]any, error) {
	res, err := q.t.v3DoOn(ctx, q.p, http.MethodPost, "/api/v3/query_sql", nil, map[string]string{"db": q.t.cfg.DBName, "q": stmt, "format": "json"})
	if err != nil {
		return nil, err
	}
	switch {
	case res.Status != 200:
		return nil, fmt.Errorf("%s: %s answered %d: %s", stmt, q.p.BaseURL(), res.Status, v3Text(res))
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

func (q *v3Querier) Close() error { return nil }
