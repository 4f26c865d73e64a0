package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tsload/tsload/pkg/journal"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/results"
)

// The fake stores each batch sent once: a batch in doubt is sent again.
func (f *fakeTarget) InDoubt(context.Context, []string) (load.InDoubt, error) {
	return load.ResendInDoubt, nil
}

// resumeConfig is baseConfig with a results file (so a journal) in dir.
func resumeConfig(dir, input string) Config {
	cfg := baseConfig(input)
	cfg.ResultsFile = filepath.Join(dir, "results.json")
	return cfg
}

func resumeFrom(t *testing.T, cfg Config) Config {
	t.Helper()
	j, _, err := journal.Read(cfg.ResultsFile)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Resume = j
	return cfg
}

// stopAt runs cfg on f with batch seq refused (not retryable), a load the
// server stopped, which must fail; f acknowledges every batch after it.
func stopAt(t *testing.T, f *fakeTarget, cfg Config, seq int64) {
	t.Helper()
	f.fail = failAt(seq)
	if _, err := Run(context.Background(), cfg, f); err == nil {
		t.Fatalf("the load did not stop at refused batch %d", seq)
	}
	f.mu.Lock()
	f.fail = nil
	f.mu.Unlock()
}

func TestJournalOfAFinishedLoad(t *testing.T) {
	in, per := ilpInput(t, 10_000)
	dir := t.TempDir()
	f := newFake()
	res, err := Run(context.Background(), resumeConfig(dir, in), f)
	if err != nil {
		t.Fatal(err)
	}
	j, _, err := journal.Read(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !j.Final || !j.Complete || j.Status != results.StatusOK || j.LoadID != res.RunID || len(j.Runs) != 1 {
		t.Fatalf("journal final %v complete %v status %q load %q runs %v; run id %q", j.Final, j.Complete, j.Status, j.LoadID, j.Runs, res.RunID)
	}
	st, _ := os.Stat(in)
	if len(j.Inputs) != 1 || j.Inputs[0].Path != in || j.Inputs[0].Size != st.Size() || len(j.Inputs[0].Head) != 64 {
		t.Fatalf("input identity %+v", j.Inputs)
	}
	// 10 batches of 1,000 rows, written by 3 workers in any order: one range.
	want := []journal.Range{{Batches: [2]int64{1, 10}, Bytes: [2]int64{0, st.Size()}, Rows: 10_000}}
	if fmt.Sprint(j.Inputs[0].Acked) != fmt.Sprint(want) {
		t.Fatalf("acked %v, want %v", j.Inputs[0].Acked, want)
	}
	for m, n := range per {
		if j.Tables[m] != n {
			t.Fatalf("journal tables %v, want %v", j.Tables, per)
		}
	}
	if j.Rows != 10_000 || len(j.InDoubt) != 0 {
		t.Fatalf("journal rows %d, in doubt %v", j.Rows, j.InDoubt)
	}

	// Resumed anyway: nothing is sent, the whole load is verified.
	sent := len(f.batches)
	res, err = Run(context.Background(), resumeFrom(t, resumeConfig(dir, in)), f)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.batches) != sent || res.Rows != 0 || res.Resume == nil || res.Resume.SkippedRows != 10_000 || res.Resume.LoadRows != 10_000 {
		t.Fatalf("resume of a finished load sent %d batches, rows %d, resume %+v", len(f.batches)-sent, res.Rows, res.Resume)
	}
	if res.Verify == nil || !res.Verify.OK || res.Verify.Expected["cpu"] != per["cpu"] {
		t.Fatalf("verify %+v", res.Verify)
	}
}

// A run stopped by a refused batch is resumed: the acknowledged batches
// are not sent again, the rest is, and the count is exact.
func TestResumeAfterFailure(t *testing.T) {
	in, per := ilpInput(t, 20_000)
	dir := t.TempDir()
	f := newFake()
	stopAt(t, f, resumeConfig(dir, in), 9)
	f.mu.Lock()
	before := map[int64]int{}
	for b := range f.batches {
		before[b.Offset]++
	}
	f.mu.Unlock()
	res, err := Run(context.Background(), resumeFrom(t, resumeConfig(dir, in)), f)
	if err != nil {
		t.Fatal(err)
	}
	for m, n := range per {
		if f.rows[m] != n {
			t.Fatalf("table %s holds %d rows, want %d", m, f.rows[m], n)
		}
	}
	if res.Resume.SkippedRows+res.Rows != 20_000 || res.Resume.LoadRows != 20_000 || !res.Verify.OK {
		t.Fatalf("skipped %d + loaded %d rows; load rows %d; verify %+v", res.Resume.SkippedRows, res.Rows, res.Resume.LoadRows, res.Verify)
	}
	if len(res.Resume.Previous) != 1 || res.Resume.LoadID != res.Resume.Previous[0] {
		t.Fatalf("runs not linked: %+v", res.Resume)
	}
}

// A resume into another results file moves the journal there: the old
// one refuses to be resumed again (it does not know what the move loaded).
func TestResumeElsewhere(t *testing.T) {
	in, per := ilpInput(t, 8_000)
	dir := t.TempDir()
	f := newFake()
	stopAt(t, f, resumeConfig(dir, in), 4)
	cfg := resumeFrom(t, resumeConfig(dir, in))
	cfg.ResultsFile = filepath.Join(dir, "second.json")
	if _, err := Run(context.Background(), cfg, f); err != nil {
		t.Fatal(err)
	}
	if f.rows["cpu"] != per["cpu"] {
		t.Fatalf("cpu holds %d rows, want %d", f.rows["cpu"], per["cpu"])
	}
	_, _, err := journal.Read(filepath.Join(dir, "results.json"))
	if err == nil || !strings.Contains(err.Error(), "second.json.journal: resume that one") {
		t.Fatalf("old journal: %v", err)
	}
	if j, _, err := journal.Read(cfg.ResultsFile); err != nil || !j.Complete || len(j.Runs) != 2 {
		t.Fatalf("new journal: %+v, %v", j, err)
	}
}

func TestResumeRefused(t *testing.T) {
	in, _ := ilpInput(t, 5_000)
	dir := t.TempDir()
	f := newFake()
	stopAt(t, f, resumeConfig(dir, in), 3)
	cfg := resumeFrom(t, resumeConfig(dir, in))
	cfg.BatchSize = 500
	_, err := Run(context.Background(), cfg, f)
	var se *load.SettingError
	if !errors.As(err, &se) || fmt.Sprint(se.Settings()) != "[BatchSize]" {
		t.Fatalf("changed batch size: %v", err)
	}

	cfg = resumeFrom(t, resumeConfig(dir, in))
	cfg.Workers = 1 // may change
	cfg.Prepare.DropDB = true
	if _, err = Run(context.Background(), cfg, f); !errors.As(err, &se) || fmt.Sprint(se.Settings()) != "[DropDB]" {
		t.Fatalf("drop on resume: %v", err)
	}

	data, _ := os.ReadFile(in)
	os.WriteFile(in, append(data, "cpu,host=h1 a=1 1\n"...), 0o644)
	_, err = Run(context.Background(), resumeFrom(t, resumeConfig(dir, in)), f)
	if err == nil || !strings.Contains(err.Error(), "changed since the load began") || !strings.Contains(err.Error(), in) {
		t.Fatalf("changed input: %v", err)
	}
}

// ticketTarget is the fake with tickets: a batch's ticket is handed to
// the runner before it commits, and Settle answers from the commits.
type ticketTarget struct {
	*fakeTarget
	mu        sync.Mutex
	committed map[string]bool
	next      int
	lostAt    int64 // this batch commits, and its answer is lost
	failPrep  bool  // Prepare fails
	hook      func(*load.Batch, string) error
}

func (t *ticketTarget) Prepare(ctx context.Context, opts load.PrepareOptions) error {
	if t.failPrep {
		return errors.New("connection refused")
	}
	return t.fakeTarget.Prepare(ctx, opts)
}

func (t *ticketTarget) InDoubt(context.Context, []string) (load.InDoubt, error) {
	return load.SettleInDoubt, nil
}

func (t *ticketTarget) Hooks() load.Hooks {
	return load.Hooks{Settle: t.Settle, OnTicket: func(note func(*load.Batch, string) error) { t.hook = note }}
}

func (t *ticketTarget) Settle(_ context.Context, tickets []string) ([]bool, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]bool, len(tickets))
	for i, k := range tickets {
		out[i] = t.committed[k]
	}
	return out, nil
}

func (t *ticketTarget) NewWriter(ctx context.Context, worker int) (load.Writer, error) {
	w, err := t.fakeTarget.NewWriter(ctx, worker)
	return &ticketWriter{fakeWriter: w.(*fakeWriter), t: t, hook: t.hook}, err
}

type ticketWriter struct {
	*fakeWriter
	t    *ticketTarget
	hook func(*load.Batch, string) error
}

func (w *ticketWriter) Write(ctx context.Context, b *load.Batch) (load.Ack, error) {
	w.t.mu.Lock()
	w.t.next++
	ticket := fmt.Sprintf("t%d", w.t.next)
	w.t.mu.Unlock()
	if err := w.hook(b, ticket); err != nil {
		return load.Ack{}, err
	}
	ack, err := w.fakeWriter.Write(ctx, b)
	if err != nil {
		return ack, err
	}
	w.t.mu.Lock()
	w.t.committed[ticket] = true
	w.t.mu.Unlock()
	if b.Seq == w.t.lostAt {
		return load.Ack{}, errors.New("connection lost after COMMIT")
	}
	return ack, nil
}

// A batch committed whose answer was lost is settled by its ticket on
// resume: found written, not sent again.
func TestResumeSettlesByTicket(t *testing.T) {
	in, per := ilpInput(t, 20_000)
	dir := t.TempDir()
	tt := &ticketTarget{fakeTarget: newFake(), committed: map[string]bool{}, lostAt: 6}
	if _, err := Run(context.Background(), resumeConfig(dir, in), tt); err == nil {
		t.Fatal("no error")
	}
	j, _, _ := journal.Read(filepath.Join(dir, "results.json"))
	found := false
	for _, b := range j.InDoubt {
		found = found || len(b.Tickets) == 1 && b.Rows == 1000
	}
	if !found {
		t.Fatalf("the batch whose answer was lost is not in doubt with its ticket: %+v", j.InDoubt)
	}
	tt.lostAt = -1
	// A resume that fails before settling keeps the batches in doubt for
	// the next one.
	tt.failPrep = true
	if _, err := Run(context.Background(), resumeFrom(t, resumeConfig(dir, in)), tt); err == nil {
		t.Fatal("no error")
	}
	tt.failPrep = false
	j2, _, _ := journal.Read(filepath.Join(dir, "results.json"))
	if fmt.Sprint(j2.InDoubt) != fmt.Sprint(j.InDoubt) || len(j2.Runs) != 2 {
		t.Fatalf("after a failed resume, in doubt %+v, want %+v; runs %v", j2.InDoubt, j.InDoubt, j2.Runs)
	}
	cfg := resumeFrom(t, resumeConfig(dir, in))
	var stderr strings.Builder
	cfg.Stderr = &stderr
	res, err := Run(context.Background(), cfg, tt)
	if err != nil {
		t.Fatal(err)
	}
	// The batches found written are named once: not among those earlier
	// runs acknowledged.
	var acked int64
	for _, in := range j.Inputs {
		for _, rg := range in.Acked {
			acked += rg.Batches[1] - rg.Batches[0] + 1
		}
	}
	want := fmt.Sprintf(": %d batches (%d rows) acknowledged by earlier runs are read again and skipped; %d batches in doubt: %d found written",
		acked, j.Rows, res.Resume.InDoubt, res.Resume.SettledWritten)
	if !strings.Contains(stderr.String(), want) {
		t.Fatalf("summary lacks %q:\n%s", want, stderr.String())
	}
	for m, n := range per {
		if tt.rows[m] != n {
			t.Fatalf("table %s holds %d rows, want %d (a batch in doubt written twice or lost)", m, tt.rows[m], n)
		}
	}
	if res.Resume.SettledWritten < 1 || !res.Verify.OK {
		t.Fatalf("resume %+v, verify %+v", res.Resume, res.Verify)
	}
}

// Hash workers (batches of three streams interleave), a gzip input and a
// second input: the acknowledged batches are skipped by their place in
// each input's cut order; the worker count that routes them must not
// change.
func TestResumeHashWorkersCompressed(t *testing.T) {
	in1, per1 := ilpInput(t, 12_000)
	data, _ := os.ReadFile(in1)
	gz := filepath.Join(t.TempDir(), "data.ilp.gz")
	os.WriteFile(gz, gzipBytes(data), 0o644)
	in2, per2 := ilpInput(t, 9_000)
	dir := t.TempDir()
	cfg := func() Config {
		c := resumeConfig(dir, gz)
		c.Inputs = append(c.Inputs, in2)
		c.HashWorkers = true
		return c
	}
	f := newFake()
	stopAt(t, f, cfg(), 17)
	c := resumeFrom(t, cfg())
	c.Workers = 2
	_, err := Run(context.Background(), c, f)
	var se *load.SettingError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "routes its series to 3 workers") {
		t.Fatalf("changed worker count with hash workers: %v", err)
	}
	res, err := Run(context.Background(), resumeFrom(t, cfg()), f)
	if err != nil {
		t.Fatal(err)
	}
	for m := range per1 {
		if want := per1[m] + per2[m]; f.rows[m] != want {
			t.Fatalf("table %s holds %d rows, want %d", m, f.rows[m], want)
		}
	}
	if f.orderErr != nil {
		t.Fatal(f.orderErr)
	}
	if res.Resume.SkippedRows == 0 || res.Resume.LoadRows != 21_000 || !res.Verify.OK {
		t.Fatalf("resume %+v verify %+v", res.Resume, res.Verify)
	}
}

// volatileTarget is the fake whose server answers before the rows are
// durable (load.Ack.Volatile) and never says when they are (no
// OnDurable); like a server that overwrites identical points, it stores a
// batch sent again (the same input offset) once.
type volatileTarget struct {
	*fakeTarget
	seen sync.Map // batch offsets stored
}

func (t *volatileTarget) NewWriter(ctx context.Context, worker int) (load.Writer, error) {
	w, err := t.fakeTarget.NewWriter(ctx, worker)
	return &volatileWriter{w.(*fakeWriter), t}, err
}

type volatileWriter struct {
	*fakeWriter
	t *volatileTarget
}

func (w *volatileWriter) Write(ctx context.Context, b *load.Batch) (load.Ack, error) {
	if _, ok := w.t.seen.Load(b.Offset); ok {
		return load.Ack{Rows: b.Rows, Volatile: true}, nil
	}
	ack, err := w.fakeWriter.Write(ctx, b)
	if err == nil {
		w.t.seen.Store(b.Offset, true)
	}
	ack.Volatile = true
	return ack, err
}

// Batches acknowledged and not known durable: a failed run says how many
// rows those are and keeps their batches in doubt (the resume re-sends
// them); a run that ends ok counts them; verification counts them.
func TestVolatileAcknowledgements(t *testing.T) {
	in, per := ilpInput(t, 20_000)
	dir := t.TempDir()
	f := &volatileTarget{fakeTarget: newFake()}
	cfg := resumeConfig(dir, in)
	f.fail = failAt(9)
	first, err := Run(context.Background(), cfg, f)
	if err == nil {
		t.Fatal("the load did not stop at the refused batch")
	}
	f.mu.Lock()
	f.fail = nil
	f.mu.Unlock()
	j, _, err := journal.Read(cfg.ResultsFile)
	if err != nil {
		t.Fatal(err)
	}
	if first.Rows == 0 || first.NotDurableRows != first.Rows || j.Rows != 0 || len(j.InDoubt) == 0 {
		t.Fatalf("failed run: rows %d, not durable %d; journal rows %d, in doubt %d", first.Rows, first.NotDurableRows, j.Rows, len(j.InDoubt))
	}
	res, err := Run(context.Background(), resumeFrom(t, cfg), f)
	if err != nil {
		t.Fatal(err)
	}
	if res.NotDurableRows != 0 || res.Resume.LoadRows != 20_000 || !res.Verify.OK {
		t.Fatalf("resumed: not durable %d, load rows %d, verify %+v", res.NotDurableRows, res.Resume.LoadRows, res.Verify)
	}
	for m, n := range per {
		if f.rows[m] != n {
			t.Fatalf("table %s holds %d rows, want %d", m, f.rows[m], n)
		}
	}
	j, _, _ = journal.Read(cfg.ResultsFile)
	if j.Rows != 20_000 || len(j.InDoubt) != 0 || !j.Complete {
		t.Fatalf("journal after the resume: rows %d, in doubt %d, complete %v", j.Rows, len(j.InDoubt), j.Complete)
	}
}

// TestRefusedBatchNotInDoubt: a batch the target refuses at its one attempt
// with load.NotWritten (the server wrote nothing of it) is not left in
// doubt by the failed run; after an attempt without an answer (a
// retryable error) it is, as is a batch refused with an error that does
// not say nothing was written.
func TestRefusedBatchNotInDoubt(t *testing.T) {
	in, _ := ilpInput(t, 20_000)
	refuse := func(b *load.Batch, attempt int) (load.Ack, error) {
		switch {
		case b.Seq != 5:
			return load.Ack{Rows: b.Rows}, nil
		case attempt == 1:
			return load.Ack{}, load.NotWritten(errDisk)
		}
		return load.Ack{}, errDisk
	}
	lostThenRefused := func(b *load.Batch, attempt int) (load.Ack, error) {
		switch {
		case b.Seq != 5:
			return load.Ack{Rows: b.Rows}, nil
		case attempt == 1:
			return load.Ack{}, load.Retryable(errors.New("connection reset before the answer"))
		}
		return load.Ack{}, load.NotWritten(errDisk)
	}
	for _, c := range []struct {
		name   string
		fail   func(*load.Batch, int) (load.Ack, error)
		doubts int
	}{
		{"refused at its one attempt", refuse, 0},
		{"refused after an attempt without an answer", lostThenRefused, 1},
		{"failed without saying nothing was written", failAt(5), 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFake()
			cfg := resumeConfig(t.TempDir(), in)
			cfg.Workers = 1
			f.fail = c.fail
			if _, err := Run(context.Background(), cfg, f); !errors.Is(err, errDisk) {
				t.Fatalf("the load did not stop at the refused batch: %v", err)
			}
			j, _, err := journal.Read(cfg.ResultsFile)
			if err != nil {
				t.Fatal(err)
			}
			if len(j.InDoubt) != c.doubts || j.Rows != 4000 {
				t.Fatalf("journal: %d rows acknowledged, in doubt %+v; want 4000 and %d batches in doubt", j.Rows, j.InDoubt, c.doubts)
			}
		})
	}
}

// TestResumedRunNotDurable: a resumed run that fails again with rows
// acknowledged and not known durable names them apart from the load's
// durable rows (it read "0 rows acknowledged over 2 runs (9,000 by this
// one)").
func TestResumedRunNotDurable(t *testing.T) {
	in, _ := ilpInput(t, 20_000)
	dir := t.TempDir()
	f := &volatileTarget{fakeTarget: newFake()}
	cfg := resumeConfig(dir, in)
	cfg.Workers = 1
	f.fail = failAt(9)
	if _, err := Run(context.Background(), cfg, f); !errors.Is(err, errDisk) {
		t.Fatalf("the load did not stop at the refused batch: %v", err)
	}
	// The resume sends the 8 batches in doubt and batch 9 again, then
	// stops at its 10th batch.
	f.fail = failAt(10)
	rc := resumeFrom(t, cfg)
	var stderr strings.Builder
	rc.Stderr = &stderr
	res, err := Run(context.Background(), rc, f)
	if !errors.Is(err, errDisk) {
		t.Fatalf("the resumed run did not stop at the refused batch: %v\n%s", err, stderr.String())
	}
	if res.NotDurableRows != 9000 || res.Rows != 9000 {
		t.Fatalf("resumed run: %d rows acknowledged, %d not known durable; want 9000 and 9000\n%s", res.Rows, res.NotDurableRows, stderr.String())
	}
	want := fmt.Sprintf("load %s: 0 rows acknowledged and known durable over 2 runs; this one acknowledged 9,000, 9,000 of them not known durable\n", res.Resume.LoadID)
	if !strings.Contains(stderr.String(), want) {
		t.Fatalf("the summary lacks %q:\n%s", want, stderr.String())
	}
}
