package runner

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"
)

// ping checks the target's endpoint once before Prepare (load.Target.Ping).
// Nothing is retried: a server that is not there at the start fails the
// run at once, with a hint, while a connection lost in the middle of the
// load stays a retryable answer.
func (r *run) ping(ctx context.Context) error {
	if r.target == nil {
		return nil
	}
	err := r.target.Ping(ctx)
	if err == nil || errors.Is(err, errors.ErrUnsupported) {
		return nil
	}
	return fmt.Errorf("before loading: %w%s", err, reachHint(err))
}

// reachHint says what a failure to reach the server usually means.
func reachHint(err error) string {
	var dns *net.DNSError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED) || strings.Contains(err.Error(), "connection refused") || strings.Contains(err.Error(), "actively refused"):
		return " (nothing listens there: start the server, or give the loader the address it listens at)"
	case errors.As(err, &dns):
		return " (the host name does not resolve: check the address)"
	case errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "i/o timeout"):
		return " (no answer: a firewall, or a server that is not there)"
	}
	return ""
}
