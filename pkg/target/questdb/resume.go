package questdb

import (
	"context"
	"errors"
	"fmt"

	"github.com/tsload/tsload/pkg/load"
)

// InDoubt: tables with DEDUP UPSERT KEYS store a row sent twice once, so
// a resumed load sends the batches in doubt again. A table without DEDUP
// (created by QuestDB on first write, or with Dedup off) would store a
// batch in doubt that was written twice, and QuestDB keeps no record of
// which were; over ILP/TCP nothing is acknowledged at all.
func (t *Target) InDoubt(ctx context.Context, tables []string) (load.InDoubt, error) {
	switch {
	case t.cfg.Transport == TCP:
		return 0, errors.New("questdb: over ILP/TCP the server acknowledges nothing, so batches written before the loader stopped cannot be told from lost ones (load over HTTP to resume)")
	case !t.cfg.Dedup:
		return 0, load.Settingf("questdb: the tables have no DEDUP ({Dedup}): a batch in doubt that was written would be stored twice if sent again, and QuestDB keeps no record of which were")
	}
	if _, err := t.withQuerier(ctx); err != nil {
		return 0, err
	}
	for _, name := range tables {
		info, ok, err := t.tableInfo(ctx, name)
		if err != nil {
			return 0, fmt.Errorf("questdb: reading table %q: %w", name, err)
		}
		if ok {
			t.mu.Lock()
			t.resumed[name] = info.dedup
			t.mu.Unlock()
		}
		if ok && !info.dedup {
			return 0, fmt.Errorf("questdb: table %q has no DEDUP (QuestDB created it on first write): a batch in doubt that was written would be stored twice if sent again, and QuestDB keeps no record of which were", name)
		}
	}
	return load.ResendInDoubt, nil
}
