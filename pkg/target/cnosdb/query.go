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
	stmt, lay, err := q.d.SQL(qr, timeColumn)
	if err != nil {
		return nil, fmt.Errorf("cnosdb: %w", err)
	}
	rows, err := q.t.sqlOn(ctx, q.p, q.t.cfg.DBName, stmt)
	if err != nil {
		return nil, fmt.Errorf("cnosdb: query %s: %w", qr.Name, err)
	}
	a := &query.Answer{Rows: make([]query.Row, 0, len(rows))}
	for i, m := range rows {
		r, err := lay.MapRow(m, nil)
		if err != nil {
			return nil, fmt.Errorf("cnosdb: query %s: %s: row %d: %w", qr.Name, stmt, i+1, err)
		}
		a.Rows = append(a.Rows, r)
	}
	return a, nil
}

func (q *querier) Close() error { return nil }
