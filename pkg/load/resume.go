package load

import "context"

// InDoubt is how a target settles, when a stopped load is resumed, the
// batches that were sent but not acknowledged when it stopped (the loader
// was killed or lost its connection between sending a batch and reading
// the answer).
type InDoubt int

const (
	// ResendInDoubt: sending such a batch again stores nothing twice (the
	// server overwrites a point identical in series and timestamp), so the
	// resumed run simply sends every batch not acknowledged.
	ResendInDoubt InDoubt = iota + 1
	// SettleInDoubt: each batch's Write hands the runner a ticket before it
	// commits (Ticketer), and the target's Settle says, from another
	// process, whether the batch with that ticket was written.
	SettleInDoubt
)

// A Resumer is a Target that can continue a load an earlier process
// stopped. InDoubt says how that target settles batches in doubt in the
// load's tables (those the earlier runs wrote to; the runner calls it
// before Prepare), or returns an error saying why they cannot be settled
// (a QuestDB table without DEDUP: a re-sent batch that was written is
// stored twice).
type Resumer interface {
	InDoubt(ctx context.Context, tables []string) (InDoubt, error)
}

// A Settler is a Resumer answering SettleInDoubt. Settle reports, for each
// ticket a Ticketer handed out (possibly in an earlier process), whether
// its batch was written; it must make sure that a batch it reports as not
// written cannot be written later (a transaction still in flight on the
// server is ended first).
type Settler interface {
	Settle(ctx context.Context, tickets []string) (written []bool, err error)
}

// A Ticketer is a Writer whose batches each carry a ticket the target can
// settle later (PostgreSQL: the transaction's id). OnTicket sets the
// function that Write calls with the batch and its ticket once the ticket
// is known and before the batch can be committed; an error from it fails
// the Write (the batch is then not written). A batch sent again (a retry)
// gets a new ticket; at most one of its tickets is ever written.
type Ticketer interface {
	OnTicket(func(b *Batch, ticket string) error)
}

// Resume links the runs of one load that was stopped and resumed
// (Results.Resume).
type Resume struct {
	LoadID   string   `json:"load_id"`       // the first run's RunID
	Previous []string `json:"previous_runs"` // earlier runs' ids, oldest first
	Journal  string   `json:"journal"`       // the journal file the runs share
	// Batches and rows acknowledged by earlier runs, read again and not sent.
	SkippedBatches int64 `json:"skipped_batches"`
	SkippedRows    int64 `json:"skipped_rows"`
	// Batches sent but not acknowledged when the previous run stopped, and
	// how they were settled: found written (not sent again), found not
	// written, or sent again (a target that overwrites).
	InDoubt        int64 `json:"in_doubt"`
	SettledWritten int64 `json:"settled_written"`
	SettledLost    int64 `json:"settled_not_written"`
	// LoadRows are the rows acknowledged by every run of the load, this
	// one included: what verification proves.
	LoadRows int64 `json:"load_rows"`
}
