package sqlembed

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"strings"

	"github.com/tsload/tsload/pkg/schema"
)

// InsertRows is a RowWriter of prepared INSERTs: in the connection's open
// transaction, or each row its own transaction without one. The statements
// run on the driver's connection (sql.Conn.Raw), not through database/sql:
// a profile of a SQLite load showed a third of its time in database/sql's
// per-statement work (argument conversion, locking) and in the goroutine
// go-sqlite3 starts per statement to watch a cancellable context. A batch
// is checked for cancellation between statements instead.
type InsertRows struct {
	conn  *sql.Conn
	query func(rows int) string
	cols  int
	many  int         // rows per statement of multi (1: one statement per row)
	one   driver.Stmt // INSERT of one row
	multi driver.Stmt // INSERT of many rows (nil when many is 1)
	args  []driver.NamedValue
}

// rowsPerInsert is how many rows one INSERT carries (batched mode): fewer
// statements to step, within SQLite's 32,766 parameters at 500 columns.
const rowsPerInsert = 64

// NewInsertRows returns the INSERT writer of tb's rows on conn; perRow
// writes one row per statement (a commit each without a transaction),
// otherwise up to rowsPerInsert rows per statement.
func NewInsertRows(ctx context.Context, conn *sql.Conn, tb *schema.Table, perRow bool) (*InsertRows, error) {
	cols := len(tb.Columns)
	if cols == 0 {
		return nil, errors.New("a table without columns")
	}
	head := "INSERT INTO " + schema.QuoteIdent(tb.Name) + " VALUES "
	tuple := "(" + strings.TrimSuffix(strings.Repeat("?, ", cols), ", ") + ")"
	r := &InsertRows{conn: conn, cols: cols, many: 1, query: func(rows int) string {
		return head + strings.TrimSuffix(strings.Repeat(tuple+", ", rows), ", ")
	}}
	if !perRow {
		r.many = max(1, min(rowsPerInsert, 32766/cols))
	}
	err := conn.Raw(func(dc any) error {
		c, ok := dc.(driver.Conn)
		if !ok {
			return errors.New("not a database/sql driver connection")
		}
		var err error
		if r.one, err = prepare(ctx, c, r.query(1)); err != nil || r.many == 1 {
			return err
		}
		r.multi, err = prepare(ctx, c, r.query(r.many))
		return err
	})
	if err != nil {
		r.Close()
		return nil, err
	}
	r.args = make([]driver.NamedValue, r.many*cols)
	for i := range r.args {
		r.args[i].Ordinal = i + 1
	}
	return r, nil
}

func prepare(ctx context.Context, c driver.Conn, query string) (driver.Stmt, error) {
	if pc, ok := c.(driver.ConnPrepareContext); ok {
		return pc.PrepareContext(ctx, query)
	}
	return c.Prepare(query)
}

// Append executes the INSERTs of rows.
func (r *InsertRows) Append(ctx context.Context, rows [][]driver.Value) error {
	return r.conn.Raw(func(any) error {
		for len(rows) > 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			st, n := r.one, 1
			if r.multi != nil && len(rows) >= r.many {
				st, n = r.multi, r.many
			}
			args := r.args[:n*r.cols]
			for i, row := range rows[:n] {
				if len(row) != r.cols {
					return errors.New("a row of the wrong width")
				}
				for j, v := range row {
					if f, ok := v.(float32); ok { // not a driver.Value: database/sql would widen it
						v = float64(f)
					}
					args[i*r.cols+j].Value = v
				}
			}
			if err := exec(st, args); err != nil {
				return err
			}
			rows = rows[n:]
		}
		return nil
	})
}

// exec runs st without a context: one that can be cancelled costs
// go-sqlite3 a goroutine per statement.
func exec(st driver.Stmt, args []driver.NamedValue) error {
	if ec, ok := st.(driver.StmtExecContext); ok {
		_, err := ec.ExecContext(context.Background(), args)
		return err
	}
	vals := make([]driver.Value, len(args))
	for i, a := range args {
		vals[i] = a.Value
	}
	_, err := st.Exec(vals) //nolint:staticcheck // drivers without StmtExecContext
	return err
}

// Flush does nothing: every row was executed.
func (r *InsertRows) Flush(context.Context) error { return nil }

// Close closes the statements.
func (r *InsertRows) Close() error {
	return r.conn.Raw(func(any) error {
		var err error
		for _, st := range []driver.Stmt{r.one, r.multi} {
			if st != nil {
				err = errors.Join(err, st.Close())
			}
		}
		r.one, r.multi = nil, nil
		return err
	})
}
