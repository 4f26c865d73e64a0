package timescale

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// retryableSQLState reports whether a server error means the statement did
// not take effect and a re-send may succeed: connection exceptions (class
// 08), serialization failure and deadlock (40001, 40P01), too many
// connections (53300), and shutdown or start-up in progress (57P01 admin
// shutdown, 57P02 crash shutdown, 57P03 cannot connect now).
func retryableSQLState(code string) bool {
	if strings.HasPrefix(code, "08") {
		return true
	}
	switch code {
	case "40001", "40P01", "53300", "57P01", "57P02", "57P03":
		return true
	}
	return false
}

// isRetryable classifies an error returned while talking to the server.
// Context cancellation is never retryable: the run is stopping.
func isRetryable(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return retryableSQLState(pgErr.Code)
	}
	var connectErr *pgconn.ConnectError
	if errors.As(err, &connectErr) {
		return true
	}
	if pgconn.SafeToRetry(err) {
		return true
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNABORTED) ||
		errors.Is(err, net.ErrClosed) {
		return true
	}
	var netErr net.Error
	if errors.As(err, &netErr) {
		return true
	}
	// pgconn reports a connection that died mid-statement this way.
	msg := err.Error()
	return strings.Contains(msg, "conn closed") || strings.Contains(msg, "unexpected EOF") ||
		strings.Contains(msg, "connection reset")
}

// describe formats err for a person: the server's message, detail, hint,
// context and SQLSTATE when it is a server error. mapLine, when not nil,
// turns the "line N" of a COPY context (the row within the statement) into
// a position in the input.
func describe(err error, mapLine func(n int64) string) string {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s (SQLSTATE %s)", pgErr.Severity, pgErr.Message, pgErr.Code)
	if pgErr.Detail != "" {
		fmt.Fprintf(&b, "; detail: %s", pgErr.Detail)
	}
	if pgErr.Hint != "" {
		fmt.Fprintf(&b, "; hint: %s", pgErr.Hint)
	}
	if pgErr.Where != "" {
		fmt.Fprintf(&b, "; context: %s", pgErr.Where)
		if mapLine != nil {
			if n, ok := copyContextLine(pgErr.Where); ok {
				fmt.Fprintf(&b, " (%s)", mapLine(n))
			}
		}
	}
	return b.String()
}

// copyContextLine extracts N from a COPY error context "COPY t, line N, ...".
func copyContextLine(where string) (int64, bool) {
	i := strings.Index(where, ", line ")
	if !strings.HasPrefix(where, "COPY ") || i < 0 {
		return 0, false
	}
	s := where[i+len(", line "):]
	j := 0
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	n, err := strconv.ParseInt(s[:j], 10, 64)
	return n, err == nil
}
