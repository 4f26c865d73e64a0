package sqlembed

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/query"
	"github.com/tsload/tsload/pkg/schema"
	"github.com/tsload/tsload/pkg/target/sqlquery"
)

// Querying is an engine's SQL for the query load: its dialect, and how a
// time it returns is read (nil: as a time.Time).
type Querying struct {
	Dialect  *sqlquery.Dialect
	ReadTime func(any) (time.Time, error)
}

// NewQuerier takes a connection of its own from the file's pool for the
// query load (load.Hooks.NewQuerier), growing the pool by one so that the
// writers keep theirs. Its statements are package sqlquery's in the
// engine's dialect.
func (t *Target) NewQuerier(ctx context.Context, n int) (load.Querier, error) {
	db, err := t.open()
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	if max := db.Stats().MaxOpenConnections; max > 0 {
		db.SetMaxOpenConns(max + 1)
		db.SetMaxIdleConns(max + 1)
	}
	t.mu.Unlock()
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: query connection %d: %w", t.eng.Name(), n, err)
	}
	return &sqlQuerier{eng: t.eng, q: t.eng.Querying(), conn: conn, times: map[string]string{}}, nil
}

type sqlQuerier struct {
	eng   Engine
	q     Querying
	conn  *sql.Conn
	times map[string]string // time column by table
}

// timeColumn is table's first timestamp column.
func (q *sqlQuerier) timeColumn(ctx context.Context, table string) (string, error) {
	if c, ok := q.times[table]; ok {
		return c, nil
	}
	cols, err := tableInfo(ctx, q.conn, q.eng, table)
	if err != nil {
		return "", err
	}
	for _, c := range cols {
		if typeOf(c.typ) == schema.Timestamp {
			q.times[table] = c.name
			return c.name, nil
		}
	}
	return "", fmt.Errorf("table %q does not exist or has no time column", table)
}

func (q *sqlQuerier) Query(ctx context.Context, qr *query.Query) (*query.Answer, error) {
	a, err := q.query(ctx, qr)
	if err != nil {
		return nil, fmt.Errorf("%s: query %s: %w", q.eng.Name(), qr.Name, err)
	}
	return a, nil
}

func (q *sqlQuerier) query(ctx context.Context, qr *query.Query) (*query.Answer, error) {
	tc, err := q.timeColumn(ctx, qr.Table)
	if err != nil {
		return nil, err
	}
	stmt, lay, err := q.q.Dialect.SQL(qr, tc)
	if err != nil {
		return nil, err
	}
	rows, err := q.conn.QueryContext(ctx, stmt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", stmt, err)
	}
	defer rows.Close()
	vals := make([]any, lay.Columns())
	ptrs := make([]any, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	a := &query.Answer{}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("%s: %w", stmt, err)
		}
		r, err := lay.Row(vals, q.q.ReadTime)
		if err != nil {
			return nil, fmt.Errorf("%s: row %d: %w", stmt, len(a.Rows)+1, err)
		}
		a.Rows = append(a.Rows, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", stmt, err)
	}
	return a, nil
}

func (q *sqlQuerier) Close() error { return q.conn.Close() }
