package tonbo

import (
	"context"
	"fmt"

	"github.com/tsload/tsload/pkg/load"
)

// Writer writes batches; the workers share the tables' handles (tonbo
// takes concurrent writes).
type Writer struct {
	t   *Target
	enc encoder
}

// NewWriter returns worker's writer.
func (t *Target) NewWriter(ctx context.Context, worker int) (load.Writer, error) {
	if !Linked {
		return nil, ErrNoBridge
	}
	return &Writer{t: t}, nil
}

// Write encodes b and writes each table's rows in the commit mode. A batch
// of several tables is one write per table: with per-batch, a transaction
// per table.
func (w *Writer) Write(ctx context.Context, b *load.Batch) (load.Ack, error) {
	groups, err := w.enc.decode(ctx, w.t, b)
	if err != nil {
		return load.Ack{}, err
	}
	mode := w.t.cfg.Commit.mode()
	done := 0
	for _, g := range groups {
		if err := g.tb.write(mode, g.buf, g.rows); err != nil {
			err = fmt.Errorf("tonbo: writing %d rows into %q (%s): %w", g.rows, g.tb.name, w.t.cfg.Commit, err)
			if done > 0 || w.t.cfg.Commit == CommitRow {
				err = fmt.Errorf("%w (part of the batch may be stored: a point written again replaces itself)", err)
			}
			return load.Ack{}, err
		}
		done += g.rows
	}
	return load.Ack{Rows: b.Rows}, nil
}

// Close has nothing to release: the tables are the target's.
func (w *Writer) Close() error { return nil }
