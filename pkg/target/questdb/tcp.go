package questdb

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/tsload/tsload/pkg/load"
)

// tcpWriter streams batches over one ILP/TCP connection. The server sends
// nothing back: an Ack means "written to the socket". On a bad line the
// server closes the connection; the writer notices at its next batch.
type tcpWriter struct {
	t     *Target
	conn  net.Conn
	buf   []byte
	seen  map[string]bool
	probe [1]byte
	sent  int64 // bytes written on this connection
}

func (w *tcpWriter) connect(ctx context.Context) error {
	d := net.Dialer{Timeout: w.t.cfg.RequestTimeout, KeepAlive: 30 * time.Second}
	var conn net.Conn
	var err error
	if w.t.cfg.TCPTLS {
		td := tls.Dialer{NetDialer: &d, Config: tlsConfig(w.t.cfg.TLSVerify)}
		conn, err = td.DialContext(ctx, "tcp", w.t.cfg.TCPAddr)
	} else {
		conn, err = d.DialContext(ctx, "tcp", w.t.cfg.TCPAddr)
	}
	if err != nil {
		return fmt.Errorf("questdb: connect ILP/TCP %s: %w", w.t.cfg.TCPAddr, err)
	}
	w.conn, w.sent = conn, 0
	return nil
}

// closedByServer reports whether the server has closed the connection (or
// sent anything, which ILP/TCP never does), without blocking.
func (w *tcpWriter) closedByServer() error {
	if err := w.conn.SetReadDeadline(time.Now()); err != nil {
		return err
	}
	_, err := w.conn.Read(w.probe[:])
	if err == nil {
		return errors.New("unexpected data from the server")
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return nil
	}
	return err
}

func (w *tcpWriter) Write(ctx context.Context, b *load.Batch) (load.Ack, error) {
	if err := checkILP(b); err != nil {
		return load.Ack{}, err
	}
	if err := w.t.tablesReady(ctx, w.seen, b); err != nil {
		return load.Ack{}, err
	}
	if w.conn == nil {
		if err := w.connect(ctx); err != nil {
			return load.Ack{}, load.Retryable(err) // nothing of b was written
		}
	} else if err := w.closedByServer(); err != nil {
		sent := w.sent
		w.conn.Close()
		w.conn = nil
		return load.Ack{}, fmt.Errorf("questdb: ILP/TCP: the server closed the connection after %d bytes (%v) before %s was sent: it does so after a bad line, so rows of earlier batches on this connection may be lost; see the QuestDB log", sent, err, b.Where())
	}
	data := body(&w.buf, b)
	if err := w.conn.SetWriteDeadline(time.Now().Add(w.t.requestTimeout(len(data)))); err != nil {
		return load.Ack{}, err
	}
	n, err := w.conn.Write(data)
	w.sent += int64(n)
	if err != nil {
		w.conn.Close()
		w.conn = nil
		err = fmt.Errorf("questdb: ILP/TCP: connection lost after %d of %d bytes of %s: %w", n, len(data), b.Where(), err)
		if w.t.dedupAll(b) {
			// Every table has DEDUP keys: re-sending the batch cannot
			// duplicate rows (ILP/TCP still cannot prove completeness:
			// Verify decides).
			return load.Ack{}, load.Retryable(err)
		}
		return load.Ack{}, fmt.Errorf("%w; not re-sent: without DEDUP a re-send could duplicate the part already written", err)
	}
	return load.Ack{Rows: b.Rows}, nil
}

// Close closes the connection; the server commits what it received.
func (w *tcpWriter) Close() error {
	if w.conn == nil {
		return nil
	}
	err := w.conn.Close()
	w.conn = nil
	return err
}
