package results

// Resume links the runs of one load that was stopped and resumed
// (Results.Resume).
type Resume struct {
	LoadID   string   `json:"load_id"`       // the first run's RunID
	Previous []string `json:"previous_runs"` // earlier runs' ids, oldest first
	Journal  string   `json:"journal"`       // the journal file the runs share
	// Batches and rows acknowledged by earlier runs, read again and not
	// sent (with the batches in doubt found written: SettledWritten).
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
