package timescale

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/query"
	"github.com/tsload/tsload/pkg/schema"
	"github.com/tsload/tsload/pkg/target/sqlquery"
)

// NewQuerier opens a connection of its own for the query load
// (load.Hooks.NewQuerier). Its statements are package sqlquery's in
// PostgreSQL's SQL: buckets are TimescaleDB's time_bucket when the
// database has the extension, date_bin from the epoch on plain
// PostgreSQL; the session's time zone is UTC, so that a table whose time
// column is a timestamp without time zone (read as UTC) compares and
// buckets as a timestamptz one does.
func (t *Target) NewQuerier(ctx context.Context, n int) (load.Querier, error) {
	conn, err := t.connect(ctx, t.cfg.DBName)
	if err != nil {
		return nil, fmt.Errorf("timescale: query connection %d to database %q: %w", n, t.cfg.DBName, err)
	}
	if _, err := conn.Exec(ctx, "SET TIME ZONE 'UTC'"); err != nil {
		conn.Close(context.Background())
		return nil, fmt.Errorf("timescale: query connection %d: %w", n, err)
	}
	var ext bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'timescaledb')").Scan(&ext); err != nil {
		conn.Close(context.Background())
		return nil, fmt.Errorf("timescale: query connection %d: %w", n, err)
	}
	return &querier{conn: conn, d: sqlquery.Postgres(ext), times: map[string]string{}}, nil
}

type querier struct {
	conn  *pgx.Conn
	d     *sqlquery.Dialect
	times map[string]string // time column by table
}

// timeColumn is table's time column: its first timestamp column (the
// first column of a table tsload creates).
func (q *querier) timeColumn(ctx context.Context, table string) (string, error) {
	if c, ok := q.times[table]; ok {
		return c, nil
	}
	var c string
	err := q.conn.QueryRow(ctx, `SELECT attname FROM pg_attribute WHERE attrelid = to_regclass($1) AND attnum > 0 AND NOT attisdropped
		AND atttypid IN ('timestamptz'::regtype, 'timestamp'::regtype) ORDER BY attnum LIMIT 1`, schema.QuoteIdent(table)).Scan(&c)
	if err == pgx.ErrNoRows {
		return "", fmt.Errorf("table %q does not exist or has no time column", table)
	}
	if err != nil {
		return "", err
	}
	q.times[table] = c
	return c, nil
}

func (q *querier) Query(ctx context.Context, qr *query.Query) (*query.Answer, error) {
	a, err := q.query(ctx, qr)
	if err != nil {
		err = fmt.Errorf("%s: query %s: %w", q.d.Name, qr.Name, err)
		if isRetryable(err) {
			err = load.Retryable(err)
		}
	}
	return a, err
}

func (q *querier) query(ctx context.Context, qr *query.Query) (*query.Answer, error) {
	tc, err := q.timeColumn(ctx, qr.Table)
	if err != nil {
		return nil, err
	}
	stmt, lay, err := q.d.SQL(qr, tc)
	if err != nil {
		return nil, err
	}
	rows, err := q.conn.Query(ctx, stmt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", stmt, err)
	}
	defer rows.Close()
	a := &query.Answer{}
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", stmt, err)
		}
		r, err := lay.Row(vals, nil)
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

func (q *querier) Close() error { return q.conn.Close(context.Background()) }
