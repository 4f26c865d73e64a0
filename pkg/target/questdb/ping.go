package questdb

import (
	"context"

	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// Ping (load.Target.Ping) checks once that QuestDB listens at every address the
// load uses: the HTTP URL (writes, or /exec queries), the ILP/TCP address
// (TCP transport) and the PG-wire address (queries).
func (t *Target) Ping(ctx context.Context) error {
	addrs := []string{httpwrite.HostPort(t.cfg.URL), httpwrite.HostPort(t.cfg.PG)}
	if t.cfg.Transport == TCP {
		addrs = append(addrs, t.cfg.TCPAddr)
	}
	return httpwrite.Reach(ctx, "QuestDB", addrs...)
}
