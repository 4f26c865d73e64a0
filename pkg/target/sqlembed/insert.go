package sqlembed

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"strings"

	"github.com/tsload/tsload/pkg/schema"
)

// InsertRows is a RowWriter of one prepared INSERT executed per row: in
// the connection's open transaction, or each row its own transaction
// without one.
type InsertRows struct {
	stmt *sql.Stmt
	args []any
}

// NewInsertRows prepares the INSERT of tb's rows on conn.
func NewInsertRows(ctx context.Context, conn *sql.Conn, tb *schema.Table) (*InsertRows, error) {
	var b strings.Builder
	b.WriteString("INSERT INTO ")
	b.WriteString(schema.QuoteIdent(tb.Name))
	b.WriteString(" VALUES (")
	for i := range tb.Columns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('?')
	}
	b.WriteByte(')')
	st, err := conn.PrepareContext(ctx, b.String())
	if err != nil {
		return nil, err
	}
	return &InsertRows{stmt: st, args: make([]any, len(tb.Columns))}, nil
}

// Append executes the INSERT with row.
func (r *InsertRows) Append(ctx context.Context, row []driver.Value) error {
	for i, v := range row {
		r.args[i] = v
	}
	_, err := r.stmt.ExecContext(ctx, r.args...)
	return err
}

// Flush does nothing: every row was executed.
func (r *InsertRows) Flush(context.Context) error { return nil }

// Close closes the statement.
func (r *InsertRows) Close() error { return r.stmt.Close() }
