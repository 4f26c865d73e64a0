package verify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tsload/tsload/pkg/envinfo"
	"github.com/tsload/tsload/pkg/fingerprint"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/results"
	"github.com/tsload/tsload/pkg/retry"
	"github.com/tsload/tsload/pkg/schema"
)

// Content verification (docs/verify.md): each worker adds the rows it
// checks to its own fingerprint.Acc (Acc); a table that held rows before
// the run wrote to it is fingerprinted in the database when its rows are
// counted (Verifier.OnBefore = FingerprintBefore); after the load the
// workers' accumulators are merged, combined with what each table held
// before, and compared with the database's own aggregates
// (load.Target.Content). Where that cannot prove anything (a target
// without the aggregates, a resumed or looped run, rows refused by the
// server) it says so and the row counts are verified instead.

// Content is a run's content verification.
type Content struct {
	// Target answers the content queries; nil when Fallback is set.
	Target load.Target
	// Overwrites: the target keeps one point per (series, time) key.
	Overwrites bool
	// Fallback says why the counts are verified instead ("" when not).
	Fallback string
	// Verifier counts the tables (the counts are part of the proof).
	Verifier *Verifier
	Policy   retry.Policy // for the content queries, like Verifier.Policy
	Stderr   io.Writer
	// Query is what the database is asked about table name (prefixed, as
	// loaded): the fields and tags read (read), or else its schema.
	Query func(name string, read *fingerprint.Read) fingerprint.Query
	// FoldName and Await are the target's (load.Hooks).
	FoldName func(string) string
	Await    func(ctx context.Context, expected map[string]int64) error

	accs   []*fingerprint.Acc // one per worker
	mu     sync.Mutex
	before map[string]*fingerprint.Table // tables that held rows before the run wrote to them
	asked  map[string]bool               // tables whose before-query listed their tags
}

// NewContent is content verification for workers accumulators (keyed
// when overwrites); its other fields are the caller's to set.
func NewContent(workers int, overwrites bool) *Content {
	c := &Content{Overwrites: overwrites, before: map[string]*fingerprint.Table{}, asked: map[string]bool{}}
	c.accs = make([]*fingerprint.Acc, workers)
	for i := range c.accs {
		c.accs[i] = fingerprint.NewAcc(fingerprint.Options{Keys: overwrites})
	}
	return c
}

// CanContent reports whether t computes content fingerprints: asked with
// no queries, Content answers at once (load.Target).
func CanContent(t load.Target) bool {
	if t == nil {
		return false
	}
	_, err := t.Content(context.Background(), nil)
	return !errors.Is(err, errors.ErrUnsupported)
}

// Acc is worker id's accumulator (nil when nothing is fingerprinted).
func (c *Content) Acc(id int) *fingerprint.Acc {
	if c == nil || c.Fallback != "" {
		return nil
	}
	return c.accs[id]
}

// Read merges the workers' accumulators into the first (once the
// workers are done: no second copy of the key sets).
func (c *Content) Read() *fingerprint.Acc {
	merged := c.accs[0]
	for _, a := range c.accs[1:] {
		merged.Merge(a)
	}
	c.accs = c.accs[:1]
	return merged
}

// QueryFor is what the database is asked about table name (prefixed, as
// loaded) whose schema tb is (nil when not known): the fields and tags
// read, or else the table's schema. timeColumn names the time column when
// it is not the first.
func QueryFor(name string, tb *schema.Table, timeColumn string, read *fingerprint.Read) fingerprint.Query {
	q := fingerprint.Query{Table: name}
	if tb != nil {
		q.Time = tb.TimeColumn()
		if timeColumn != "" && slices.Contains(tb.ColumnNames(), timeColumn) {
			q.Time = timeColumn
		}
	}
	if read != nil {
		q.Tags = read.Tags
		for _, f := range read.Fields {
			q.Fields = append(q.Fields, fingerprint.FieldQuery{Name: f.Name, Kind: f.Kind})
		}
		return q
	}
	if tb != nil {
		for _, col := range tb.Columns {
			if col.Name == q.Time {
				continue
			}
			if col.Tag {
				q.Tags = append(q.Tags, col.Name)
				continue
			}
			q.Fields = append(q.Fields, fingerprint.FieldQuery{Name: col.Name, Kind: kindOf(col.Type)})
		}
		sort.Slice(q.Fields, func(i, j int) bool { return q.Fields[i].Name < q.Fields[j].Name })
	}
	return q
}

// FingerprintBefore is the Verifier's OnBefore: the tables among counts
// that hold rows are fingerprinted before the run writes to them (the
// fields and tags asked for are the table's schema where the run knows
// it; a table it does not know is asked for its rows and time range, and
// its fields and series are then not compared after the load).
func (c *Content) FingerprintBefore(ctx context.Context, counts map[string]int64) error {
	var qs []fingerprint.Query
	for n, rows := range counts {
		if rows > 0 {
			qs = append(qs, c.Query(n, nil))
		}
	}
	if len(qs) == 0 {
		return nil
	}
	sort.Slice(qs, func(i, j int) bool { return qs[i].Table < qs[j].Table })
	got, err := c.ask(ctx, qs)
	if err != nil {
		return fmt.Errorf("verify: fingerprinting %d tables before loading: %w", len(qs), err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, q := range qs {
		t := got[q.Table]
		if t == nil {
			t = &fingerprint.Table{Name: q.Table}
		}
		c.before[q.Table] = t
		c.asked[q.Table] = len(q.Tags) > 0
	}
	return nil
}

// ask calls the target's Content, retrying what it marks retryable.
func (c *Content) ask(ctx context.Context, qs []fingerprint.Query) (map[string]*fingerprint.Table, error) {
	p := c.Policy
	p.OnRetry = func(_ int, wait time.Duration, err error) {
		if c.Verifier != nil && c.Verifier.Retries != nil {
			c.Verifier.Retries.Add(1)
		}
		fmt.Fprintf(c.Stderr, "retrying the content query in %s: %v\n", wait.Round(time.Millisecond), err)
	}
	var got map[string]*fingerprint.Table
	err := p.Do(ctx, func(ctx context.Context) error {
		var err error
		got, err = c.Target.Content(ctx, qs)
		return err
	})
	var g *retry.GiveUpError
	if errors.As(err, &g) {
		err = g.Err
	}
	return got, err
}

// Verify is verification with content fingerprints: instead of the
// counts (which it includes) when content verification can run, the
// counts with a note when it cannot. prefix is the tables' prefix (the
// reader fingerprints names without it); dataset checks what was read
// against the input's description (nil: no such check).
func (c *Content) Verify(ctx context.Context, tot Acked, prefix string, dataset func(*fingerprint.Acc) error) (*results.Verification, error) {
	why := c.Fallback
	var merged *fingerprint.Acc
	if why == "" {
		merged = c.Read()
		switch {
		case tot.Partial:
			why = "the server refused some rows of a batch, and which ones is not known"
		case merged.Failed() != "":
			why = "the reader could not fingerprint the input: " + merged.Failed()
		}
	}
	reads := map[string]*fingerprint.Read{}
	if why == "" {
		if dataset != nil {
			if err := dataset(merged); err != nil {
				return &results.Verification{Mode: "content", Note: err.Error()}, err
			}
		}
		for n, rd := range merged.Result() {
			name := prefix + n
			rd.Name = name
			reads[name] = rd
		}
		for n, rows := range tot.Tables {
			if reads[n] == nil || reads[n].Rows != rows {
				why = fmt.Sprintf("the rows fingerprinted for %s differ from those acknowledged", n)
				break
			}
		}
	}
	if why == "" {
		if canon, _ := FoldTables(c.FoldName, sortedKeys(tot.Tables)); canon != nil {
			why = "table names that differ only in case are one table in this database, and the reader fingerprinted them apart"
		}
	}
	if why != "" {
		if c.Fallback == "" {
			fmt.Fprintf(c.Stderr, "verify: content verification is not possible (%s): verifying row counts only\n", why)
		}
		res, err := c.Verifier.Verify(ctx, tot)
		if res != nil {
			res.Mode = "count"
			res.Note = strings.TrimPrefix(res.Note+"; content not verified: "+why, "; ")
		}
		return res, err
	}
	return c.compare(ctx, reads)
}

func (c *Content) compare(ctx context.Context, reads map[string]*fingerprint.Read) (*results.Verification, error) {
	t0 := time.Now()
	names := sortedKeys(reads)
	res := &results.Verification{Mode: "content", Before: map[string]int64{}, Expected: map[string]int64{}, Actual: map[string]int64{}}
	res.Before = c.Verifier.Before(names)
	c.mu.Lock()
	exps := map[string]*fingerprint.Expect{}
	var qs []fingerprint.Query
	for _, n := range names {
		e := fingerprint.ExpectRead(reads[n], c.Overwrites)
		if b := c.before[n]; b != nil && b.Rows > 0 {
			e = fingerprint.Combine(b, e, c.Overwrites)
			if !c.asked[n] {
				e.SeriesHigh = math.MaxInt64 // the tags before were not known
			}
		} else if res.Before[n] > 0 {
			// Counted but not fingerprinted before (cannot happen: the
			// count and the fingerprint are taken together).
			e.RowsLow, e.Rows = e.RowsLow+res.Before[n], e.Rows+res.Before[n]
			e.FieldsUnproven = "the table held rows that were not fingerprinted before the load"
		}
		exps[n] = e
		res.Expected[n] = e.Rows
		qs = append(qs, c.Query(n, reads[n]))
	}
	c.mu.Unlock()
	if c.Await != nil {
		if err := c.Await(ctx, res.Expected); err != nil {
			fmt.Fprintf(c.Stderr, "verify: %v\n", err)
		}
	}
	found, err := c.ask(ctx, qs)
	res.Seconds = time.Since(t0).Seconds()
	if err != nil {
		res.Note = "content query failed: " + err.Error()
		return res, fmt.Errorf("verify: content: %w", err)
	}
	var bad []string
	res.OK = true
	for _, n := range names {
		e, f := exps[n], found[n]
		if f == nil {
			f = &fingerprint.Table{Name: n}
		}
		res.Actual[n] = f.Rows
		cmp := fingerprint.Compare(e, f)
		ch := results.ContentCheck{Table: n, OK: cmp.OK(), Rows: e.Rows, Series: e.Series, MinTime: e.MinTime, MaxTime: e.MaxTime, Fields: len(e.Fields), Notes: cmp.Notes}
		for _, m := range cmp.Mismatches {
			ch.Mismatches = append(ch.Mismatches, m.String())
		}
		if !ch.OK {
			res.OK = false
			bad = append(bad, ch.Mismatches...)
		}
		res.Content = append(res.Content, ch)
	}
	if !res.OK {
		return res, fmt.Errorf("verify FAILED: the database's content differs from what was loaded: %s", strings.Join(bad, "; "))
	}
	return res, nil
}

// kindOf is the fingerprint kind of a column type.
func kindOf(t schema.Type) fingerprint.Kind {
	switch t {
	case schema.Float8, schema.Float4:
		return fingerprint.Float
	case schema.Int8, schema.Int4:
		return fingerprint.Int
	case schema.Text:
		return fingerprint.String
	}
	return fingerprint.Float
}

// WriteRead prints what the workers fingerprinted of a run without a
// database (--do-load=false with content verification): what a load
// would compare, and what fingerprinting costs. It returns the merged
// accumulator, nil when the reader could not fingerprint the input.
func (c *Content) WriteRead(prefix string) *fingerprint.Acc {
	a := c.Read()
	if f := a.Failed(); f != "" {
		fmt.Fprintf(c.Stderr, "fingerprint: not possible: %s\n", f)
		return nil
	}
	res := a.Result()
	for _, n := range sortedKeys(res) {
		t := res[n]
		est := ""
		if !t.SeriesExact {
			est = " (estimated)"
		}
		fmt.Fprintf(c.Stderr, "fingerprint read: %s: %d rows, %d series%s, time %s to %s, %d fields\n", prefix+n, t.Rows, t.Series, est,
			time.Unix(0, t.MinTime).UTC().Format(time.RFC3339Nano), time.Unix(0, t.MaxTime).UTC().Format(time.RFC3339Nano), len(t.Fields))
	}
	return a
}

// CheckDataset compares what the workers read of the single input path
// with the fingerprint its dataset description carries (generate_data
// --fingerprint): a file damaged on disk, or read differently, differs.
// The check needs the whole file read: a load checks after sending (run
// with --do-load=false first to check before).
func CheckDataset(path string, a *fingerprint.Acc, stderr io.Writer) error {
	d, err := envinfo.ReadDataset(path)
	if err != nil || d == nil || len(d.Fingerprint) == 0 {
		return nil
	}
	reads := a.Result()
	var bad []string
	seen := map[string]bool{}
	for _, tf := range d.Fingerprint {
		seen[tf.Table] = true
		got := reads[tf.Table]
		if got == nil {
			got = &fingerprint.Read{Table: fingerprint.Table{Name: tf.Table}}
		}
		cmp := fingerprint.Compare(fingerprint.ExpectRead(tf.Read(), false), &got.Table)
		for _, m := range cmp.Mismatches {
			bad = append(bad, m.String())
		}
	}
	for n := range reads {
		if !seen[n] {
			bad = append(bad, fmt.Sprintf("table %q is not in the description", n))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s: the input differs from the fingerprint in %s%s (damaged since it was written?): %s", path, path, envinfo.SidecarSuffix, strings.Join(bad, "; "))
	}
	fmt.Fprintf(stderr, "fingerprint: the input matches %s%s (%d tables)\n", path, envinfo.SidecarSuffix, len(d.Fingerprint))
	return nil
}
