package timescale

import (
	"context"
	"fmt"
	"strings"

	"github.com/tsload/tsload/pkg/load"
)

// InDoubt: a batch is one transaction, so a resumed load settles the
// batches an earlier process left in doubt by their transaction ids
// (load.SettleInDoubt). With a commit per row a batch is many
// transactions, which a ticket cannot settle.
func (t *Target) InDoubt(context.Context, []string) (load.InDoubt, error) {
	if t.cfg.Commit == CommitRow {
		return 0, load.Settingf("timescale: with {Commit} row a batch is many transactions, of which any number may have committed")
	}
	return load.SettleInDoubt, nil
}

// ticket names the batch's transaction: its id, the backend's pid and the
// server's start time, as Settle reads them.
func (w *Writer) ticket() string {
	return fmt.Sprintf("%d %d %s", w.xid, w.pid, w.started)
}

// Settle reports whether each ticket's transaction committed, the way a
// Writer settles a COMMIT whose answer was lost (resolve): the backend that
// may still run the transaction is terminated first, so a transaction
// found not committed cannot commit later; after a server restart an id
// at or past the recovered next_xid was lost.
func (t *Target) Settle(ctx context.Context, tickets []string) ([]bool, error) {
	out := make([]bool, len(tickets))
	for i, tk := range tickets {
		w := &Writer{t: t}
		var pid int64
		n, err := fmt.Sscanf(tk, "%d %d", &w.xid, &pid)
		if err != nil || n != 2 {
			return nil, fmt.Errorf("timescale: ticket %q is not \"xid pid start-time\"", tk)
		}
		w.pid = uint32(pid)
		if f := strings.SplitN(tk, " ", 3); len(f) == 3 {
			w.started = f[2]
		}
		in, err := w.resolve(ctx)
		if err != nil {
			return nil, fmt.Errorf("timescale: settling transaction %d: %s", w.xid, describe(err, nil))
		}
		out[i] = in
	}
	return out, nil
}
