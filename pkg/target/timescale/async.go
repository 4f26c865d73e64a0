package timescale

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/retry"
)

// Exactness across a server crash with synchronous_commit=off.
//
// With synchronous_commit=off the server answers COMMIT before the commit's
// WAL is flushed: a crash (SIGKILL, power loss) loses the transactions
// acknowledged in the last moments (up to three wal_writer_delay), although
// tsload counted them. So on such a connection a Writer keeps a copy of
// each batch acknowledged since the last commit it knows to be flushed,
// with the batch's transaction id:
//
//   - every asyncWindow-th batch commits with synchronous_commit=on (SET
//     LOCAL): its COMMIT returns once the WAL is flushed up to it, so every
//     commit acknowledged before it is durable and the copies are dropped.
//     At most asyncWindow batches (and about asyncWindowBytes) per worker
//     are held; the cost is one flushed commit per asyncWindow batches.
//   - after any reconnect, before this load writes anything more, the first
//     writer to reconnect asks txid_status for the held batches of every
//     writer of the target (under Target.asyncMu, so no writer of this load
//     can start a transaction that reuses the id of a lost one: ids not
//     flushed before a crash are handed out again after it). A batch whose
//     transaction is not committed is marked lost; its writer re-sends it
//     before its next batch, and at Close.
//
// Ids of transactions lost in a crash are handed out again after it (to
// TimescaleDB's background jobs, say), so txid_status alone could call a
// lost batch committed: when the server restarted since a batch was
// acknowledged (pg_postmaster_start_time), a batch whose id is not below
// the next_xid of the latest checkpoint (pg_control_checkpoint: after a
// crash, the end-of-recovery checkpoint, whose next_xid is above every id
// the recovered WAL holds) is lost whatever txid_status says. Should a
// later checkpoint have passed before the reconnect, or the superuser-only
// pg_control_checkpoint be refused, only txid_status decides: verification
// still counts the rows.

// asyncWindow is how many acknowledged batches a writer holds, at most,
// until a synchronous commit proves them flushed; asyncWindowBytes bounds
// their bytes (large batches commit synchronously sooner).
const (
	asyncWindow      = 8
	asyncWindowBytes = 64 << 20
)

// heldBatch is an acknowledged batch whose commit may not be flushed yet.
type heldBatch struct {
	b       load.Batch // a copy: Data and Tables are the writer's own
	xid     int64
	started string // the server's pg_postmaster_start_time when acknowledged
	lost    bool   // its transaction did not survive: re-send
}

// asyncState is a Target's view of its writers' held batches.
type asyncState struct {
	mu      sync.Mutex // guards every Writer's held and the writers list
	writers []*Writer
	noted   sync.Once
	resent  int64 // batches re-sent after their commit was lost
	checked int64 // txid_status checks made after a reconnect
}

// AsyncResent returns how many acknowledged batches were found lost after
// a reconnect (a server crash with synchronous_commit=off) and re-sent.
func (t *Target) AsyncResent() int64 {
	t.async.mu.Lock()
	defer t.async.mu.Unlock()
	return t.async.resent
}

// noteCommitMode reads the connection's synchronous_commit; with "off" the
// writer holds its acknowledged batches (see above) and the target says so
// once.
func (w *Writer) noteCommitMode(ctx context.Context, conn *pgx.Conn) error {
	var mode string
	if err := conn.QueryRow(ctx, "SELECT current_setting('synchronous_commit'), pg_postmaster_start_time()::text").Scan(&mode, &w.started); err != nil {
		return err
	}
	w.async = mode == "off"
	if w.async && w.t.cfg.Log != nil {
		w.t.async.noted.Do(func() {
			fmt.Fprintf(w.t.cfg.Log, "timescale: the server runs with synchronous_commit=off: a COMMIT is answered before its WAL is flushed, so a server crash loses the last acknowledged transactions; each worker keeps its last %d acknowledged batches, re-sends those a crash lost, and commits every %dth batch synchronously\n",
				asyncWindow, asyncWindow)
		})
	}
	return nil
}

// recheck runs after a reconnect on conn: it marks lost every held batch
// (of every writer) whose transaction did not commit.
func (t *Target) recheck(ctx context.Context, conn *pgx.Conn) error {
	a := &t.async
	a.mu.Lock()
	defer a.mu.Unlock()
	rc, err := newRecovery(ctx, conn)
	if err != nil {
		return err
	}
	for _, w := range a.writers {
		for _, h := range w.held {
			if h.lost {
				continue
			}
			in, err := rc.committed(ctx, conn, h.xid, h.started)
			if err != nil {
				return err
			}
			a.checked++
			h.lost = !in
		}
	}
	return nil
}

// recovery is what a new connection knows of the server's last start: when
// it started, and the next_xid of its latest checkpoint (-1: unknown).
type recovery struct {
	started string
	next    int64
}

func newRecovery(ctx context.Context, conn *pgx.Conn) (recovery, error) {
	rc := recovery{next: -1}
	if err := conn.QueryRow(ctx, "SELECT pg_postmaster_start_time()::text").Scan(&rc.started); err != nil {
		return rc, err
	}
	var nextXid string
	err := conn.QueryRow(ctx, "SELECT (pg_control_checkpoint()).next_xid").Scan(&nextXid)
	var pgErr *pgconn.PgError
	switch {
	case errors.As(err, &pgErr): // not allowed: txid_status alone decides
	case err != nil:
		return rc, err
	default:
		var epoch, xid int64
		if _, err := fmt.Sscanf(nextXid, "%d:%d", &epoch, &xid); err == nil {
			rc.next = epoch<<32 | xid
		}
	}
	return rc, nil
}

// committed reports whether transaction xid, begun on the server that
// started at started, is committed now. A transaction of a server that has
// restarted since, whose id is not below the recovered next_xid, was lost
// (its id may have been handed out again); an id "in the future" (22023)
// was lost before being handed out again.
func (rc recovery) committed(ctx context.Context, conn *pgx.Conn, xid int64, started string) (bool, error) {
	if started != "" && started != rc.started && rc.next >= 0 && xid >= rc.next {
		return false, nil
	}
	var status *string
	err := conn.QueryRow(ctx, "SELECT txid_status($1::bigint)", xid).Scan(&status)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "22023" && strings.Contains(pgErr.Message, "in the future") {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return status != nil && *status == "committed", nil
}

// holdAcked keeps a copy of b, just acknowledged in transaction xid, or,
// when its commit was synchronous, drops the copies it has: they are
// flushed.
func (w *Writer) holdAcked(b *load.Batch, xid int64, synced bool) {
	a := &w.t.async
	a.mu.Lock()
	defer a.mu.Unlock()
	if synced {
		kept := w.held[:0]
		for _, h := range w.held {
			if h.lost {
				kept = append(kept, h)
				continue
			}
			if w.onDurable != nil {
				w.onDurable(&h.b)
			}
			w.spare = append(w.spare, h.b.Data[:0])
		}
		clear(w.held[len(kept):])
		w.held = kept
		return
	}
	h := &heldBatch{b: *b, xid: xid, started: w.started}
	var buf []byte
	if n := len(w.spare); n > 0 {
		buf, w.spare = w.spare[n-1], w.spare[:n-1]
	}
	h.b.Data = append(buf[:0], b.Data...)
	h.b.Tables = append([]load.TableRows(nil), b.Tables...)
	h.b.Hold = nil
	w.held = append(w.held, h)
}

// syncDue reports whether the next batch should commit synchronously.
func (w *Writer) syncDue() bool {
	a := &w.t.async
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, h := range w.held {
		n += len(h.b.Data)
	}
	return len(w.held) >= asyncWindow || n >= asyncWindowBytes
}

// lostBatches returns the held batches marked lost.
func (w *Writer) lostBatches() []*heldBatch {
	a := &w.t.async
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []*heldBatch
	for _, h := range w.held {
		if h.lost {
			out = append(out, h)
		}
	}
	return out
}

// resendLost re-sends the held batches a crash lost, each in a transaction
// of its own (settled like any batch when its COMMIT's answer is lost).
func (w *Writer) resendLost(ctx, parent context.Context) error {
	for _, h := range w.lostBatches() {
		method, err := w.t.cfg.Method.For(h.b.Format)
		if err != nil {
			return err
		}
		if err := w.ensureConn(ctx); err != nil {
			return w.wrap(err, fmt.Sprintf("timescale: connecting to database %q: %s", w.t.cfg.DBName, describe(err, nil)))
		}
		ack, err := w.send(ctx, parent, &h.b, method)
		if err != nil {
			return fmt.Errorf("re-sending %s (acknowledged, then lost in a server crash): %w", h.b.Where(), err)
		}
		if ack.Rows != h.b.Rows {
			return fmt.Errorf("re-sending %s: the server acknowledged %d rows of %d", h.b.Where(), ack.Rows, h.b.Rows)
		}
		a := &w.t.async
		a.mu.Lock()
		h.lost, h.xid, h.started = false, w.xid, w.started
		a.resent++
		a.mu.Unlock()
	}
	return nil
}

// drain makes the held batches durable before the writer closes: it
// re-sends the lost ones and commits one synchronous transaction, which
// flushes the WAL past every commit acknowledged before it; a lost
// connection on the way is recovered like a Write's.
func (w *Writer) drain() error {
	if len(w.held) == 0 {
		return nil
	}
	// After a failed Write the runner's retries have waited for the
	// server already: waiting resolveTime more per worker would only make
	// a failed run late (the batches stay in doubt in the journal).
	wait := resolveTime
	if w.failed {
		wait = stopResolveTime
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	p := retry.Policy{Retryable: func(err error) bool { return load.IsRetryable(err) || isRetryable(err) }}
	err := p.Do(ctx, func(ctx context.Context) error {
		if err := w.ensureConn(ctx); err != nil {
			return w.wrap(err, fmt.Sprintf("timescale: connecting to database %q: %s", w.t.cfg.DBName, describe(err, nil)))
		}
		if err := w.resendLost(ctx, ctx); err != nil {
			return err
		}
		err := execSimple(ctx, w.conn.PgConn(), "BEGIN; SET LOCAL synchronous_commit TO on; SELECT txid_current(); COMMIT")
		if err != nil {
			w.afterError()
			return w.wrap(err, "timescale: flushing the last acknowledged batches: "+describe(err, nil))
		}
		w.holdAcked(nil, 0, true)
		return nil
	})
	var g *retry.GiveUpError
	if errors.As(err, &g) {
		err = g.Err
	}
	if err != nil {
		return fmt.Errorf("timescale: worker %d: %d acknowledged batches may not be durable (synchronous_commit=off): %w", w.worker, len(w.held), err)
	}
	return nil
}
