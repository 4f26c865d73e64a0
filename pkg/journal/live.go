package journal

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/periodic"
)

// Live is a running load's journal: the snapshot it keeps up to date (at
// each Counted, every period given to Start, at Close) and the batches in
// flight, from CutBatch to Acked (or Durable).
type Live struct {
	path   string
	stderr io.Writer

	write sync.Mutex // one snapshot written at a time, in order
	mu    sync.Mutex // guards what follows
	j     Journal
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
	pending   []Batch
	unsettled bool

	stop func() // ends the snapshots: periodic.Every's answer
	// settle settles the batches in doubt by their tickets (SettleBy);
	// nil: they are sent again.
	settle func(ctx context.Context, tickets []string) ([]bool, error)
}

// SettleBy has Settle settle the batches in doubt by their tickets:
// settle answers for each ticket whether it was written (load.Hooks.Settle).
func (l *Live) SettleBy(settle func(ctx context.Context, tickets []string) ([]bool, error)) {
	l.settle = settle
}

// NewLive is the journal of a running load at path, starting as j says;
// run is this run's id.
func NewLive(path, run string, j Journal, stderr io.Writer) *Live {
	if j.Tables == nil {
		j.Tables = map[string]int64{}
	}
	if j.Before == nil {
		j.Before = map[string]int64{}
	}
	return &Live{path: path, run: run, j: j, stderr: stderr, fly: map[int64]*flight{}, cut: make([]int64, len(j.Inputs)), stop: func() {}}
}

// Path is where the journal is written.
func (l *Live) Path() string { return l.path }

// Start writes a snapshot every period until Close.
func (l *Live) Start(period time.Duration) { l.stop = periodic.Every(period, l.tick) }

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
	// volatile: acknowledged before it was durable (load.Ack.Volatile):
	// kept in doubt until the writer names it durable, with what the
	// acknowledgement counted.
	volatile bool
	ack      struct {
		rows, metrics int64
		tables        []load.TableRows
	}
}

// Continue makes l the continuation of old: refused when the inputs, the
// settings that decide the batches (workers: the run's worker count), or
// the target differ.
func (l *Live) Continue(old *Journal, workers int) error {
	if old.Target != l.j.Target || old.Loader != l.j.Loader {
		return fmt.Errorf("the journal is of a %s load into %s, not %s into %s", old.Loader, old.Target, l.j.Loader, l.j.Target)
	}
	s, o := l.j.Settings, old.Settings
	switch {
	case len(l.j.Inputs) != len(old.Inputs):
		return load.Settingf("{Inputs}: %d inputs, the load has %d (%s)", len(l.j.Inputs), len(old.Inputs), inputPaths(old.Inputs))
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
		return load.Settingf("{Workers} %d differs from the load's %d, which routes its series to %d workers ({HashWorkers}): the batches would be cut differently", workers, o.Parts, o.Parts)
	case s.Limit != o.Limit:
		return load.Settingf("{Limit} %d differs from the load's %d", s.Limit, o.Limit)
	case s.SkipInvalid != o.SkipInvalid:
		return load.Settingf("{SkipInvalid} %v differs from the load's %v: the batches would be cut differently", s.SkipInvalid, o.SkipInvalid)
	case s.MaxRecordBytes != o.MaxRecordBytes:
		return fmt.Errorf("the longest record accepted (%d bytes) differs from the load's (%d)", s.MaxRecordBytes, o.MaxRecordBytes)
	case l.j.DBName != old.DBName:
		return load.Settingf("{DBName} %q differs from the load's %q", l.j.DBName, old.DBName)
	}
	for i, in := range l.j.Inputs {
		was := old.Inputs[i]
		if in.Path != was.Path {
			return load.Settingf("{Inputs}: input %d is %s, the load's was %s", i+1, in.Path, was.Path)
		}
		if why := in.SameAs(was); why != "" {
			return fmt.Errorf("%s changed since the load began (%s): refusing to resume, the acknowledged batches would not be the input's", in.Path, why)
		}
		l.j.Inputs[i].Acked = append([]Range{}, was.Acked...)
	}
	l.j.LoadID, l.j.Flags = old.LoadID, old.Flags
	l.j.Runs = append(append([]string(nil), old.Runs...), l.run)
	for k, v := range old.Tables {
		l.j.Tables[k] = v
	}
	for k, v := range old.Before {
		l.j.Before[k] = v
	}
	l.j.Rows, l.j.Partial = old.Rows, old.Partial
	l.j.Metrics, l.j.MetricsUnknown = old.Metrics, old.MetricsUnknown || old.Rows > 0 && old.Metrics == 0
	return nil
}

func inputPaths(ins []Input) string {
	p := make([]string, len(ins))
	for i, in := range ins {
		p[i] = in.Path
	}
	return strings.Join(p, ", ")
}

// gatherInDoubt collects the batches old left in doubt: those its last
// snapshot lists and those of the ticket log segments written after it,
// less those acknowledged; a batch's tickets are merged.
func (l *Live) GatherInDoubt(old *Journal) error {
	l.unsettled = !old.Final || old.Unsettled
	byKey := map[[2]int64]int{}
	add := func(b Batch) {
		if b.Input < 0 || b.Input >= len(l.j.Inputs) {
			return
		}
		if _, ok := AckedIn(l.j.Inputs[b.Input].Acked, b.Batch); ok {
			return
		}
		key := [2]int64{int64(b.Input), b.Batch}
		if i, ok := byKey[key]; ok {
			p := &l.pending[i]
			p.Tickets = append(p.Tickets, b.Tickets...)
			if len(p.Tables) == 0 {
				p.Tables, p.Rows = b.Tables, b.Rows
			}
			return
		}
		b.Tickets = append([]string(nil), b.Tickets...)
		byKey[key] = len(l.pending)
		l.pending = append(l.pending, b)
	}
	for _, b := range old.InDoubt {
		add(b)
	}
	logged, err := ReadTickets(l.path, old.TicketsFrom)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	for _, b := range logged {
		add(b)
	}
	// This run's segments follow the earlier ones.
	segs, err := TicketSegments(l.path)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	for n := range segs {
		l.gen = max(l.gen, n+1)
	}
	return nil
}

// setInput notes the input being read (index into Inputs).
func (l *Live) SetInput(i int) {
	if l != nil {
		l.input = i
	}
}

// cutBatch gives b its place in its input's cut order and reports whether
// an earlier run had it acknowledged (then it is not sent).
func (l *Live) CutBatch(b *load.Batch) (skip bool, err error) {
	if l == nil {
		return false, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	i := l.input
	l.cut[i]++
	k := l.cut[i]
	if rg, ok := AckedIn(l.j.Inputs[i].Acked, k); ok {
		if k == rg.Batches[0] && b.Offset != rg.Bytes[0] {
			return false, fmt.Errorf("%s: batch %d starts at byte offset %d, the journal says %d: the input is not cut as it was (changed input or settings)",
				l.j.Inputs[i].Path, k, b.Offset, rg.Bytes[0])
		}
		l.skip.b++
		l.skip.r += int64(b.Rows)
		return true, nil
	}
	l.fly[b.Seq] = &flight{input: i, k: k, from: b.Offset, to: b.Offset + int64(len(b.Data)), rows: b.Rows}
	return false, nil
}

// sending notes that b is being written, with its rows and tables as the
// worker's checks counted them (a batch in doubt found written counts
// those).
func (l *Live) Sending(b *load.Batch) {
	if l == nil {
		return
	}
	l.mu.Lock()
	if f := l.fly[b.Seq]; f != nil {
		f.sent, f.rows = true, b.Rows
		f.tables = append(f.tables[:0], b.Tables...)
	}
	l.mu.Unlock()
}

// ticket records b's ticket in the ticket log before b can commit.
func (l *Live) Ticket(b *load.Batch, t string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	f := l.fly[b.Seq]
	if f == nil {
		return nil // acknowledged already (a batch re-sent after a server crash)
	}
	f.sent = true
	f.tickets = append(f.tickets, t)
	f.tables = append(f.tables[:0], b.Tables...)
	if l.err != nil {
		return l.err
	}
	if l.log == nil {
		p := fmt.Sprintf("%s.tickets.%d", l.path, l.gen)
		lf, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			l.err = fmt.Errorf("journal: %w", err)
			return l.err
		}
		l.log = lf
	}
	line, err := json.Marshal(Batch{Input: f.input, Batch: f.k, Bytes: [2]int64{f.from, f.to}, Rows: f.rows, Tables: f.tables, Tickets: []string{t}, Run: l.run})
	if err != nil {
		return err
	}
	// One write: a kill leaves the line whole or (cut short) ignored.
	if _, err := l.log.Write(append(line, '\n')); err != nil {
		l.err = fmt.Errorf("journal: %w", err)
		return l.err
	}
	return nil
}

// acked records the server's answer to b: its batch is done, with the
// rows acknowledged (per table as the workers count them).
func (l *Live) Acked(b *load.Batch, ack load.Ack) {
	if l == nil {
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
	var metrics int64
	if b.Rows > 0 {
		metrics = int64(b.Metrics) * int64(acked) / int64(b.Rows) // as workerStats.record counts them
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	f := l.fly[b.Seq]
	if f == nil {
		return
	}
	if ack.Volatile {
		// Not durable yet: in doubt (with its tickets) until durable.
		f.volatile, f.sent = true, true
		f.ack.rows, f.ack.metrics = int64(acked), metrics
		f.ack.tables = append([]load.TableRows(nil), tables...)
		return
	}
	delete(l.fly, b.Seq)
	l.j.Partial = l.j.Partial || acked != b.Rows
	l.j.Metrics += metrics
	l.ackLocked(f.input, f.k, f.from, f.to, int64(acked), tables)
}

// NotWritten records that the server refused b at its one attempt, writing
// nothing of it (load.NotWritten): b is not in doubt, a resumed run sends
// it like a batch never sent.
func (l *Live) NotWritten(b *load.Batch) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if f := l.fly[b.Seq]; f != nil && !f.volatile {
		delete(l.fly, b.Seq)
	}
}

// durable records that b, acknowledged before it was durable, is durable
// now (load.Hooks.OnDurable).
func (l *Live) Durable(b *load.Batch) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f := l.fly[b.Seq]
	if f == nil || !f.volatile {
		return
	}
	delete(l.fly, b.Seq)
	l.j.Partial = l.j.Partial || f.ack.rows != int64(f.rows)
	l.j.Metrics += f.ack.metrics
	l.ackLocked(f.input, f.k, f.from, f.to, f.ack.rows, f.ack.tables)
}

// notDurable returns the batches and rows acknowledged and not known to
// be durable.
func (l *Live) NotDurable() (batches, rows int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, f := range l.fly {
		if f.volatile {
			batches++
			rows += f.ack.rows
		}
	}
	return batches, rows
}

func (l *Live) ackLocked(input int, k, from, to, rows int64, tables []load.TableRows) {
	in := &l.j.Inputs[input]
	in.Acked = AddRange(in.Acked, k, from, to, rows)
	l.j.Rows += rows
	for _, t := range tables {
		l.j.Tables[t.Name] += t.Rows
	}
}

// counted records tables counted before the load's first write to them;
// the snapshot is written before that write.
func (l *Live) Counted(before map[string]int64) error {
	l.mu.Lock()
	for k, v := range before {
		if _, ok := l.j.Before[k]; !ok {
			l.j.Before[k] = v
		}
	}
	l.mu.Unlock()
	if err := l.Snapshot(); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}

// tick writes a snapshot (every period until Close).
func (l *Live) tick() {
	if err := l.Snapshot(); err != nil {
		fmt.Fprintf(l.stderr, "journal: %v\n", err)
	}
}

// snapshot writes the  The ticket log segment open so far is
// closed: the snapshot carries its batches still in flight, so earlier
// segments are removed once it is written.
func (l *Live) Snapshot() error { return l.snapshot(false, "", false) }

func (l *Live) snapshot(final bool, status string, complete bool) error {
	l.write.Lock()
	defer l.write.Unlock()
	l.mu.Lock()
	j := l.j
	j.Inputs = make([]Input, len(l.j.Inputs))
	for i, in := range l.j.Inputs {
		in.Acked = append([]Range{}, in.Acked...)
		j.Inputs[i] = in
	}
	j.Tables, j.Before = copyCounts(l.j.Tables), copyCounts(l.j.Before)
	j.InDoubt = nil
	for _, f := range l.fly {
		if f.sent {
			j.InDoubt = append(j.InDoubt, Batch{Input: f.input, Batch: f.k, Bytes: [2]int64{f.from, f.to}, Rows: f.rows,
				Tables: append([]load.TableRows(nil), f.tables...), Tickets: append([]string(nil), f.tickets...), Run: l.run})
		}
	}
	for _, b := range l.pending {
		if _, ok := AckedIn(l.j.Inputs[b.Input].Acked, b.Batch); !ok {
			b.Tickets = append([]string(nil), b.Tickets...)
			j.InDoubt = append(j.InDoubt, b)
		}
	}
	j.Unsettled = l.unsettled
	sort.Slice(j.InDoubt, func(a, b int) bool {
		x, y := j.InDoubt[a], j.InDoubt[b]
		return x.Input < y.Input || x.Input == y.Input && x.Batch < y.Batch
	})
	if l.log != nil {
		l.log.Close()
		l.log = nil
		l.gen++
	}
	j.TicketsFrom = l.gen
	l.mu.Unlock()
	j.Final = final
	if status != "" {
		j.Status = status
		j.Complete = complete
	}
	j.Written = time.Now().UTC()
	data, err := json.MarshalIndent(j, "", " ")
	if err != nil {
		return err
	}
	if err := WriteAtomic(l.path, append(data, '\n')); err != nil {
		return err
	}
	segs, _ := TicketSegments(l.path)
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

// journalFlags is the results file's typed flag values as the text a
// flag is set from on resume (lists joined by commas, as loadcli reads
// them back).
func FlagText(flags map[string]any) map[string]string {
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

// Pending is how many batches earlier runs left in doubt (GatherInDoubt).
func (l *Live) Pending() int64 { return int64(len(l.pending)) }

// EarlierAcked is what earlier runs acknowledged (Continue), before the
// batches in doubt found written join it.
func (l *Live) EarlierAcked() (batches, rows int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, in := range l.j.Inputs {
		for _, rg := range in.Acked {
			rows += rg.Rows
			batches += rg.Batches[1] - rg.Batches[0] + 1
		}
	}
	return batches, rows
}

// Settle settles the batches in doubt by their tickets (SettleBy; without,
// they are sent again and stay in doubt until acknowledged). A batch found
// written is acknowledged (its metrics then unknown); the others are known
// not written, and nothing is in doubt but what this run sends.
func (l *Live) Settle(ctx context.Context) (written, lost int64, err error) {
	settle := l.settle
	if settle == nil {
		return 0, 0, nil
	}
	cands := map[[2]int64]*Batch{}
	for i := range l.pending {
		b := &l.pending[i]
		cands[[2]int64{int64(b.Input), b.Batch}] = b
	}
	if len(cands) > 0 {
		keys := make([][2]int64, 0, len(cands))
		var tickets []string
		for k, c := range cands {
			keys = append(keys, k)
			tickets = append(tickets, c.Tickets...)
		}
		answers, err := settle(ctx, tickets)
		if err != nil {
			return 0, 0, fmt.Errorf("settling the %d batches in doubt: %w", len(cands), err)
		}
		if len(answers) != len(tickets) {
			return 0, 0, fmt.Errorf("settling: %d answers for %d tickets", len(answers), len(tickets))
		}
		in := map[string]bool{}
		for i, t := range tickets {
			in[t] = in[t] || answers[i]
		}
		sort.Slice(keys, func(i, j int) bool {
			return keys[i][0] < keys[j][0] || keys[i][0] == keys[j][0] && keys[i][1] < keys[j][1]
		})
		l.mu.Lock()
		for _, k := range keys {
			c := cands[k]
			w := 0
			for _, t := range c.Tickets {
				if in[t] {
					w++
				}
			}
			if w > 1 {
				l.mu.Unlock()
				return written, lost, fmt.Errorf("%s: batch %d (byte offset %d) is written %d times", l.j.Inputs[c.Input].Path, c.Batch, c.Bytes[0], w)
			}
			if w == 0 {
				lost++
				continue
			}
			written++
			l.j.MetricsUnknown = true // the batch was not read again
			l.ackLocked(c.Input, c.Batch, c.Bytes[0], c.Bytes[1], int64(c.Rows), c.Tables)
		}
		l.mu.Unlock()
	}
	l.mu.Lock()
	l.pending, l.unsettled = nil, false
	l.mu.Unlock()
	return written, lost, nil
}

// Closed is what Close reports of the load.
type Closed struct {
	Rows                        int64 // acknowledged by every run of the load
	SkippedBatches, SkippedRows int64 // acknowledged earlier, read again and skipped
	NotDurableBatches           int64 // acknowledged and not known durable
	NotDurableRows              int64
}

// Close writes the run's last snapshot with its status; complete: the
// run ended with every batch answered and their rows counted in the server
// (verified), so a batch still not named durable (a target without
// OnDurable) was lost by no failure.
func (l *Live) Close(status string, complete bool) (Closed, error) {
	l.stop()
	if complete {
		l.mu.Lock()
		for seq, f := range l.fly {
			if f.volatile {
				l.mu.Unlock()
				l.Durable(&load.Batch{Seq: seq})
				l.mu.Lock()
			}
		}
		l.mu.Unlock()
	}
	err := l.snapshot(true, status, complete)
	l.mu.Lock()
	if l.log != nil {
		l.log.Close()
		l.log = nil
	}
	c := Closed{Rows: l.j.Rows, SkippedBatches: l.skip.b, SkippedRows: l.skip.r}
	l.mu.Unlock()
	c.NotDurableBatches, c.NotDurableRows = l.NotDurable()
	return c, err
}

// WholeLoad is what every run of the load acknowledged, per table, with
// the batches acknowledged and not known durable (in the server now).
func (l *Live) WholeLoad() (tables map[string]int64, rows int64, partial bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	tables = copyCounts(l.j.Tables)
	rows, partial = l.j.Rows, l.j.Partial
	for _, f := range l.fly {
		if f.volatile {
			rows += f.ack.rows
			partial = partial || f.ack.rows != int64(f.rows)
			for _, t := range f.ack.tables {
				tables[t.Name] += t.Rows
			}
		}
	}
	return tables, rows, partial
}

// WholeLoadMetrics returns the rows and metrics every run of the load
// acknowledged (metrics -1 when not all are known).
func (l *Live) WholeLoadMetrics() (rows, metrics int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	rows, metrics = l.j.Rows, l.j.Metrics
	for _, f := range l.fly {
		if f.volatile {
			rows += f.ack.rows
			metrics += f.ack.metrics
		}
	}
	if l.j.MetricsUnknown {
		return rows, -1
	}
	return rows, metrics
}
