package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/journal"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/periodic"
	"github.com/tsload/tsload/pkg/results"
)

// journal is a run's live journal: the snapshot it keeps up to date and
// the batches in flight.
type runJournal struct {
	path   string
	stderr io.Writer

	write sync.Mutex // one snapshot written at a time, in order
	mu    sync.Mutex // guards what follows
	j     journal.Journal
	cut   []int64              // per input, batches cut so far
	fly   map[int64]*flight    // by Batch.Seq: cut, not yet acknowledged
	log   *os.File             // the ticket log segment open (nil: none yet)
	gen   int                  // its number
	run   string               // this run's id
	input int                  // the input being read
	skip  struct{ b, r int64 } // batches and rows acknowledged earlier, skipped
	err   error                // the first ticket log error
	// pending are the batches earlier runs left in doubt (resumed run),
	// kept in every snapshot until settled; unsettled: batches may be in
	// doubt beyond those (a run was killed after its last snapshot).
	pending   []journal.Batch
	unsettled bool

	stop func() // ends the snapshots: periodic.Every's answer
}

// flight is a batch cut and not acknowledged yet.
type flight struct {
	input   int
	k       int64
	from    int64
	to      int64
	rows    int
	sent    bool
	tables  []load.TableRows
	tickets []string
}

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
	jr := &runJournal{path: journal.Path(cfg.ResultsFile), stderr: cfg.Stderr, fly: map[int64]*flight{}, run: r.res.RunID,
		cut: make([]int64, len(cfg.Inputs))}
	parts := 1
	if cfg.HashWorkers {
		parts = cfg.Workers
	}
	jr.j = journal.Journal{
		Version: journal.Version, LoadID: r.res.RunID, Runs: []string{r.res.RunID},
		Loader: cfg.Loader, Target: cfg.Target, DBName: cfg.Prepare.DBName, Flags: journalFlags(r.res.Flags),
		Settings: journal.Settings{Format: formatName(cfg.Format), Detected: r.res.Format, Table: cfg.Table, BatchSize: cfg.BatchSize,
			HashWorkers: cfg.HashWorkers, Parts: parts, Limit: cfg.Limit, SkipInvalid: cfg.SkipInvalid, MaxRecordBytes: cfg.MaxRecordBytes},
		Tables: map[string]int64{}, Before: map[string]int64{}, Status: "running",
	}
	for _, p := range cfg.Inputs {
		in, err := journal.Identify(p)
		if err != nil {
			return fmt.Errorf("journal: %w", err)
		}
		jr.j.Inputs = append(jr.j.Inputs, in)
	}
	if old != nil {
		if err := jr.continueLoad(old, cfg); err != nil {
			return err
		}
		if err := r.checkInDoubt(ctx, old); err != nil {
			return err
		}
		r.verifier.SetBefore(old.Before)
		r.res.Resume = &results.Resume{LoadID: old.LoadID, Previous: append([]string(nil), old.Runs...), Journal: jr.path}
		if err := jr.gatherInDoubt(old); err != nil {
			return err
		}
		r.res.Resume.InDoubt = int64(len(jr.pending))
	}
	// Every snapshot from here on holds the batches in doubt gathered, so
	// the ticket log segments read are not needed any more.
	if err := jr.snapshot(false, ""); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if old != nil && old.File() != "" && old.File() != jr.path {
		// The load goes on in this journal: the old one must not be
		// resumed again (it lacks what this run loads).
		moved := *old
		moved.ContinuedIn = jr.path
		data, err := json.MarshalIndent(&moved, "", " ")
		if err == nil {
			err = journal.WriteAtomic(old.File(), append(data, '\n'))
		}
		if err != nil {
			return fmt.Errorf("journal: marking %s continued: %w", old.File(), err)
		}
	}
	r.jr = jr
	r.verifier.OnCounted = jr.counted
	jr.stop = periodic.Every(cfg.ReportingPeriod, jr.tick)
	return nil
}

func formatName(f format.Format) string {
	if f == format.Unknown {
		return ""
	}
	return f.String()
}

// continueLoad makes jr the continuation of old: refused when the inputs,
// the settings that decide the batches, or the target differ.
func (jr *runJournal) continueLoad(old *journal.Journal, cfg *Config) error {
	switch {
	case cfg.Prepare.DropDB:
		return load.Settingf("{DropDB} with a resumed load would drop what its earlier runs loaded")
	case cfg.Prepare.AbortOnExist:
		return load.Settingf("{AbortOnExist} with a resumed load: its tables exist, the earlier runs made them")
	}
	if old.Target != cfg.Target || old.Loader != cfg.Loader {
		return fmt.Errorf("the journal is of a %s load into %s, not %s into %s", old.Loader, old.Target, cfg.Loader, cfg.Target)
	}
	s, o := jr.j.Settings, old.Settings
	switch {
	case len(jr.j.Inputs) != len(old.Inputs):
		return load.Settingf("{Inputs}: %d inputs, the load has %d (%s)", len(jr.j.Inputs), len(old.Inputs), inputPaths(old.Inputs))
	case s.BatchSize != o.BatchSize:
		return load.Settingf("{BatchSize} %d differs from the load's %d: the batches would be cut differently", s.BatchSize, o.BatchSize)
	case s.Format != o.Format:
		return load.Settingf("{Format} %q differs from the load's %q", s.Format, o.Format)
	case s.Detected != o.Detected:
		return fmt.Errorf("the input's format is %s, the load's was %s", s.Detected, o.Detected)
	case s.Table != o.Table:
		return load.Settingf("{Table} %q differs from the load's %q", s.Table, o.Table)
	case s.HashWorkers != o.HashWorkers:
		return load.Settingf("{HashWorkers} %v differs from the load's %v: the batches would be cut differently", s.HashWorkers, o.HashWorkers)
	case s.Parts != o.Parts:
		return load.Settingf("{Workers} %d differs from the load's %d, which routes its series to %d workers ({HashWorkers}): the batches would be cut differently", cfg.Workers, o.Parts, o.Parts)
	case s.Limit != o.Limit:
		return load.Settingf("{Limit} %d differs from the load's %d", s.Limit, o.Limit)
	case s.SkipInvalid != o.SkipInvalid:
		return load.Settingf("{SkipInvalid} %v differs from the load's %v: the batches would be cut differently", s.SkipInvalid, o.SkipInvalid)
	case s.MaxRecordBytes != o.MaxRecordBytes:
		return fmt.Errorf("the longest record accepted (%d bytes) differs from the load's (%d)", s.MaxRecordBytes, o.MaxRecordBytes)
	case jr.j.DBName != old.DBName:
		return load.Settingf("{DBName} %q differs from the load's %q", jr.j.DBName, old.DBName)
	}
	for i, in := range jr.j.Inputs {
		was := old.Inputs[i]
		if in.Path != was.Path {
			return load.Settingf("{Inputs}: input %d is %s, the load's was %s", i+1, in.Path, was.Path)
		}
		if why := in.SameAs(was); why != "" {
			return fmt.Errorf("%s changed since the load began (%s): refusing to resume, the acknowledged batches would not be the input's", in.Path, why)
		}
		jr.j.Inputs[i].Acked = append([]journal.Range{}, was.Acked...)
	}
	jr.j.LoadID, jr.j.Flags = old.LoadID, old.Flags
	jr.j.Runs = append(append([]string(nil), old.Runs...), jr.run)
	for k, v := range old.Tables {
		jr.j.Tables[k] = v
	}
	for k, v := range old.Before {
		jr.j.Before[k] = v
	}
	jr.j.Rows, jr.j.Partial = old.Rows, old.Partial
	jr.j.Metrics, jr.j.MetricsUnknown = old.Metrics, old.MetricsUnknown || old.Rows > 0 && old.Metrics == 0
	return nil
}

func inputPaths(ins []journal.Input) string {
	p := make([]string, len(ins))
	for i, in := range ins {
		p[i] = in.Path
	}
	return strings.Join(p, ", ")
}

// checkInDoubt refuses a resume on a target that cannot settle batches in
// doubt when the previous run may have left some: it was killed (its last
// snapshot is not final) or it stopped with batches sent and unanswered.
func (r *run) checkInDoubt(ctx context.Context, old *journal.Journal) error {
	if r.target == nil {
		return fmt.Errorf("%s cannot settle batches in doubt: a load into it cannot be resumed", r.cfg.Target)
	}
	tables := make([]string, 0, len(old.Tables))
	for n := range old.Tables {
		tables = append(tables, n)
	}
	sort.Strings(tables)
	mode, err := r.target.InDoubt(ctx, tables)
	if errors.Is(err, errors.ErrUnsupported) {
		return fmt.Errorf("%s cannot settle batches in doubt: a load into it cannot be resumed", r.cfg.Target)
	}
	if err == nil {
		if mode == load.SettleInDoubt && (r.hooks.Settle == nil || r.hooks.OnTicket == nil) {
			err = fmt.Errorf("%s settles batches in doubt but has no Settle", r.cfg.Target)
		}
		r.inDoubt = mode
		return err
	}
	doubt := !old.Final || old.Unsettled || len(old.InDoubt) > 0
	if !doubt {
		r.inDoubt = load.ResendInDoubt // nothing in doubt: the rest is sent once
		return nil
	}
	if r.cfg.AcceptDuplicates {
		fmt.Fprintf(r.cfg.Stderr, "resume: %v; sending the batches in doubt again as asked (their rows may be stored twice)\n", err)
		r.inDoubt = load.ResendInDoubt
		return nil
	}
	why := "the earlier run was killed: batches it sent after its journal's last snapshot may be written without a record of it"
	if old.Final {
		why = fmt.Sprintf("the earlier run stopped with %d batches sent and not answered", len(old.InDoubt))
	}
	return load.Settingf("refusing to resume: %s, and %w; pass {AcceptDuplicates} to send them again anyway", why, err)
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
	cands := map[[2]int64]*journal.Batch{}
	for i := range jr.pending {
		b := &jr.pending[i]
		cands[[2]int64{int64(b.Input), b.Batch}] = b
	}
	info := r.res.Resume
	if settle := r.hooks.Settle; settle != nil && r.inDoubt == load.SettleInDoubt && len(cands) > 0 {
		keys := make([][2]int64, 0, len(cands))
		var tickets []string
		for k, c := range cands {
			keys = append(keys, k)
			tickets = append(tickets, c.Tickets...)
		}
		written, err := settle(ctx, tickets)
		if err != nil {
			return fmt.Errorf("settling the %d batches in doubt: %w", len(cands), err)
		}
		if len(written) != len(tickets) {
			return fmt.Errorf("settling: %d answers for %d tickets", len(written), len(tickets))
		}
		in := map[string]bool{}
		for i, t := range tickets {
			in[t] = in[t] || written[i]
		}
		sort.Slice(keys, func(i, j int) bool {
			return keys[i][0] < keys[j][0] || keys[i][0] == keys[j][0] && keys[i][1] < keys[j][1]
		})
		jr.mu.Lock()
		for _, k := range keys {
			c := cands[k]
			w := 0
			for _, t := range c.Tickets {
				if in[t] {
					w++
				}
			}
			if w > 1 {
				jr.mu.Unlock()
				return fmt.Errorf("%s: batch %d (byte offset %d) is written %d times", jr.j.Inputs[c.Input].Path, c.Batch, c.Bytes[0], w)
			}
			if w == 0 {
				info.SettledLost++
				continue
			}
			info.SettledWritten++
			jr.j.MetricsUnknown = true // the batch was not read again
			jr.ackLocked(c.Input, c.Batch, c.Bytes[0], c.Bytes[1], int64(c.Rows), c.Tables)
		}
		jr.mu.Unlock()
	}
	if r.inDoubt == load.SettleInDoubt {
		// Settled: written ones are acknowledged, the others are known
		// not written (and cannot be any more).
		jr.mu.Lock()
		jr.pending, jr.unsettled = nil, false
		jr.mu.Unlock()
	}
	var rows, batches int64
	for _, in := range jr.j.Inputs {
		for _, rg := range in.Acked {
			rows += rg.Rows
			batches += rg.Batches[1] - rg.Batches[0] + 1
		}
	}
	msg := fmt.Sprintf("resuming load %s (run %d of it): %d batches (%d rows) acknowledged by earlier runs are read again and skipped",
		old.LoadID, len(old.Runs)+1, batches, rows)
	switch {
	case info.SettledWritten+info.SettledLost > 0:
		msg += fmt.Sprintf("; %d batches in doubt: %d found written (not sent again), %d not written (sent again)", info.InDoubt, info.SettledWritten, info.SettledLost)
	case info.InDoubt > 0:
		msg += fmt.Sprintf("; %d batches in doubt are sent again (%s stores a point sent twice once)", info.InDoubt, r.cfg.Target)
	case !old.Final:
		msg += "; batches sent after the journal's last snapshot are sent again"
	}
	fmt.Fprintln(r.cfg.Stderr, msg)
	if err := jr.snapshot(false, ""); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}

// gatherInDoubt collects the batches old left in doubt: those its last
// snapshot lists and those of the ticket log segments written after it,
// less those acknowledged; a batch's tickets are merged.
func (jr *runJournal) gatherInDoubt(old *journal.Journal) error {
	jr.unsettled = !old.Final || old.Unsettled
	byKey := map[[2]int64]int{}
	add := func(b journal.Batch) {
		if b.Input < 0 || b.Input >= len(jr.j.Inputs) {
			return
		}
		if _, ok := journal.AckedIn(jr.j.Inputs[b.Input].Acked, b.Batch); ok {
			return
		}
		key := [2]int64{int64(b.Input), b.Batch}
		if i, ok := byKey[key]; ok {
			p := &jr.pending[i]
			p.Tickets = append(p.Tickets, b.Tickets...)
			if len(p.Tables) == 0 {
				p.Tables, p.Rows = b.Tables, b.Rows
			}
			return
		}
		b.Tickets = append([]string(nil), b.Tickets...)
		byKey[key] = len(jr.pending)
		jr.pending = append(jr.pending, b)
	}
	for _, b := range old.InDoubt {
		add(b)
	}
	logged, err := journal.ReadTickets(jr.path, old.TicketsFrom)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	for _, b := range logged {
		add(b)
	}
	// This run's segments follow the earlier ones.
	segs, err := journal.TicketSegments(jr.path)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	for n := range segs {
		jr.gen = max(jr.gen, n+1)
	}
	return nil
}

// attachTickets makes w hand its batches' tickets to the journal.
func (r *run) attachTickets(w load.Writer) {
	if r.hooks.OnTicket != nil && r.jr != nil {
		r.hooks.OnTicket(w, r.jr.ticket)
	}
}

// setInput notes the input being read (index into Inputs).
func (jr *runJournal) setInput(i int) {
	if jr != nil {
		jr.input = i
	}
}

// cutBatch gives b its place in its input's cut order and reports whether
// an earlier run had it acknowledged (then it is not sent).
func (jr *runJournal) cutBatch(b *load.Batch) (skip bool, err error) {
	if jr == nil {
		return false, nil
	}
	jr.mu.Lock()
	defer jr.mu.Unlock()
	i := jr.input
	jr.cut[i]++
	k := jr.cut[i]
	if rg, ok := journal.AckedIn(jr.j.Inputs[i].Acked, k); ok {
		if k == rg.Batches[0] && b.Offset != rg.Bytes[0] {
			return false, fmt.Errorf("%s: batch %d starts at byte offset %d, the journal says %d: the input is not cut as it was (changed input or settings)",
				jr.j.Inputs[i].Path, k, b.Offset, rg.Bytes[0])
		}
		jr.skip.b++
		jr.skip.r += int64(b.Rows)
		return true, nil
	}
	jr.fly[b.Seq] = &flight{input: i, k: k, from: b.Offset, to: b.Offset + int64(len(b.Data)), rows: b.Rows}
	return false, nil
}

// sending notes that b is being written, with its rows and tables as the
// worker's checks counted them (a batch in doubt found written counts
// those).
func (jr *runJournal) sending(b *load.Batch) {
	if jr == nil {
		return
	}
	jr.mu.Lock()
	if f := jr.fly[b.Seq]; f != nil {
		f.sent, f.rows = true, b.Rows
		f.tables = append(f.tables[:0], b.Tables...)
	}
	jr.mu.Unlock()
}

// ticket records b's ticket in the ticket log before b can commit.
func (jr *runJournal) ticket(b *load.Batch, t string) error {
	jr.mu.Lock()
	defer jr.mu.Unlock()
	f := jr.fly[b.Seq]
	if f == nil {
		return nil // acknowledged already (a batch re-sent after a server crash)
	}
	f.sent = true
	f.tickets = append(f.tickets, t)
	f.tables = append(f.tables[:0], b.Tables...)
	if jr.err != nil {
		return jr.err
	}
	if jr.log == nil {
		p := fmt.Sprintf("%s.tickets.%d", jr.path, jr.gen)
		lf, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			jr.err = fmt.Errorf("journal: %w", err)
			return jr.err
		}
		jr.log = lf
	}
	line, err := json.Marshal(journal.Batch{Input: f.input, Batch: f.k, Bytes: [2]int64{f.from, f.to}, Rows: f.rows, Tables: f.tables, Tickets: []string{t}, Run: jr.run})
	if err != nil {
		return err
	}
	// One write: a kill leaves the line whole or (cut short) ignored.
	if _, err := jr.log.Write(append(line, '\n')); err != nil {
		jr.err = fmt.Errorf("journal: %w", err)
		return jr.err
	}
	return nil
}

// acked records the server's answer to b: its batch is done, with the
// rows acknowledged (per table as the workers count them).
func (jr *runJournal) acked(b *load.Batch, ack load.Ack) {
	if jr == nil {
		return
	}
	acked := max(0, min(ack.Rows, b.Rows))
	tables := b.Tables
	if acked != b.Rows && b.Rows > 0 {
		tables = make([]load.TableRows, len(b.Tables))
		for i, t := range b.Tables {
			tables[i] = load.TableRows{Name: t.Name, Rows: t.Rows * int64(acked) / int64(b.Rows)}
		}
	}
	jr.mu.Lock()
	defer jr.mu.Unlock()
	f := jr.fly[b.Seq]
	if f == nil {
		return
	}
	delete(jr.fly, b.Seq)
	jr.j.Partial = jr.j.Partial || acked != b.Rows
	if b.Rows > 0 {
		jr.j.Metrics += int64(b.Metrics) * int64(acked) / int64(b.Rows) // as workerStats.record counts them
	}
	jr.ackLocked(f.input, f.k, f.from, f.to, int64(acked), tables)
}

func (jr *runJournal) ackLocked(input int, k, from, to, rows int64, tables []load.TableRows) {
	in := &jr.j.Inputs[input]
	in.Acked = journal.AddRange(in.Acked, k, from, to, rows)
	jr.j.Rows += rows
	for _, t := range tables {
		jr.j.Tables[t.Name] += t.Rows
	}
}

// counted records tables counted before the load's first write to them;
// the snapshot is written before that write.
func (jr *runJournal) counted(before map[string]int64) error {
	jr.mu.Lock()
	for k, v := range before {
		if _, ok := jr.j.Before[k]; !ok {
			jr.j.Before[k] = v
		}
	}
	jr.mu.Unlock()
	if err := jr.snapshot(false, ""); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}

// tick writes a snapshot (every reporting period until closeJournal).
func (jr *runJournal) tick() {
	if err := jr.snapshot(false, ""); err != nil {
		fmt.Fprintf(jr.stderr, "journal: %v\n", err)
	}
}

// snapshot writes the journal. The ticket log segment open so far is
// closed: the snapshot carries its batches still in flight, so earlier
// segments are removed once it is written.
func (jr *runJournal) snapshot(final bool, status string) error {
	jr.write.Lock()
	defer jr.write.Unlock()
	jr.mu.Lock()
	j := jr.j
	j.Inputs = make([]journal.Input, len(jr.j.Inputs))
	for i, in := range jr.j.Inputs {
		in.Acked = append([]journal.Range{}, in.Acked...)
		j.Inputs[i] = in
	}
	j.Tables, j.Before = copyCounts(jr.j.Tables), copyCounts(jr.j.Before)
	j.InDoubt = nil
	for _, f := range jr.fly {
		if f.sent {
			j.InDoubt = append(j.InDoubt, journal.Batch{Input: f.input, Batch: f.k, Bytes: [2]int64{f.from, f.to}, Rows: f.rows,
				Tables: append([]load.TableRows(nil), f.tables...), Tickets: append([]string(nil), f.tickets...), Run: jr.run})
		}
	}
	for _, b := range jr.pending {
		if _, ok := journal.AckedIn(jr.j.Inputs[b.Input].Acked, b.Batch); !ok {
			b.Tickets = append([]string(nil), b.Tickets...)
			j.InDoubt = append(j.InDoubt, b)
		}
	}
	j.Unsettled = jr.unsettled
	sort.Slice(j.InDoubt, func(a, b int) bool {
		x, y := j.InDoubt[a], j.InDoubt[b]
		return x.Input < y.Input || x.Input == y.Input && x.Batch < y.Batch
	})
	if jr.log != nil {
		jr.log.Close()
		jr.log = nil
		jr.gen++
	}
	j.TicketsFrom = jr.gen
	jr.mu.Unlock()
	j.Final = final
	if status != "" {
		j.Status = status
		j.Complete = status == results.StatusOK
	}
	j.Written = time.Now().UTC()
	data, err := json.MarshalIndent(j, "", " ")
	if err != nil {
		return err
	}
	if err := journal.WriteAtomic(jr.path, append(data, '\n')); err != nil {
		return err
	}
	segs, _ := journal.TicketSegments(jr.path)
	for n, p := range segs {
		if n < j.TicketsFrom {
			os.Remove(p)
		}
	}
	return nil
}

func copyCounts(m map[string]int64) map[string]int64 {
	out := make(map[string]int64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// closeJournal writes the run's last snapshot (with its status) and fills
// the results' resume figures.
func (r *run) closeJournal() {
	jr := r.jr
	if jr == nil {
		return
	}
	jr.stop()
	if err := jr.snapshot(true, r.res.Status); err != nil {
		fmt.Fprintf(r.cfg.Stderr, "journal: %v\n", err)
		if r.err == nil {
			r.err = fmt.Errorf("journal: %w", err)
		}
	}
	jr.mu.Lock()
	if jr.log != nil {
		jr.log.Close()
		jr.log = nil
	}
	rows, skipB, skipR := jr.j.Rows, jr.skip.b, jr.skip.r
	jr.mu.Unlock()
	if info := r.res.Resume; info != nil {
		info.SkippedBatches, info.SkippedRows, info.LoadRows = skipB, skipR, rows
		fmt.Fprintf(r.cfg.Stderr, "load %s: %s rows acknowledged over %d runs (%s by this one)\n", info.LoadID, count(rows), len(info.Previous)+1, count(r.res.Rows))
	}
}

// wholeLoad returns tot with the rows every run of a resumed load
// acknowledged, which verification proves (with the tables' counts before
// the load's first run).
func (r *run) wholeLoad(tot totals) totals {
	if r.jr == nil || r.cfg.Resume == nil {
		return tot
	}
	r.jr.mu.Lock()
	defer r.jr.mu.Unlock()
	tot.tables = copyCounts(r.jr.j.Tables)
	tot.rows = r.jr.j.Rows
	tot.partial = tot.partial || r.jr.j.Partial
	return tot
}

// wholeLoadMetrics returns the rows and metrics every run of a resumed
// load acknowledged (metrics -1 when not all are known); ok is false for a
// run that resumed nothing.
func (r *run) wholeLoadMetrics() (rows, metrics int64, ok bool) {
	if r.jr == nil || r.cfg.Resume == nil {
		return 0, 0, false
	}
	r.jr.mu.Lock()
	defer r.jr.mu.Unlock()
	if r.jr.j.MetricsUnknown {
		return r.jr.j.Rows, -1, true
	}
	return r.jr.j.Rows, r.jr.j.Metrics, true
}

// journalFlags is the results file's typed flag values as the text a
// flag is set from on resume (lists joined by commas, as loadcli reads
// them back).
func journalFlags(flags map[string]any) map[string]string {
	out := make(map[string]string, len(flags))
	for k, v := range flags {
		switch x := v.(type) {
		case []string:
			out[k] = strings.Join(x, ",")
		case string:
			out[k] = x
		default:
			out[k] = fmt.Sprint(x)
		}
	}
	return out
}
