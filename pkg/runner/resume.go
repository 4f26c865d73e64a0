package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/journal"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/results"
)

// runJournal is the run's journal (written beside the results file); a
// resumed run continues the load its journal describes.
type runJournal = journal.Live

// openJournal starts the run's journal, beside the results file, when
// the run loads files into a target; on a resumed run it checks that the
// run continues the journal's load (same inputs, settings and target) and
// that the target can settle the batches left in doubt. Called before
// Prepare: a resume refused changes nothing in the database.
func (r *run) openJournal(ctx context.Context) error {
	cfg := &r.cfg
	old := cfg.Resume
	if cfg.ResultsFile == "" || !cfg.DoLoad {
		if old != nil {
			return load.Settingf("a resumed load needs {ResultsFile} (its journal is written beside it) and {DoLoad}")
		}
		return nil
	}
	if len(cfg.Inputs) == 0 {
		if old != nil {
			return errors.New("a load from stdin cannot be resumed (it cannot be read again)")
		}
		return nil // nothing to journal: stdin cannot be read twice
	}
	if cfg.Loop {
		if old != nil {
			return errors.New("a looped run cannot be resumed (its passes are not journaled)")
		}
		return nil // a pass re-reads the inputs: batch places repeat
	}
	parts := 1
	if cfg.HashWorkers {
		parts = cfg.Workers
	}
	j := journal.Journal{
		Version: journal.Version, LoadID: r.res.RunID, Runs: []string{r.res.RunID},
		Loader: cfg.Loader, Target: cfg.Target, DBName: cfg.Prepare.DBName, Flags: journal.FlagText(r.res.Flags),
		Settings: journal.Settings{Format: formatName(cfg.Format), Detected: r.res.Format, Table: cfg.Table, BatchSize: cfg.BatchSize,
			HashWorkers: cfg.HashWorkers, Parts: parts, Limit: cfg.Limit, SkipInvalid: cfg.SkipInvalid, MaxRecordBytes: cfg.MaxRecordBytes},
		Tables: map[string]int64{}, Before: map[string]int64{}, Status: "running",
	}
	for _, p := range cfg.Inputs {
		in, err := journal.Identify(p)
		if err != nil {
			return fmt.Errorf("journal: %w", err)
		}
		j.Inputs = append(j.Inputs, in)
	}
	jr := journal.NewLive(journal.Path(cfg.ResultsFile), r.res.RunID, j, cfg.Stderr)
	if old != nil {
		switch {
		case cfg.Prepare.DropDB:
			return load.Settingf("{DropDB} with a resumed load would drop what its earlier runs loaded")
		case cfg.Prepare.AbortOnExist:
			return load.Settingf("{AbortOnExist} with a resumed load: its tables exist, the earlier runs made them")
		}
		if err := jr.Continue(old, cfg.Workers); err != nil {
			return err
		}
		mode, err := r.checkInDoubt(ctx, old)
		if err != nil {
			return err
		}
		if mode == load.SettleInDoubt {
			jr.SettleBy(r.hooks.Settle)
		}
		r.verifier.SetBefore(old.Before)
		r.res.Resume = &results.Resume{LoadID: old.LoadID, Previous: append([]string(nil), old.Runs...), Journal: jr.Path()}
		if err := jr.GatherInDoubt(old); err != nil {
			return err
		}
		r.res.Resume.InDoubt = jr.Pending()
	}
	// Every snapshot from here on holds the batches in doubt gathered, so
	// the ticket log segments read are not needed any more.
	if err := jr.Snapshot(); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if old != nil && old.File() != "" && old.File() != jr.Path() {
		// The load goes on in this journal: the old one must not be
		// resumed again (it lacks what this run loads).
		moved := *old
		moved.ContinuedIn = jr.Path()
		data, err := json.MarshalIndent(&moved, "", " ")
		if err == nil {
			err = journal.WriteAtomic(old.File(), append(data, '\n'))
		}
		if err != nil {
			return fmt.Errorf("journal: marking %s continued: %w", old.File(), err)
		}
	}
	r.jr = jr
	r.verifier.OnCounted = jr.Counted
	jr.Start(cfg.ReportingPeriod)
	return nil
}

func formatName(f format.Format) string {
	if f == format.Unknown {
		return ""
	}
	return f.String()
}

// checkInDoubt refuses a resume on a target that cannot settle batches in
// doubt when the previous run may have left some: it was killed (its last
// snapshot is not final) or it stopped with batches sent and unanswered.
func (r *run) checkInDoubt(ctx context.Context, old *journal.Journal) (load.InDoubt, error) {
	if r.target == nil {
		return 0, fmt.Errorf("%s cannot settle batches in doubt: a load into it cannot be resumed", r.cfg.Target)
	}
	tables := make([]string, 0, len(old.Tables))
	for n := range old.Tables {
		tables = append(tables, n)
	}
	sort.Strings(tables)
	mode, err := r.target.InDoubt(ctx, tables)
	if errors.Is(err, errors.ErrUnsupported) {
		return 0, fmt.Errorf("%s cannot settle batches in doubt: a load into it cannot be resumed", r.cfg.Target)
	}
	if err == nil {
		if mode == load.SettleInDoubt && (r.hooks.Settle == nil || r.hooks.OnTicket == nil) {
			err = fmt.Errorf("%s settles batches in doubt but has no Settle", r.cfg.Target)
		}
		return mode, err
	}
	doubt := !old.Final || old.Unsettled || len(old.InDoubt) > 0
	if !doubt {
		return load.ResendInDoubt, nil // nothing in doubt: the rest is sent once
	}
	if r.cfg.AcceptDuplicates {
		fmt.Fprintf(r.cfg.Stderr, "resume: %v; sending the batches in doubt again as asked (their rows may be stored twice)\n", err)
		return load.ResendInDoubt, nil
	}
	why := "the earlier run was killed: batches it sent after its journal's last snapshot may be written without a record of it"
	if old.Final {
		why = fmt.Sprintf("the earlier run stopped with %d batches sent and not answered", len(old.InDoubt))
	}
	return 0, load.Settingf("refusing to resume: %s, and %w; pass {AcceptDuplicates} to send them again anyway", why, err)
}

// settleInDoubt, on a resumed run after Prepare, settles the batches the
// earlier runs left in doubt: through the target's Settle for a target
// with tickets (a batch found written is acknowledged, not sent again),
// else they are sent again with the batches never sent. It then writes
// the run's first snapshot.
func (r *run) settleInDoubt(ctx context.Context) error {
	jr, old := r.jr, r.cfg.Resume
	if jr == nil || old == nil {
		return nil
	}
	info := r.res.Resume
	batches, rows := jr.EarlierAcked()
	var err error
	if info.SettledWritten, info.SettledLost, err = jr.Settle(ctx); err != nil {
		return err
	}
	msg := fmt.Sprintf("resuming load %s (run %d of it): %d batches (%d rows) acknowledged by earlier runs are read again and skipped",
		old.LoadID, len(old.Runs)+1, batches, rows)
	switch {
	case info.SettledWritten+info.SettledLost > 0:
		msg += fmt.Sprintf("; %d batches in doubt: %d found written (skipped too), %d not written (sent again)", info.InDoubt, info.SettledWritten, info.SettledLost)
	case info.InDoubt > 0:
		msg += fmt.Sprintf("; %d batches in doubt are sent again (%s stores a point sent twice once)", info.InDoubt, r.cfg.Target)
	case !old.Final:
		msg += "; batches sent after the journal's last snapshot are sent again"
	}
	fmt.Fprintln(r.cfg.Stderr, msg)
	if err := jr.Snapshot(); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}

// attachTickets, before the writers open, makes them hand their batches'
// tickets (and the batches made durable) to the journal.
func (r *run) attachTickets() {
	if r.hooks.OnTicket != nil && r.jr != nil {
		r.hooks.OnTicket(r.jr.Ticket)
	}
	if r.hooks.OnDurable != nil && r.jr != nil {
		r.hooks.OnDurable(r.jr.Durable)
	}
}

// closeJournal writes the run's last snapshot (with its status) and fills
// the results' resume figures. Batches acknowledged before they were
// durable and never named durable (InfluxDB 3 --no-sync, QuestDB over
// TCP) are counted durable at the end of an ok run only when verification
// counted their rows in the server: unverified, the server may not have
// written them yet, and they stay in doubt (the load is not complete).
func (r *run) closeJournal() {
	jr := r.jr
	if jr == nil {
		return
	}
	complete := r.res.Status == results.StatusOK
	unverified := false
	if complete && r.res.Verify == nil {
		if n, _ := jr.NotDurable(); n > 0 {
			complete, unverified = false, true
		}
	}
	c, err := jr.Close(r.res.Status, complete)
	if err != nil {
		fmt.Fprintf(r.cfg.Stderr, "journal: %v\n", err)
		if r.err == nil {
			r.err = fmt.Errorf("journal: %w", err)
		}
	}
	if n := c.NotDurableRows; n > 0 {
		r.res.NotDurableRows = n
		why := ""
		if unverified {
			why = " (not verified: the server may not have written them yet)"
		}
		fmt.Fprintf(r.cfg.Stderr, "journal: %d batches (%s rows) were acknowledged and not known to be durable when the run ended%s: "+
			"they stay in doubt, and a resumed run checks them\n", c.NotDurableBatches, count(n), why)
	}
	if info := r.res.Resume; info != nil {
		info.SkippedBatches, info.SkippedRows, info.LoadRows = c.SkippedBatches, c.SkippedRows, c.Rows
		if c.NotDurableRows > 0 {
			// Not yet the load's rows (they stay in doubt): named apart, so
			// the line does not read as if this run's rows were lost.
			fmt.Fprintf(r.cfg.Stderr, "load %s: %s rows acknowledged and known durable over %d runs; this one acknowledged %s, %s of them not known durable\n",
				info.LoadID, count(c.Rows), len(info.Previous)+1, count(r.res.Rows), count(c.NotDurableRows))
		} else {
			fmt.Fprintf(r.cfg.Stderr, "load %s: %s rows acknowledged over %d runs (%s by this one)\n", info.LoadID, count(c.Rows), len(info.Previous)+1, count(r.res.Rows))
		}
	}
}

// wholeLoad returns tot with the rows every run of a resumed load
// acknowledged, which verification proves (with the tables' counts before
// the load's first run).
func (r *run) wholeLoad(tot totals) totals {
	if r.jr == nil || r.cfg.Resume == nil {
		return tot
	}
	var partial bool
	tot.tables, tot.rows, partial = r.jr.WholeLoad()
	tot.partial = tot.partial || partial
	return tot
}

// wholeLoadMetrics returns the rows and metrics every run of a resumed
// load acknowledged (metrics -1 when not all are known); ok is false for a
// run that resumed nothing.
func (r *run) wholeLoadMetrics() (rows, metrics int64, ok bool) {
	if r.jr == nil || r.cfg.Resume == nil {
		return 0, 0, false
	}
	rows, metrics = r.jr.WholeLoadMetrics()
	return rows, metrics, true
}
