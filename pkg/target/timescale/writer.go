package timescale

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tsload/tsload/pkg/format"
	csvformat "github.com/tsload/tsload/pkg/format/csv"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/redact"
	"github.com/tsload/tsload/pkg/retry"
	"github.com/tsload/tsload/pkg/schema"
)

// maxParams is the PostgreSQL protocol's limit on a statement's parameters.
const maxParams = 65535

// Writer writes batches over one connection; it reconnects on the Write
// after a connection error.
type Writer struct {
	t      *Target
	worker int
	conn   *pgx.Conn

	ilp     ilpEncoder
	byTable map[*schema.Table]*tableInfo

	fields   [][]byte
	scratch  []byte
	params   [][]byte
	oids     []uint32
	multiSQL map[multiKey]string
	prepared map[*tableInfo]string // per connection

	// The transaction of the batch being written: its id (txid_current),
	// the backend's pid, the rows its statements acknowledged, and whether
	// COMMIT was sent.
	xid        int64
	pid        uint32
	pending    int
	commitSent bool

	// With synchronous_commit=off (async.go): the acknowledged batches
	// whose commit may not be flushed (guarded by Target.async.mu), spare
	// buffers for their copies, and whether this batch commits
	// synchronously.
	async      bool
	held       []*heldBatch
	spare      [][]byte
	syncCommit bool
	connected  bool   // a connection was made before: the next one is a reconnect
	modeKnown  bool   // async is this connection's
	started    string // the server's pg_postmaster_start_time

	// The batch being sent and the runner's ticket hook (resume.go).
	cur      *load.Batch
	onTicket func(*load.Batch, string) error
	// onDurable hears of each held batch a synchronous commit made
	// durable (load.Hooks.OnDurable).
	onDurable func(*load.Batch)
	failed    bool // the last Write failed (drain then tries briefly)
}

type multiKey struct {
	ti   *tableInfo
	rows int
}

var (
	formatText   = []int16{0}
	formatBinary = []int16{1}
)

// NewWriter opens worker's connection to the target database.
func (t *Target) NewWriter(ctx context.Context, worker int) (load.Writer, error) {
	w := &Writer{t: t, worker: worker, byTable: map[*schema.Table]*tableInfo{}, multiSQL: map[multiKey]string{}, onTicket: t.onTicket, onDurable: t.onDurable}
	if err := w.ensureConn(ctx); err != nil {
		return nil, w.wrap(err, fmt.Sprintf("timescale: worker %d: connecting to database %q: %s", worker, t.cfg.DBName, describe(err, nil)))
	}
	t.async.mu.Lock()
	t.async.writers = append(t.async.writers, w)
	t.async.mu.Unlock()
	return w, nil
}

// PID is the server process id of the writer's connection (0 when closed).
func (w *Writer) PID() uint32 {
	if w.conn == nil || w.conn.IsClosed() {
		return 0
	}
	return w.conn.PgConn().PID()
}

func (w *Writer) ensureConn(ctx context.Context) error {
	if w.conn != nil && !w.conn.IsClosed() {
		return nil
	}
	w.conn = nil
	conn, err := w.t.connect(ctx, w.t.cfg.DBName)
	if err != nil {
		return err
	}
	if w.t.cfg.DirectCompress {
		if _, err := conn.Exec(ctx, "SET "+directCompressGUC+" = on"); err != nil {
			conn.Close(context.Background())
			return err
		}
	}
	if w.connected {
		// Before this load writes anything more: which acknowledged
		// batches did the failure lose (a crash with synchronous_commit=off)?
		if err := w.t.recheck(ctx, conn); err != nil {
			conn.Close(context.Background())
			return err
		}
	}
	w.modeKnown = false // asked by the first Write: NewWriter is not retried
	w.connected = true
	w.conn = conn
	w.prepared = map[*tableInfo]string{}
	return nil
}

// Close makes the batches it acknowledged durable (see drain), then closes
// the connection.
func (w *Writer) Close() error {
	derr := w.drain()
	if w.conn == nil {
		return derr
	}
	err := w.conn.Close(context.Background())
	w.conn = nil
	return errors.Join(derr, err)
}

// writeError keeps the underlying error for errors.Is/As under a message
// that names the batch.
type writeError struct {
	msg string
	err error
}

func (e *writeError) Error() string { return e.msg }
func (e *writeError) Unwrap() error { return e.err }

// wrap makes the error a Writer returns: msg (redacted), retryable when the
// server or the network says so.
func (w *Writer) wrap(err error, msg string) error {
	e := &writeError{msg: redact.String(msg, w.t.password), err: err}
	if isRetryable(err) {
		return load.Retryable(e)
	}
	return e
}

// Write sends b atomically and returns the rows the server acknowledged.
func (w *Writer) Write(ctx context.Context, b *load.Batch) (ack load.Ack, err error) {
	defer func() { w.failed = err != nil }()
	method, err := w.t.cfg.Method.For(b.Format)
	if err != nil {
		return load.Ack{}, fmt.Errorf("timescale: %w", err)
	}
	if b.Format != format.ILP && b.Table == nil {
		return load.Ack{}, fmt.Errorf("timescale: %s batch without a table", b.Format)
	}
	parent := ctx
	if d := w.t.cfg.RequestTimeout; d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	if err := w.ensureConn(ctx); err != nil {
		if timedOut(ctx, parent) {
			err = load.Retryable(fmt.Errorf("no connection within the request timeout (%s): %w", w.t.cfg.RequestTimeout, err))
		}
		return load.Ack{}, w.wrap(err, fmt.Sprintf("timescale: connecting to database %q: %s", w.t.cfg.DBName, describe(err, nil)))
	}
	if !w.modeKnown {
		if err := w.noteCommitMode(ctx, w.conn); err != nil {
			w.conn.Close(context.Background()) // the next attempt asks on a new connection
			w.conn = nil
			if timedOut(ctx, parent) {
				err = load.Retryable(fmt.Errorf("no answer within --request-timeout %s: %w", w.t.cfg.RequestTimeout, err))
			}
			return load.Ack{}, w.wrap(err, "timescale: reading synchronous_commit: "+describe(err, nil))
		}
		w.modeKnown = true
	}
	if err := w.resendLost(ctx, parent); err != nil {
		return load.Ack{}, err
	}
	hold := w.async && !(w.t.cfg.Commit == CommitRow && (method == MethodInsert || method == MethodInsertMulti))
	w.syncCommit = hold && w.syncDue()
	ack, err = w.send(ctx, parent, b, method)
	if err == nil && hold && ack.Rows == b.Rows {
		w.holdAcked(b, w.xid, w.syncCommit)
		ack.Volatile = !w.syncCommit
	}
	w.syncCommit = false
	return ack, err
}

// send writes b in its own transaction on the open connection; a COMMIT
// whose answer was lost is settled by resolve.
func (w *Writer) send(ctx, parent context.Context, b *load.Batch, method Method) (load.Ack, error) {
	w.xid, w.pid, w.pending, w.commitSent = 0, 0, 0, false
	w.cur = b
	rows, committed, err := w.write(ctx, b, method)
	w.cur = nil
	if err != nil && w.commitSent && lostAnswer(err) {
		// COMMIT was sent and its answer lost: the batch may be in. Ask
		// the server, after making sure the old backend cannot commit later.
		if w.conn != nil {
			w.conn.Close(context.Background())
			w.conn = nil
		}
		rctx := parent
		if parent.Err() != nil {
			// The run is stopping: still find out (briefly), so that what
			// the results count is what the database holds.
			var cancel context.CancelFunc
			rctx, cancel = context.WithTimeout(context.WithoutCancel(parent), stopResolveTime)
			defer cancel()
		}
		in, rerr := w.resolve(rctx)
		if rerr == nil {
			w.t.lostCommits[map[bool]int{false: 0, true: 1}[in]].Add(1)
		}
		switch {
		case rerr != nil:
			return load.Ack{}, &writeError{msg: redact.String(fmt.Sprintf("timescale: COMMIT sent but its answer was lost (%s), and whether transaction %d committed could not be determined: %s; not retried: a re-send could duplicate the batch",
				w.message(b, err), w.xid, describe(rerr, nil))), err: err}
		case in && w.pending == b.Rows:
			return load.Ack{Rows: w.pending}, nil
		case in:
			return load.Ack{Rows: w.pending}, fmt.Errorf("timescale: the server acknowledged %d rows, the batch has %d", w.pending, b.Rows)
		}
		return load.Ack{}, load.Retryable(&writeError{msg: redact.String(fmt.Sprintf("timescale: COMMIT's answer was lost (%s); the server says transaction %d did not commit: re-sending",
			w.message(b, err), w.xid)), err: err})
	}
	if err != nil && timedOut(ctx, parent) {
		if w.conn != nil {
			w.conn.Close(context.Background())
			w.conn = nil
		}
		if committed == 0 {
			return load.Ack{}, load.Retryable(&writeError{msg: redact.String(fmt.Sprintf("timescale: no answer within the request timeout (%s): %s", w.t.cfg.RequestTimeout, w.message(b, err))), err: err})
		}
	}
	if err != nil {
		w.afterError()
		if committed > 0 {
			// --commit row: some rows are in; a re-send would duplicate them.
			return load.Ack{}, &writeError{msg: redact.String(fmt.Sprintf("timescale: %d of %d rows were committed (a commit per row) before: %s; not retried: a re-send would duplicate them",
				committed, b.Rows, w.message(b, err))), err: err}
		}
		return load.Ack{}, w.wrap(err, "timescale: "+w.message(b, err))
	}
	if rows != b.Rows {
		return load.Ack{Rows: rows}, fmt.Errorf("timescale: the server acknowledged %d rows, the batch has %d", rows, b.Rows)
	}
	return load.Ack{Rows: rows}, nil
}

// lostAnswer reports whether err leaves a COMMIT's outcome unknown: anything
// but an ERROR from the server (which means the transaction rolled back),
// such as a lost connection, a timeout, or a FATAL (terminated backend).
func lostAnswer(err error) bool {
	var pgErr *pgconn.PgError
	return !errors.As(err, &pgErr) || pgErr.Severity != "ERROR"
}

// resolveTime bounds how long resolve tries to learn a COMMIT's outcome;
// stopResolveTime when the run is stopping (the writer's context ended).
const (
	resolveTime     = 60 * time.Second
	stopResolveTime = 5 * time.Second
)

// resolve decides whether the batch's transaction (w.xid, begun on backend
// w.pid) committed after the answer to its COMMIT was lost: over a new
// connection it terminates the old backend while that still runs the
// transaction (so a COMMIT still in flight cannot land later), waits until
// it is gone, then asks txid_status. Retryable errors are retried for up
// to resolveTime.
func (w *Writer) resolve(ctx context.Context) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, resolveTime)
	defer cancel()
	var in bool
	p := retry.Policy{Retryable: isRetryable}
	err := p.Do(ctx, func(ctx context.Context) error {
		var err error
		in, err = w.resolveOnce(ctx)
		return err
	})
	var g *retry.GiveUpError
	if errors.As(err, &g) {
		return false, g.Err
	}
	return in, err
}

func (w *Writer) resolveOnce(ctx context.Context) (bool, error) {
	conn, err := w.t.connect(ctx, w.t.cfg.DBName)
	if err != nil {
		return false, err
	}
	defer conn.Close(context.Background())
	for {
		var n int
		err := conn.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
			WHERE pid = $1 AND backend_xid = (($2::bigint % 4294967296)::text)::xid`, int32(w.pid), w.xid).Scan(&n)
		if err != nil {
			return false, err
		}
		if n == 0 {
			break
		}
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	if w.started != "" {
		// After a crash: an id lost with its transaction (and perhaps
		// handed out again) is not committed, whatever txid_status says.
		rc, err := newRecovery(ctx, conn)
		if err != nil {
			return false, err
		}
		if rc.started != w.started {
			return rc.committed(ctx, conn, w.xid, w.started)
		}
	}
	var status *string
	if err := conn.QueryRow(ctx, "SELECT txid_status($1::bigint)", w.xid).Scan(&status); err != nil {
		return false, err
	}
	switch {
	case status == nil:
		return false, fmt.Errorf("txid_status(%d) is NULL", w.xid)
	case *status == "committed":
		return true, nil
	case *status == "aborted":
		return false, nil
	}
	return false, fmt.Errorf("transaction %d is %s after its backend ended", w.xid, *status)
}

// timedOut reports whether ctx, derived from parent, hit its own deadline
// (the request timeout) while parent is still live.
func timedOut(ctx, parent context.Context) bool {
	return parent.Err() == nil && errors.Is(ctx.Err(), context.DeadlineExceeded)
}

// message describes err, mapping a COPY context's "line N" to the input.
func (w *Writer) message(b *load.Batch, err error) string {
	var le *lineError
	if errors.As(err, &le) {
		return le.where(b) + ": " + le.Error()
	}
	var re *rowError
	if errors.As(err, &re) {
		row := re.row
		// A multi-row INSERT's bad value is named by its parameter number.
		var pgErr *pgconn.PgError
		if re.cols > 0 && errors.As(re.err, &pgErr) {
			if n, ok := paramNumber(pgErr.Where); ok {
				row += (n - 1) / int64(re.cols)
			}
		}
		return fmt.Sprintf("input record %d: %s", b.FirstRecord+row, describe(re.err, nil))
	}
	var mapLine func(int64) string
	switch b.Format {
	case format.PGCopy:
		mapLine = func(n int64) string { return fmt.Sprintf("input record %d", b.FirstRecord+n-1) }
	case format.CSV:
		mapLine = func(n int64) string { return fmt.Sprintf("input line %d", b.FirstLine+n-1) }
	}
	return describe(err, mapLine)
}

// afterError leaves the connection usable for the next batch: a lost
// connection is dropped (the next Write reconnects), an open transaction is
// rolled back.
func (w *Writer) afterError() {
	if w.conn == nil {
		return
	}
	if w.conn.IsClosed() {
		w.conn = nil
		return
	}
	if w.conn.PgConn().TxStatus() != 'I' {
		if err := w.conn.PgConn().Exec(context.Background(), "ROLLBACK").Close(); err != nil {
			w.conn.Close(context.Background())
			w.conn = nil
		}
	}
}

// rowError is an insert that failed at row (0-based within the batch).
type rowError struct {
	row  int64 // first row of the failed statement
	cols int   // columns per row of a multi-row statement (0: one row)
	err  error
}

// paramNumber extracts N from a context "... parameter $N = ...".
func paramNumber(where string) (int64, bool) {
	i := strings.Index(where, "parameter $")
	if i < 0 {
		return 0, false
	}
	s := where[i+len("parameter $"):]
	j := 0
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	n, err := strconv.ParseInt(s[:j], 10, 64)
	return n, err == nil && n > 0
}

func (e *rowError) Error() string { return e.err.Error() }
func (e *rowError) Unwrap() error { return e.err }

// info returns the COPY/INSERT statements of a csv or pgcopy batch's table,
// creating the table first when Prepare did not (a table the runner learnt
// of only from the input).
func (w *Writer) info(ctx context.Context, t *schema.Table) (*tableInfo, error) {
	if ti := w.byTable[t]; ti != nil {
		return ti, nil
	}
	if w.t.table(t.Name) == nil {
		if _, err := w.t.ensureTable(ctx, w.conn, t, false); err != nil {
			return nil, err
		}
	}
	if len(w.byTable) >= 1024 {
		clear(w.byTable) // bound the cache if the runner makes a Table per batch
	}
	ti := newTableInfo(t, false)
	w.byTable[t] = ti
	return ti, nil
}

// write returns the rows acknowledged and, on error, the rows already
// committed (only --commit row commits before the end of a batch).
func (w *Writer) write(ctx context.Context, b *load.Batch, method Method) (rows, committed int, err error) {
	pc := w.conn.PgConn()
	switch b.Format {
	case format.PGCopy:
		ti, err := w.info(ctx, b.Table)
		if err != nil {
			return 0, 0, err
		}
		if method == MethodCopyBinary {
			return w.copyTx(ctx, func() (int, error) { return w.copyBinary(ctx, ti, b.Data) })
		}
		return w.insert(ctx, method, []*tableInfo{ti}, []rowSource{&tupleSource{data: b.Data, cols: ti.t.Columns}}, formatBinary)
	case format.CSV:
		ti, err := w.info(ctx, b.Table)
		if err != nil {
			return 0, 0, err
		}
		if method == MethodCopyCSV {
			return w.copyTx(ctx, func() (int, error) {
				stream := newCopyStream(nil, b.Data, nil)
				tag, err := pc.CopyFrom(ctx, stream, ti.copyCSV)
				stream.close()
				return int(tag.RowsAffected()), err
			})
		}
		if cap(w.scratch) < len(b.Data) {
			w.scratch = make([]byte, 0, len(b.Data))
		}
		return w.insert(ctx, method, []*tableInfo{ti}, []rowSource{&csvSource{data: b.Data, cols: len(ti.t.Columns), scratch: w.scratch[:0]}}, formatText)
	case format.ILP:
		if err := w.ilp.encode(ctx, b, writerResolver{t: w.t, conn: w.conn}); err != nil {
			return 0, 0, err
		}
		order := w.ilp.order
		if method == MethodCopyBinary {
			return w.copyTx(ctx, func() (int, error) {
				for _, e := range order {
					n, err := w.copyBinary(ctx, e.ti, e.buf)
					if err != nil {
						return 0, err
					}
					if n != e.rows {
						return 0, fmt.Errorf("COPY into %q acknowledged %d rows, sent %d", e.ti.t.Name, n, e.rows)
					}
					rows += n
				}
				return rows, nil
			})
		}
		tis := make([]*tableInfo, len(order))
		srcs := make([]rowSource, len(order))
		for i, e := range order {
			tis[i] = e.ti
			srcs[i] = &tupleSource{data: e.buf, cols: e.ti.t.Columns}
		}
		return w.insert(ctx, method, tis, srcs, formatBinary)
	}
	return 0, 0, fmt.Errorf("unsupported format %s", b.Format)
}

func execSimple(ctx context.Context, pc *pgconn.PgConn, sql string) error {
	_, err := pc.Exec(ctx, sql).ReadAll()
	return err
}

func (w *Writer) copyBinary(ctx context.Context, ti *tableInfo, tuples []byte) (int, error) {
	stream := newCopyStream(copyHeader, tuples, copyTrailer)
	tag, err := w.conn.PgConn().CopyFrom(ctx, stream, ti.copyBin)
	stream.close()
	return int(tag.RowsAffected()), err
}

// copyTx runs the COPY statements of fn in the batch's transaction.
func (w *Writer) copyTx(ctx context.Context, fn func() (int, error)) (rows, committed int, err error) {
	if err := w.begin(ctx); err != nil {
		return 0, 0, err
	}
	n, err := fn()
	if err != nil {
		return 0, 0, err
	}
	w.pending = n
	return n, 0, w.commit(ctx)
}

// begin starts the batch's transaction and notes its id and the backend's
// pid, so that a COMMIT whose answer is lost can be resolved (see resolve).
func (w *Writer) begin(ctx context.Context) error {
	q := "BEGIN; SELECT txid_current()"
	if w.syncCommit {
		// Flushed at COMMIT, with every commit acknowledged before it.
		q = "BEGIN; SET LOCAL synchronous_commit TO on; SELECT txid_current()"
	}
	res, err := w.conn.PgConn().Exec(ctx, q).ReadAll()
	if err != nil {
		return err
	}
	last := res[len(res)-1:]
	if len(res) < 2 || len(last[0].Rows) != 1 || len(last[0].Rows[0]) != 1 {
		return errors.New(q + ": unexpected answer")
	}
	xid, err := strconv.ParseInt(string(last[0].Rows[0][0]), 10, 64)
	if err != nil {
		return fmt.Errorf("txid_current(): %w", err)
	}
	w.xid = xid
	w.pid = w.conn.PgConn().PID()
	if w.onTicket != nil && w.cur != nil {
		// Recorded before COMMIT: a loader killed from here on leaves the
		// batch settleable by its transaction.
		return w.onTicket(w.cur, w.ticket())
	}
	return nil
}

// commit commits the batch's transaction. From here on, a lost answer
// leaves the outcome unknown until resolve decides it.
func (w *Writer) commit(ctx context.Context) error {
	w.commitSent = true
	return execSimple(ctx, w.conn.PgConn(), "COMMIT")
}

// rowSource yields the rows of one table as parameter values.
type rowSource interface {
	// next fills fields with the next row; false at the end.
	next(fields [][]byte) (bool, error)
}

// tupleSource walks COPY binary tuples (binary parameters).
type tupleSource struct {
	data []byte
	off  int
	cols []schema.Column
}

func (s *tupleSource) next(fields [][]byte) (bool, error) {
	if s.off >= len(s.data) {
		return false, nil
	}
	next, err := nextTuple(s.data, s.off, s.cols, fields)
	if err != nil {
		return false, err
	}
	s.off = next
	return true, nil
}

// csvSource walks CSV records (text parameters).
type csvSource struct {
	data    []byte
	off     int
	cols    int
	scratch []byte
}

func (s *csvSource) next(fields [][]byte) (bool, error) {
	if s.off >= len(s.data) {
		return false, nil
	}
	next, _, err := csvformat.ParseRecord(s.data, s.off, fields, &s.scratch)
	if err != nil {
		return false, err
	}
	s.off = next
	return true, nil
}

// insert sends the rows of srcs (one per table) with INSERT statements: one
// row per statement (insert) or as many as the parameter limit allows
// (insert-multi); in one transaction with --commit batch.
func (w *Writer) insert(ctx context.Context, method Method, tis []*tableInfo, srcs []rowSource, format []int16) (rows, committed int, err error) {
	pc := w.conn.PgConn()
	perRow := w.t.cfg.Commit == CommitRow
	if !perRow {
		if err := w.begin(ctx); err != nil {
			return 0, 0, err
		}
	}
	var row int64 // rows read so far in the batch
	for i, ti := range tis {
		n := len(ti.t.Columns)
		if cap(w.fields) < n {
			w.fields = make([][]byte, n)
		}
		fields := w.fields[:n]
		src := srcs[i]
		if method == MethodInsert {
			name, err := w.prepare(ctx, ti)
			if err != nil {
				return rows, committedIf(perRow, rows), err
			}
			for {
				ok, err := src.next(fields)
				if err != nil {
					return rows, committedIf(perRow, rows), &rowError{row: row, err: err}
				}
				if !ok {
					break
				}
				tag, err := pc.ExecPrepared(ctx, name, fields, format, nil).Close()
				if err != nil {
					return rows, committedIf(perRow, rows), &rowError{row: row, err: err}
				}
				rows += int(tag.RowsAffected())
				row++
			}
			continue
		}
		per := maxParams / n
		for {
			w.params = w.params[:0]
			k := 0
			first := row
			for k < per {
				ok, err := src.next(fields)
				if err != nil {
					return rows, committedIf(perRow, rows), &rowError{row: row, err: err}
				}
				if !ok {
					break
				}
				w.params = append(w.params, fields...)
				k++
				row++
			}
			if k == 0 {
				break
			}
			tag, err := pc.ExecParams(ctx, w.multiInsertSQL(ti, k), w.params, w.oidsFor(ti, k), format, nil).Close()
			if err != nil {
				return rows, committedIf(perRow, rows), &rowError{row: first, cols: n, err: err}
			}
			rows += int(tag.RowsAffected())
		}
	}
	if !perRow {
		w.pending = rows
		if err := w.commit(ctx); err != nil {
			return 0, 0, err
		}
	}
	return rows, 0, nil
}

func committedIf(perRow bool, rows int) int {
	if perRow {
		return rows
	}
	return 0
}

// oidsFor returns the parameter types of k rows of ti.
func (w *Writer) oidsFor(ti *tableInfo, k int) []uint32 {
	w.oids = w.oids[:0]
	for i := 0; i < k; i++ {
		w.oids = append(w.oids, ti.oids...)
	}
	return w.oids
}

func (w *Writer) multiInsertSQL(ti *tableInfo, k int) string {
	key := multiKey{ti, k}
	if s, ok := w.multiSQL[key]; ok {
		return s
	}
	n := len(ti.t.Columns)
	var b strings.Builder
	b.WriteString(ti.insertPrefix)
	p := 1
	for r := 0; r < k; r++ {
		if r > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('(')
		for c := 0; c < n; c++ {
			if c > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(p))
			p++
		}
		b.WriteByte(')')
	}
	s := b.String()
	if len(w.multiSQL) > 64 {
		clear(w.multiSQL)
	}
	w.multiSQL[key] = s
	return s
}

// prepare prepares the one-row INSERT of ti on this connection.
func (w *Writer) prepare(ctx context.Context, ti *tableInfo) (string, error) {
	if name, ok := w.prepared[ti]; ok {
		return name, nil
	}
	name := "tsload_insert_" + strconv.Itoa(len(w.prepared))
	var b strings.Builder
	b.WriteString(ti.insertPrefix + "(")
	for i := range ti.t.Columns {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("$" + strconv.Itoa(i+1))
	}
	b.WriteByte(')')
	if _, err := w.conn.PgConn().Prepare(ctx, name, b.String(), ti.oids); err != nil {
		return "", err
	}
	w.prepared[ti] = name
	return name, nil
}
