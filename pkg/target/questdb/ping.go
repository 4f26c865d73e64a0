package questdb

import (
	"context"
	"fmt"
	"strings"

	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// Ping (load.Target.Ping) checks once that QuestDB listens at every address the
// load uses: the HTTP URL (writes, or /exec queries), the ILP/TCP address
// (TCP transport) and the PG-wire address (queries). Then it asks the HTTP
// URL and the PG-wire URL for build(): another server on one of those ports
// (an InfluxDB on 8086, a second QuestDB's neighbour) is refused before any
// table is created, naming the endpoint.
func (t *Target) Ping(ctx context.Context) error {
	addrs := []string{httpwrite.HostPort(t.cfg.URL), httpwrite.HostPort(t.cfg.PG)}
	if t.cfg.Transport == TCP {
		addrs = append(addrs, t.cfg.TCPAddr)
	}
	if err := httpwrite.Reach(ctx, "QuestDB", addrs...); err != nil {
		return err
	}
	if t.client != nil {
		if err := identify(ctx, &execQuerier{c: t.client}, "HTTP URL "+t.cfg.URL); err != nil {
			return err
		}
	}
	if t.cfg.PG != "" {
		q, err := newPGQuerier(ctx, t.cfg.PG)
		if err != nil {
			return fmt.Errorf("questdb: PG-wire URL %s does not answer as QuestDB: %w", httpwrite.HostPort(t.cfg.PG), err)
		}
		defer q.close()
		return identify(ctx, q, "PG-wire URL "+httpwrite.HostPort(t.cfg.PG))
	}
	return nil
}

// identify asks q for build(), which QuestDB answers with "Build Information:
// QuestDB <version>, ...".
func identify(ctx context.Context, q querier, where string) error {
	rows, err := q.query(ctx, "SELECT build()")
	if err == nil && (len(rows) != 1 || len(rows[0]) != 1 || !strings.Contains(rows[0][0], "QuestDB")) {
		err = fmt.Errorf("build() answered %.200q", fmt.Sprint(rows))
	}
	if err != nil {
		return fmt.Errorf("questdb: the %s does not answer as QuestDB (nothing was created; is it another server's port?): %w", where, err)
	}
	return nil
}
