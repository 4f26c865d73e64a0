package cnosdb

import (
	"context"
	"fmt"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/query"
	"github.com/tsload/tsload/pkg/target/httpwrite"
	"github.com/tsload/tsload/pkg/target/sqlquery"
)

// timeColumn is the time column of every CnosDB table.
const timeColumn = "time"

// NewQuerier returns a querier with an HTTP poster of its own for the
// query load (load.Hooks.NewQuerier): package sqlquery's statements in
// DataFusion's SQL (date_bin buckets from the epoch, window functions for
// newest-N and Last) posted to /api/v1/sql, rows read back from JSON by
// column name.
func (t *Target) NewQuerier(_ context.Context, n int) (load.Querier, error) {
	if t.cfg.DBName == "" {
		return nil, load.Settingf("no database name ({DBName})")
	}
	return &querier{t: t, p: t.client.NewPoster(n), d: sqlquery.DataFusion("cnosdb")}, nil
}

type querier struct {
	t *Target
	p *httpwrite.Poster
	d *sqlquery.Dialect
}

func (q *querier) Query(ctx context.Context, qr *query.Query) (*query.Answer, error) {
	a, err := q.d.MapQuery(ctx, qr, timeColumn, func(ctx context.Context, stmt string) ([]map[string]any, error) {
		return q.t.sqlOn(ctx, q.p, q.t.cfg.DBName, stmt)
	})
	if err != nil {
		return nil, fmt.Errorf("cnosdb: %w", err)
	}
	return a, nil
}

func (q *querier) Close() error { return nil }
