package questdb

import (
	"context"
	"errors"

	"github.com/tsload/tsload/pkg/load"
)

// InDoubt: tables with DEDUP UPSERT KEYS store a row sent twice once, so
// a resumed load sends the batches in doubt again. Without DEDUP a batch
// that was written before the loader stopped would be stored twice, and
// QuestDB keeps no record of which batches it took; over ILP/TCP nothing
// is acknowledged at all.
func (t *Target) InDoubt(context.Context) (load.InDoubt, error) {
	switch {
	case t.cfg.Transport == TCP:
		return 0, errors.New("questdb: over ILP/TCP the server acknowledges nothing, so batches written before the loader stopped cannot be told from lost ones (load over HTTP to resume)")
	case !t.cfg.Dedup:
		return 0, load.Settingf("questdb: the tables have no DEDUP ({Dedup}): a batch in doubt that was written would be stored twice if sent again, and QuestDB keeps no record of which were")
	}
	return load.ResendInDoubt, nil
}
