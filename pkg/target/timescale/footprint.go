package timescale

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/schema"
)

// Footprint (load.Target.Footprint) is the size of the named tables with their
// indexes and TOAST: hypertable_size() of hypertables (every chunk,
// compressed ones included), pg_total_relation_size() of plain tables.
func (t *Target) Footprint(ctx context.Context, tables []string) (load.Size, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	sz := load.Size{Method: sizeMethod(t.hypertable)}
	err := t.withAdminLocked(ctx, func(conn *pgx.Conn) error {
		var err error
		sz.Bytes, err = tableSize(ctx, conn, tables, t.hypertable)
		return err
	})
	return sz, err
}

func sizeMethod(hypertable bool) string {
	if hypertable {
		return "TimescaleDB hypertable_size() (pg_total_relation_size() of a plain table)"
	}
	return "PostgreSQL pg_total_relation_size()"
}

// tableSize sums the sizes of names (see Footprint).
func tableSize(ctx context.Context, conn *pgx.Conn, names []string, hypertable bool) (int64, error) {
	var total int64
	q := "SELECT pg_total_relation_size($1::regclass)"
	if hypertable {
		// hypertable_size() is NULL for a plain table (one that existed
		// before the load, made without TimescaleDB): its own size is the
		// footprint then, where 0 read as rows not yet in the files.
		q = "SELECT COALESCE(hypertable_size($1::regclass), pg_total_relation_size($1::regclass))"
	}
	for _, name := range names {
		var n *int64
		if err := conn.QueryRow(ctx, q, schema.QuoteIdent(name)).Scan(&n); err != nil {
			return 0, fmt.Errorf("timescale: size of %q: %w", name, &writeError{msg: describe(err, nil), err: err})
		}
		if n != nil {
			total += *n
		}
	}
	return total, nil
}

// ServerAddr (load.Target.ServerAddr) is the server's host:port (for a Unix
// socket, localhost and the port: the server on this machine).
func (t *Target) ServerAddr() string {
	cc, err := t.cfg.connConfig(t.cfg.DBName)
	if err != nil {
		return ""
	}
	host := cc.Host
	if strings.HasPrefix(host, "/") {
		host = "localhost"
	}
	return net.JoinHostPort(host, strconv.Itoa(int(cc.Port)))
}
