package clickhouse

import (
	"context"
	"fmt"
	"strings"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// backend is one way of reaching ClickHouse: a server over the native protocol (native) or
// the engine inside the loader's process (chDB, chdb.go). The target's catalog, count and
// content queries return every column as a String (toString in the SQL), so that both read
// them alike.
type backend interface {
	exec(ctx context.Context, stmt string) error
	// rows runs stmt, whose columns are all String, and returns its rows.
	rows(ctx context.Context, stmt string) ([][]string, error)
	// insert writes rows (in tb's column order) into tb in one INSERT.
	insert(ctx context.Context, tb *table, rows [][]any) error
	ping(ctx context.Context) error
	close() error
}

// lit is s as a ClickHouse string literal (backslash escapes).
func lit(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// native is a server over the native protocol: a pool of a connection per worker and a few
// for counts and queries.
type native struct{ conn driver.Conn }

func openNative(cfg Config) (*native, error) {
	opt := &ch.Options{
		Addr:             []string{cfg.Addr},
		Auth:             ch.Auth{Username: cfg.User, Password: cfg.Password},
		DialTimeout:      5 * time.Second,
		MaxOpenConns:     max(cfg.Workers, 1) + 4,
		MaxIdleConns:     max(cfg.Workers, 1) + 4,
		ConnMaxLifetime:  time.Hour,
		ReadTimeout:      cfg.RequestTimeout,
		Compression:      &ch.Compression{Method: ch.CompressionLZ4},
		ConnOpenStrategy: ch.ConnOpenInOrder,
	}
	conn, err := ch.Open(opt)
	if err != nil {
		return nil, fmt.Errorf("clickhouse: %s: %w", cfg.Addr, err)
	}
	return &native{conn: conn}, nil
}

func (n *native) exec(ctx context.Context, stmt string) error { return n.conn.Exec(ctx, stmt) }

func (n *native) rows(ctx context.Context, stmt string) ([][]string, error) {
	r, err := n.conn.Query(ctx, stmt)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	cols := len(r.Columns())
	var out [][]string
	for r.Next() {
		row := make([]string, cols)
		ptrs := make([]any, cols)
		for i := range row {
			ptrs[i] = &row[i]
		}
		if err := r.Scan(ptrs...); err != nil {
			return nil, err
		}
		out = append(out, row)
	}
	return out, r.Err()
}

func (n *native) insert(ctx context.Context, tb *table, rows [][]any) error {
	batch, err := n.conn.PrepareBatch(ctx, tb.insert)
	if err != nil {
		return classify(err)
	}
	defer batch.Abort()
	for _, row := range rows {
		if err := batch.Append(row...); err != nil {
			return err // a value the driver cannot convert: fatal
		}
	}
	return classify(batch.Send())
}

func (n *native) ping(ctx context.Context) error { return n.conn.Ping(ctx) }
func (n *native) close() error                   { return n.conn.Close() }
