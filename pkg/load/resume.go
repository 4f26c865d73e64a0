package load

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
	// commits (Hooks.OnTicket), and the target's Settle says, from another
	// process, whether the batch with that ticket was written.
	SettleInDoubt
)

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
