package questdb

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// querier runs SQL on QuestDB: over PG wire (pgx) or HTTP /exec. Values come
// back as text.
type querier interface {
	query(ctx context.Context, sql string) ([][]string, error)
	close() error
}

// pgQuerier talks PG wire. It uses QueryExecModeExec (extended protocol,
// unnamed statement): pgx's simple protocol refuses servers that do not
// report standard_conforming_strings=on, as QuestDB does not.
type pgQuerier struct {
	conn *pgx.Conn
	lost bool // a transient error: the connection is not to be used again
}

// fail returns err marked by transient, noting a lost connection.
func (q *pgQuerier) fail(ctx context.Context, err error) error {
	err = transient(ctx, err)
	if load.IsRetryable(err) {
		q.lost = true
	}
	return err
}

func newPGQuerier(ctx context.Context, dsn string) (*pgQuerier, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("questdb: PG-wire URL: %w", err)
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeExec
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, transient(ctx, fmt.Errorf("questdb: connect PG wire %s:%d: %w", cfg.Host, cfg.Port, err))
	}
	return &pgQuerier{conn: conn}, nil
}

func (q *pgQuerier) query(ctx context.Context, sql string) ([][]string, error) {
	rows, err := q.conn.Query(ctx, sql)
	if err != nil {
		return nil, q.fail(ctx, fmt.Errorf("questdb: %s: %w", sql, err))
	}
	defer rows.Close()
	var out [][]string
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return nil, q.fail(ctx, fmt.Errorf("questdb: %s: %w", sql, err))
		}
		row := make([]string, len(vals))
		for i, v := range vals {
			switch v := v.(type) {
			case nil:
			case string:
				row[i] = v
			case []byte:
				row[i] = string(v)
			default:
				row[i] = fmt.Sprint(v)
			}
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		return nil, q.fail(ctx, fmt.Errorf("questdb: %s: %w", sql, err))
	}
	return out, nil
}

func (q *pgQuerier) close() error { return q.conn.Close(context.Background()) }

// broken reports whether the connection is lost (the server restarted or
// cut it): the Target then opens a new one.
func (q *pgQuerier) broken() bool { return q.lost || q.conn.IsClosed() }

// transient marks err retryable when it is not the server's answer (a
// *pgconn.PgError: a bad query stays bad) and ctx is live: a connection
// lost or refused, as while QuestDB restarts. A pooled connection that went
// stale is then replaced (Target.querier).
func transient(ctx context.Context, err error) error {
	var pgErr *pgconn.PgError
	if ctx.Err() != nil || errors.As(err, &pgErr) {
		return err
	}
	return load.Retryable(err)
}

// execQuerier uses GET /exec?query=... on the HTTP port. A Poster serves one
// goroutine, so each query takes its own.
type execQuerier struct{ c *httpwrite.Client }

func (q *execQuerier) query(ctx context.Context, sql string) ([][]string, error) {
	resp, err := q.c.NewPoster(0).Post(ctx, httpwrite.Request{Method: http.MethodGet, Path: "/exec", Query: "query=" + url.QueryEscape(sql), NoCompress: true})
	if err != nil {
		return nil, fmt.Errorf("questdb: /exec %s: %w", sql, err)
	}
	body, status := resp.Body, resp.Status
	var doc struct {
		Error   string              `json:"error"`
		Dataset [][]json.RawMessage `json:"dataset"`
		DDL     string              `json:"ddl"`
		Columns []json.RawMessage   `json:"columns"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("questdb: /exec %s: HTTP %d: %.200q", sql, status, body)
	}
	if doc.Error != "" || status != http.StatusOK {
		return nil, fmt.Errorf("questdb: %s: %s (HTTP %d)", sql, doc.Error, status)
	}
	out := make([][]string, len(doc.Dataset))
	for i, r := range doc.Dataset {
		row := make([]string, len(r))
		for j, v := range r {
			t, err := jsonText(v)
			if err != nil {
				return nil, fmt.Errorf("questdb: /exec %s: row %d, column %d: %w", sql, i+1, j+1, err)
			}
			row[j] = t
		}
		out[i] = row
	}
	return out, nil
}

// jsonText is a JSON value of /exec's dataset as text: "" for null, a
// string's content, a number or boolean as written.
func jsonText(v json.RawMessage) (string, error) {
	switch {
	case string(v) == "null":
		return "", nil
	case len(v) >= 2 && v[0] == '"' && bytes.IndexByte(v, '\\') < 0:
		return string(v[1 : len(v)-1]), nil
	case len(v) > 0 && v[0] == '"':
		var s string
		err := json.Unmarshal(v, &s)
		return s, err
	}
	return string(v), nil
}

func (q *execQuerier) close() error { return nil }

// tlsConfig returns the client TLS configuration.
func tlsConfig(verify bool) *tls.Config {
	return &tls.Config{InsecureSkipVerify: !verify} //nolint:gosec // tls_verify=unsafe_off asked for it
}

func parseBool(s string) bool { return s == "t" || s == "true" || s == "TRUE" }
