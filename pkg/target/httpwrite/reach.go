package httpwrite

import (
	"context"
	"fmt"
	"net"
	"strings"
	"time"
)

// ReachTimeout bounds the dial of one address by Reach.
const ReachTimeout = 3 * time.Second

// Reach dials each address once (host:port over TCP; a path, a Unix
// socket) and closes the connection: a check that a server listens there
// before a load starts, so that a wrong address fails at once rather than
// as retried writes. what names the server in the error ("InfluxDB").
// Nothing is retried: a connection refused here means nothing listens.
func Reach(ctx context.Context, what string, addrs ...string) error {
	seen := map[string]bool{}
	for _, a := range addrs {
		if a == "" || seen[a] {
			continue
		}
		seen[a] = true
		network := "tcp"
		if strings.HasPrefix(a, "/") {
			network = "unix"
		}
		d := net.Dialer{Timeout: ReachTimeout}
		c, err := d.DialContext(ctx, network, a)
		if err != nil {
			return fmt.Errorf("cannot reach %s at %s: %w", what, a, err)
		}
		c.Close()
	}
	return nil
}

// ReachURLs is Reach of the host:port of every URL (HostPort).
func ReachURLs(ctx context.Context, what string, urls []string) error {
	addrs := make([]string, len(urls))
	for i, u := range urls {
		addrs[i] = HostPort(u)
	}
	return Reach(ctx, what, addrs...)
}
