package questdb

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/query"
	"github.com/tsload/tsload/pkg/target/sqlquery"
)

// NewQuerier opens a connection of its own for the query load
// (load.Hooks.NewQuerier): PG wire when the target has a PG URL, else
// HTTP /exec. Its statements are package sqlquery's in QuestDB's SQL
// (timestamp_floor buckets from the epoch, window functions for newest-N
// and Last), over each table's designated timestamp (tables()); Last per
// group without buckets is LATEST ON ... PARTITION BY the groups.
func (t *Target) NewQuerier(ctx context.Context, n int) (load.Querier, error) {
	qr := &loadQuerier{d: sqlquery.QuestDB(), times: map[string]string{}, t: t}
	if t.cfg.PG != "" {
		pq, err := newPGQuerier(ctx, t.cfg.PG)
		if err != nil {
			return nil, fmt.Errorf("questdb: query connection %d: %w", n, err)
		}
		qr.pg = pq
	} else {
		qr.exec = &execQuerier{c: t.client}
	}
	return qr, nil
}

type loadQuerier struct {
	d     *sqlquery.Dialect
	pg    *pgQuerier
	exec  *execQuerier
	times map[string]string // designated timestamp by table
	t     *Target           // its writes' acknowledgements (applied)
	polls int               // wal_tables() reads (tests)
}

// rows runs stmt and returns its rows: typed over PG wire, text over
// HTTP.
func (q *loadQuerier) rows(ctx context.Context, stmt string) ([][]any, error) {
	if q.exec != nil {
		text, err := q.exec.query(ctx, stmt)
		if err != nil {
			return nil, err
		}
		out := make([][]any, len(text))
		for i, r := range text {
			out[i] = make([]any, len(r))
			for j, v := range r {
				if v != "" {
					out[i][j] = v
				}
			}
		}
		return out, nil
	}
	rows, err := q.pg.conn.Query(ctx, stmt)
	if err != nil {
		return nil, q.pg.fail(ctx, fmt.Errorf("%s: %w", stmt, err))
	}
	defer rows.Close()
	var out [][]any
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return nil, q.pg.fail(ctx, fmt.Errorf("%s: %w", stmt, err))
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		return nil, q.pg.fail(ctx, fmt.Errorf("%s: %w", stmt, err))
	}
	return out, nil
}

// timeColumn is table's designated timestamp.
func (q *loadQuerier) timeColumn(ctx context.Context, table string) (string, error) {
	if c, ok := q.times[table]; ok {
		return c, nil
	}
	rows, err := q.rows(ctx, "SELECT designatedTimestamp FROM tables() WHERE table_name = "+sqlquery.Literal(table))
	if err != nil {
		return "", err
	}
	if len(rows) == 0 || rows[0][0] == nil {
		return "", fmt.Errorf("table %q does not exist or has no designated timestamp", table)
	}
	c, ok := rows[0][0].(string)
	if !ok {
		return "", fmt.Errorf("tables(): designated timestamp %v of %q is not text", rows[0][0], table)
	}
	q.times[table] = c
	return c, nil
}

func (q *loadQuerier) Query(ctx context.Context, qr *query.Query) (*query.Answer, error) {
	a, err := q.query(ctx, qr)
	if err != nil {
		return nil, fmt.Errorf("questdb: query %s: %w", qr.Name, err)
	}
	return a, nil
}

func (q *loadQuerier) query(ctx context.Context, qr *query.Query) (*query.Answer, error) {
	tc, err := q.timeColumn(ctx, qr.Table)
	if err != nil {
		return nil, err
	}
	stmt, lay, err := q.statement(qr, tc)
	if err != nil {
		return nil, err
	}
	if err := q.applied(ctx, qr.Table); err != nil {
		return nil, err
	}
	if q.exec != nil { // text: read as text, not boxed
		text, err := q.exec.query(ctx, stmt)
		if err != nil {
			return nil, err
		}
		a := &query.Answer{Rows: make([]query.Row, 0, len(text))}
		for i, vals := range text {
			r, err := lay.TextRow(vals)
			if err != nil {
				return nil, fmt.Errorf("%s: row %d: %w", stmt, i+1, err)
			}
			a.Rows = append(a.Rows, r)
		}
		return a, nil
	}
	rows, err := q.rows(ctx, stmt)
	if err != nil {
		return nil, err
	}
	a := &query.Answer{Rows: make([]query.Row, 0, len(rows))}
	for i, vals := range rows {
		r, err := lay.Row(vals, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: row %d: %w", stmt, i+1, err)
		}
		a.Rows = append(a.Rows, r)
	}
	return a, nil
}

// applied returns once the WAL of table (a WAL table) is applied up to
// the transaction its sequencer had when it was called: the rows of every
// batch acknowledged before the query are then visible to it. A 2xx over
// HTTP means the rows are in the WAL, not yet in the table: without the
// wait a query over acknowledged rows can miss some (a check then reports
// a wrong answer that is not). The wait is part of the query's latency.
//
// Over HTTP a write counts in the target's acknowledged bytes once it is
// acknowledged, so when they have not changed since a poll that found
// table applied (read before that poll), every batch acknowledged before
// this query was acknowledged before that poll: no poll is needed (about
// half the queries at --query-rate 10, one HTTP request each). Over TCP
// (nothing acknowledged) every query polls.
func (q *loadQuerier) applied(ctx context.Context, table string) error {
	var acked int64 = -1
	if q.t != nil && q.t.cfg.Transport == HTTP {
		acked = q.t.sentBytes.Load()
		if q.t.appliedAt(table) == acked {
			return nil
		}
	}
	stmt := "SELECT writerTxn, sequencerTxn, suspended FROM wal_tables() WHERE name = " + sqlquery.Literal(table)
	var target int64 = -1
	for {
		q.polls++
		rows, err := q.rows(ctx, stmt)
		if err != nil {
			return err
		}
		if len(rows) == 0 {
			q.t.setApplied(table, acked)
			return nil // not a WAL table: rows are visible once written
		}
		w, werr := strconv.ParseInt(fmt.Sprint(rows[0][0]), 10, 64)
		s, serr := strconv.ParseInt(fmt.Sprint(rows[0][1]), 10, 64)
		if werr != nil || serr != nil {
			return fmt.Errorf("wal_tables() of %q: writerTxn %v, sequencerTxn %v", table, rows[0][0], rows[0][1])
		}
		if b := fmt.Sprint(rows[0][2]); b == "true" || b == "t" {
			return fmt.Errorf("table %q is suspended (WAL apply failed)", table)
		}
		if target < 0 {
			target = s
		}
		if w >= target {
			q.t.setApplied(table, acked)
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("WAL of %q applied to transaction %d of %d: %w", table, w, target, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// statement is qr in QuestDB's SQL: LATEST ON for Last per group without
// buckets, else package sqlquery's statement.
func (q *loadQuerier) statement(qr *query.Query, tc string) (string, sqlquery.Layout, error) {
	stmt, lay, err := q.d.SQL(qr, tc)
	if err != nil || qr.Agg != query.Last || qr.Bucket > 0 || len(qr.GroupBy) == 0 {
		return stmt, lay, err
	}
	where, err := q.d.Where(qr, tc)
	if err != nil {
		return "", lay, err
	}
	var cols, part []string
	for i, g := range qr.GroupBy {
		cols = append(cols, sqlquery.QuoteIdent(g)+fmt.Sprintf(" AS tsq_g%d", i))
		part = append(part, sqlquery.QuoteIdent(g))
	}
	cols = append(cols, sqlquery.QuoteIdent(tc)+" AS tsq_time")
	for i, f := range qr.Fields {
		cols = append(cols, q.d.Double(sqlquery.QuoteIdent(f))+fmt.Sprintf(" AS tsq_v%d", i))
	}
	stmt = "SELECT " + strings.Join(cols, ", ") + " FROM " + sqlquery.QuoteIdent(qr.Table) + " WHERE " + where + " LATEST ON " + sqlquery.QuoteIdent(tc) + " PARTITION BY " + strings.Join(part, ", ")
	if qr.Staged() {
		return q.d.Stages(qr, stmt)
	}
	return stmt, lay, nil
}

// appliedAt is the target's acknowledged bytes read before the last poll
// that found table's WAL applied (-1: none).
func (t *Target) appliedAt(table string) int64 {
	t.appliedMu.Lock()
	defer t.appliedMu.Unlock()
	if v, ok := t.appliedUpTo[table]; ok {
		return v
	}
	return -1
}

// setApplied records acked (read before a poll that found table applied);
// -1 (TCP) or a nil t records nothing.
func (t *Target) setApplied(table string, acked int64) {
	if t == nil || acked < 0 {
		return
	}
	t.appliedMu.Lock()
	defer t.appliedMu.Unlock()
	if t.appliedUpTo == nil {
		t.appliedUpTo = map[string]int64{}
	}
	t.appliedUpTo[table] = max(t.appliedUpTo[table], acked)
}

func (q *loadQuerier) Close() error {
	if q.pg != nil {
		return q.pg.close()
	}
	return nil
}
