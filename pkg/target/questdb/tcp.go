package questdb

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"time"

	"github.com/tsload/tsload/pkg/load"
)

// tcpWriter streams batches over one ILP/TCP connection. The server sends
// nothing back: an Ack means "written to the socket". On a bad line the
// server closes the connection; the writer notices at its next batch.
type tcpWriter struct {
	t    *Target
	conn net.Conn
	raw  net.Conn // the TCP connection under conn (conn itself without TLS)
	buf  []byte
	// version is the line protocol version.
	version int
	seen    map[string]bool
	probe   [1]byte
	sent    int64 // bytes written on this connection
}

func (w *tcpWriter) connect(ctx context.Context) error {
	d := net.Dialer{Timeout: w.t.cfg.RequestTimeout, KeepAlive: 30 * time.Second}
	raw, err := d.DialContext(ctx, "tcp", w.t.cfg.TCPAddr)
	if err != nil {
		return fmt.Errorf("questdb: connect ILP/TCP %s: %w", w.t.cfg.TCPAddr, err)
	}
	conn := raw
	if w.t.cfg.TCPTLS {
		cfg := tlsConfig(!w.t.cfg.InsecureSkipVerify)
		if host, _, _ := net.SplitHostPort(w.t.cfg.TCPAddr); cfg.ServerName == "" {
			cfg.ServerName = host
		}
		tc := tls.Client(raw, cfg)
		if err := tc.HandshakeContext(ctx); err != nil {
			raw.Close()
			return fmt.Errorf("questdb: ILP/TCP TLS handshake with %s: %w", w.t.cfg.TCPAddr, err)
		}
		conn = tc
	}
	w.conn, w.raw, w.sent = conn, raw, 0
	return nil
}

func (w *tcpWriter) Write(ctx context.Context, b *load.Batch) (load.Ack, error) {
	// Refused before it is sent: nothing of it is written.
	if err := checkILP(b); err != nil {
		return load.Ack{}, load.NotWritten(err)
	}
	if err := w.t.tablesReady(ctx, w.seen, b); err != nil {
		return load.Ack{}, load.NotWritten(err)
	}
	if w.conn == nil {
		if err := w.connect(ctx); err != nil {
			return load.Ack{}, load.Retryable(err) // nothing of b was written
		}
	} else if err := w.closedByServer(); err != nil {
		sent := w.sent
		w.conn.Close()
		w.conn = nil
		return load.Ack{}, fmt.Errorf("questdb: ILP/TCP: the server closed the connection after %d bytes (%v) before this batch was sent: it does so after a bad line, so rows of earlier batches on this connection may be lost; see the QuestDB log", sent, err)
	}
	data := body(&w.buf, b, w.version)
	if err := w.conn.SetWriteDeadline(time.Now().Add(w.t.requestTimeout(len(data)))); err != nil {
		return load.Ack{}, err
	}
	n, err := w.conn.Write(data)
	w.sent += int64(n)
	if err != nil {
		w.conn.Close()
		w.conn = nil
		err = fmt.Errorf("questdb: ILP/TCP: connection lost after %d of %d bytes of the batch (%d bytes on this connection; the server closes it after a bad line or when it stops: see the QuestDB log): %w", n, len(data), w.sent, err)
		if w.t.dedupAll(b) {
			// Every table has DEDUP keys: re-sending the batch cannot
			// duplicate rows (ILP/TCP still cannot prove completeness:
			// Verify decides).
			return load.Ack{}, load.Retryable(err)
		}
		return load.Ack{}, fmt.Errorf("%w; not re-sent: without DEDUP a re-send could duplicate the part already written", err)
	}
	w.t.sentBytes.Add(int64(len(data)))
	// Over TCP the server answers nothing: the batch is in the kernel's
	// buffers, not known durable (a failed run keeps it in doubt).
	return load.Ack{Rows: b.Rows, Volatile: true}, nil
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
