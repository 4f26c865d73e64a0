package timescale

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// Ping (load.Target.Ping) checks once that PostgreSQL listens at the configured
// host and port (or Unix socket). A refused connection fails here once,
// instead of as pgx's error for each address it tried.
func (t *Target) Ping(ctx context.Context) error {
	cc, err := t.cfg.connConfig("")
	if err != nil {
		return err
	}
	addr := net.JoinHostPort(cc.Host, strconv.Itoa(int(cc.Port)))
	if strings.HasPrefix(cc.Host, "/") {
		addr = fmt.Sprintf("%s/.s.PGSQL.%d", cc.Host, cc.Port)
	}
	return httpwrite.Reach(ctx, "PostgreSQL", addr)
}
