package clickhouse

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/query"
	"github.com/tsload/tsload/pkg/target/sqlquery"
)

// NewQuerier opens query connection n for the query load (load.Hooks.NewQuerier): a
// database/sql connection of its own on the load's database, its statements package
// sqlquery's in the ClickHouse dialect.
func (t *Target) NewQuerier(ctx context.Context, n int) (load.Querier, error) {
	t.mu.Lock()
	dt64, version := t.dt64, t.version
	t.mu.Unlock()
	d := sqlquery.ClickHouse(dt64)
	if serverHasWindows(version) {
		sqlquery.ClickHouseWindows(d)
	}
	if t.cfg.DBPath != "" { // chDB: its one connection, shared with the writers
		be, err := t.open(ctx)
		if err != nil {
			return nil, err
		}
		// The statements name tables alone; the writers name their database.
		if err := be.exec(ctx, "USE "+ident(t.cfg.DBName)); err != nil {
			return nil, fmt.Errorf("clickhouse: query connection %d: %w", n, err)
		}
		return &querier{t: t, be: be, d: d}, nil
	}
	db := ch.OpenDB(&ch.Options{
		Addr:        []string{t.cfg.Addr},
		Auth:        ch.Auth{Database: t.cfg.DBName, Username: t.cfg.User, Password: t.cfg.Password},
		DialTimeout: 5 * time.Second,
	})
	db.SetMaxOpenConns(1)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("clickhouse: query connection %d: %w", n, err)
	}
	return &querier{t: t, db: db, d: d}, nil
}

// serverHasWindows: window functions came with ClickHouse 21.9.
func serverHasWindows(version string) bool {
	major, rest, _ := strings.Cut(version, ".")
	minor, _, _ := strings.Cut(rest, ".")
	a, err1 := strconv.Atoi(major)
	b, err2 := strconv.Atoi(minor)
	return err1 == nil && err2 == nil && (a > 21 || a == 21 && b >= 9)
}

type querier struct {
	t     *Target
	db    *sql.DB // a server's
	be    backend // chDB's (db nil)
	d     *sqlquery.Dialect
	times map[string]string
}

func (q *querier) Query(ctx context.Context, qr *query.Query) (*query.Answer, error) {
	a, err := q.query(ctx, qr)
	if err != nil {
		return nil, fmt.Errorf("clickhouse: query %s: %w", qr.Name, err)
	}
	return a, nil
}

func (q *querier) query(ctx context.Context, qr *query.Query) (*query.Answer, error) {
	if q.times == nil {
		q.times = map[string]string{}
	}
	tc, ok := q.times[qr.Table]
	if !ok {
		tb, err := q.t.table(ctx, qr.Table, nil)
		if err != nil {
			return nil, err
		}
		tc = tb.schema.Columns[0].Name
		q.times[qr.Table] = tc
	}
	stmt, lay, err := q.d.SQL(qr, tc)
	if err != nil {
		return nil, err
	}
	if q.db == nil {
		return q.text(ctx, stmt, lay)
	}
	rows, err := q.db.QueryContext(ctx, stmt)
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
		for i, v := range vals { // Nullable values come as pointers
			vals[i] = deref(v)
		}
		r, err := lay.Row(vals, sqlquery.UnixTime(time.Nanosecond))
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

// text runs stmt on chDB, whose answer is TabSeparated text: \N is NULL, and a time is
// integer nanoseconds (a bucket) or the time column's text.
func (q *querier) text(ctx context.Context, stmt string, lay sqlquery.Layout) (*query.Answer, error) {
	rows, err := q.be.rows(ctx, stmt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", stmt, err)
	}
	readTime := func(v any) (time.Time, error) {
		if s, ok := v.(string); ok {
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				return time.Unix(0, n).UTC(), nil
			}
		}
		return sqlquery.Time(v)
	}
	a := &query.Answer{}
	vals := make([]any, lay.Columns())
	for _, r := range rows {
		if len(r) != len(vals) {
			return nil, fmt.Errorf("%s: a row of %d columns, want %d", stmt, len(r), len(vals))
		}
		for i, c := range r {
			vals[i] = c
			if c == `\N` {
				vals[i] = nil
			}
		}
		row, err := lay.Row(vals, readTime)
		if err != nil {
			return nil, fmt.Errorf("%s: row %d: %w", stmt, len(a.Rows)+1, err)
		}
		a.Rows = append(a.Rows, row)
	}
	return a, nil
}

func deref(v any) any {
	switch p := v.(type) {
	case *float64:
		if p == nil {
			return nil
		}
		return *p
	case *string:
		if p == nil {
			return nil
		}
		return *p
	case *time.Time:
		if p == nil {
			return nil
		}
		return *p
	case *int64:
		if p == nil {
			return nil
		}
		return *p
	}
	return v
}

// Close closes a server's query connection (chDB's is the target's).
func (q *querier) Close() error {
	if q.db == nil {
		return nil
	}
	return q.db.Close()
}
