package questdb

import (
	"context"
	"fmt"
	"strings"
)

// ServerVersion (load.Target.ServerVersion) is what the server's build()
// function reports, without its "Build Information: " prefix, e.g.
// "QuestDB 9.3.4, JDK 24.0.2, Commit Hash 9ea33219...". It asks over the
// query path Count uses (PG wire, or HTTP /exec without a PG URL).
func (t *Target) ServerVersion(ctx context.Context) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	q, err := t.querier(ctx)
	if err != nil {
		return "", err
	}
	rows, err := q.query(ctx, "SELECT build()")
	if err != nil {
		return "", err
	}
	if len(rows) != 1 || len(rows[0]) != 1 || rows[0][0] == "" {
		return "", fmt.Errorf("questdb: build() answered %v", rows)
	}
	return strings.TrimPrefix(rows[0][0], "Build Information: "), nil
}
