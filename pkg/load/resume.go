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
