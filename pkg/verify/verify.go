// Package verify proves a load's rows in the database: it counts every
// table before the load first writes to it and after the load, and judges
// the difference against the rows acknowledged, telling a loss from
// another writer, from points an overwriting target stores once (with the
// input's distinct keys, KeyCount) and from table names the target folds
// together (FoldTables). With content verification (Content) it compares
// the rows read with the database's own aggregates instead. Every count
// and query is retried like a batch.
package verify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/results"
	"github.com/tsload/tsload/pkg/retry"
)

// Verifier proves a run's rows: it counts every table before the run first
// writes to it (CountBefore) and after the load (Verify), and judges the
// difference against the rows acknowledged. Every count is retried within
// the run's retry budget while the target marks its error retryable (a
// server restarting, a stale connection), like a batch.
type Verifier struct {
	Target load.Target
	Hooks  load.Hooks // Target's
	// Dropped: the tables are dropped before loading and start empty.
	Dropped bool
	Policy  retry.Policy
	Retries *atomic.Int64 // the run's retry counter
	Stderr  io.Writer

	// OnCounted, when set, is given the tables counted before their first
	// write (the journal records them before that write).
	OnCounted func(before map[string]int64) error
	// OnBefore, when set, is given the counts of the tables just counted
	// before their first write, to fingerprint them.
	OnBefore func(ctx context.Context, counts map[string]int64) error
	// Distinct, when set, counts the input's distinct (series, time)
	// keys per table, or says why it cannot.
	Distinct func(ctx context.Context, names []string) (*KeyCount, string)
	// Content is the run's content verification (nil when not asked).
	Content *Content

	mu     sync.Mutex
	before map[string]int64 // rows in each table before this run wrote to it
}

// RecountPause is how long verification waits before counting a table
// again to tell another writer from a loss (a variable for tests).
var RecountPause = time.Second

// CountBefore counts the tables among names not counted yet, before this
// run writes to them, so that verification can prove what this run added
// to tables that already held rows. Workers call it before each batch; it
// asks the database once per table.
func (v *Verifier) CountBefore(ctx context.Context, names []string) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.before == nil {
		v.before = map[string]int64{}
	}
	var todo []string
	for _, n := range names {
		if _, ok := v.before[n]; !ok {
			todo = append(todo, n)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	if v.Dropped {
		// Dropped tables start empty; a target may drop a table only when
		// a batch first names it (ILP), after this count would be taken.
		// A table the target leaves alone (load.Hooks.Drops) is counted.
		drops := v.Hooks.Drops
		var zero, kept []string
		for _, n := range todo {
			if drops == nil || drops(n) {
				v.before[n] = 0
				zero = append(zero, n)
			} else {
				kept = append(kept, n)
			}
		}
		if len(zero) > 0 {
			if err := v.counted(zero); err != nil {
				return err
			}
		}
		if todo = kept; len(todo) == 0 {
			return nil
		}
	}
	sort.Strings(todo)
	counts, err := v.count(ctx, todo)
	if err != nil {
		return fmt.Errorf("verify: counting %s before loading: %w", strings.Join(todo, ", "), err)
	}
	for _, n := range todo {
		v.before[n] = counts[n]
	}
	if v.OnBefore != nil {
		if err := v.OnBefore(ctx, counts); err != nil {
			return err
		}
	}
	return v.counted(todo)
}

// counted hands the counts of names to onCounted.
func (v *Verifier) counted(names []string) error {
	if v.OnCounted == nil {
		return nil
	}
	m := make(map[string]int64, len(names))
	for _, n := range names {
		m[n] = v.before[n]
	}
	return v.OnCounted(m)
}

// Acked are the rows the server acknowledged: per table, in all, and
// whether some batch was written partially (its rows per table are then
// estimates).
type Acked struct {
	Tables  map[string]int64
	Rows    int64
	Partial bool
}

// Before returns the rows each of names held before this run wrote to it.
func (v *Verifier) Before(names []string) map[string]int64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := make(map[string]int64, len(names))
	for _, n := range names {
		out[n] = v.before[n]
	}
	return out
}

// SetBefore sets the rows the tables held before the load first wrote to
// them (a resumed load's, from its journal): they are not counted again.
func (v *Verifier) SetBefore(before map[string]int64) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.before = make(map[string]int64, len(before))
	for k, n := range before {
		v.before[k] = n
	}
}

// Verify proves what this run added: for every table, the rows counted
// after the load minus those counted before it equal the rows acknowledged.
// More rows than that, or a count that still moves once this run is done,
// means another client writes into the same tables: reported as such, not
// as data loss. On a target that overwrites identical points
// (load.Hooks.Overwrites), fewer rows than acknowledged in a table that held rows
// before can be points written again: reported, but not as a failure. The
// returned Verification is set whenever counting was attempted.
func (v *Verifier) Verify(ctx context.Context, tot Acked) (*results.Verification, error) {
	t0 := time.Now()
	canon, foldNote := FoldTables(v.Hooks.FoldName, sortedKeys(tot.Tables))
	if canon != nil {
		tot = tot.Fold(canon)
		fmt.Fprintf(v.Stderr, "verify: %s\n", foldNote)
	}
	names := sortedKeys(tot.Tables)
	v.mu.Lock()
	before := map[string]int64{}
	for _, n := range names {
		before[n] = v.before[n]
	}
	v.mu.Unlock()
	expected := map[string]int64{}
	for _, n := range names {
		expected[n] = before[n] + tot.Tables[n]
	}
	res := &results.Verification{Before: before, Expected: expected, Actual: map[string]int64{}, Note: foldNote}
	if v.Hooks.Await != nil {
		if err := v.Hooks.Await(ctx, expected); err != nil {
			fmt.Fprintf(v.Stderr, "verify: %v\n", err)
		}
	}
	actual, err := v.count(ctx, names)
	res.Seconds = time.Since(t0).Seconds()
	if err != nil {
		res.Note = joinNotes(res.Note, "counting failed: "+err.Error())
		return res, fmt.Errorf("verify: counting rows: %w", err)
	}
	for _, n := range names {
		res.Actual[n] = actual[n]
	}
	if tot.Partial {
		// Rejections cannot be attributed to tables: compare the totals.
		res.Note = joinNotes(res.Note, "partial writes: per-table expectations are estimates; the total is compared")
		var b, a int64
		for _, n := range names {
			b += before[n]
			a += actual[n]
		}
		return res, v.judge(ctx, res, names, map[string]int64{"all tables": b}, map[string]int64{"all tables": tot.Rows}, map[string]int64{"all tables": a}, nil)
	}
	return res, v.judge(ctx, res, names, before, tot.Tables, actual, actual)
}

// judge compares after-before with acked per key and sets res. Four cases
// per key: exact; more rows (another writer); fewer rows in a table of an
// overwriting target that held rows (points written again); fewer rows
// otherwise (a loss). recount, when not nil, holds the counts per table to
// compare a second count with when the first does not add up.
func (v *Verifier) judge(ctx context.Context, res *results.Verification, names []string, before, acked, after, recount map[string]int64) error {
	overwrites := v.Hooks.Overwrites
	var lost, other, rewritten, repeated []string
	keys := make([]string, 0, len(acked))
	for k := range acked {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// Fewer rows on an overwriting target: the input's distinct keys
	// (distinct.go) tell repeated keys from lost rows.
	var kc *KeyCount
	var noKeys string
	if overwrites && recount != nil && v.Distinct != nil && anyShort(keys, before, acked, after) {
		kc, noKeys = v.Distinct(ctx, keys)
		if kc != nil {
			res.Seconds += kc.Seconds
		}
	}
	for _, k := range keys {
		added := after[k] - before[k]
		d, known := kc.of(k, acked[k])
		switch {
		case added == acked[k]:
		case added > acked[k]:
			other = append(other, fmt.Sprintf("%s: %d rows before, %d acknowledged, %d after (%d this run did not write)", k, before[k], acked[k], after[k], added-acked[k]))
		case known && after[k] == before[k]+d:
			repeated = append(repeated, fmt.Sprintf("%s: %d rows acknowledged, %d distinct (series, time) keys, %d rows repeat one", k, acked[k], d, acked[k]-d))
			res.Expected[k] = before[k] + d
		case known && before[k] > 0 && after[k] >= max(before[k], d):
			rewritten = append(rewritten, fmt.Sprintf("%s: %d rows before, %d acknowledged (%d distinct keys), %d after", k, before[k], acked[k], d, after[k]))
		case !known && overwrites && before[k] > 0 && added >= 0:
			rewritten = append(rewritten, fmt.Sprintf("%s: %d rows before, %d acknowledged, %d after", k, before[k], acked[k], after[k]))
		default:
			lost = append(lost, fmt.Sprintf("%s: %d rows before + %d acknowledged = %d expected, database has %d%s", k, before[k], acked[k], before[k]+acked[k], after[k], kc.shortBy(k, acked[k], before[k], after[k])))
		}
	}
	if noKeys != "" && len(lost) > 0 {
		lost = append(lost, "the input's distinct (series, time) keys were not counted: "+noKeys)
	}
	if (len(lost) > 0 || len(other) > 0) && recount != nil {
		// A count that moves while this run writes nothing is another
		// writer's doing.
		select {
		case <-time.After(RecountPause):
		case <-ctx.Done():
		}
		if again, err := v.count(ctx, names); err == nil {
			for _, n := range names {
				if again[n] != recount[n] {
					other = append(other, fmt.Sprintf("%s: count moved from %d to %d after this run had finished", n, recount[n], again[n]))
				}
			}
		}
	}
	switch {
	case len(other) > 0:
		res.Note = joinNotes(res.Note, "another client writes into the same tables: counts cannot prove this run's rows")
		return fmt.Errorf("verify FAILED: another client changed the tables during the load (not a loss by this run): %s", strings.Join(append(other, lost...), "; "))
	case len(lost) > 0:
		return fmt.Errorf("verify FAILED: row counts differ from the rows acknowledged: %s", strings.Join(lost, "; "))
	}
	res.OK = true
	if len(repeated) > 0 {
		note := "the input repeats (series, time) keys, which the target stores as one point, and the database holds exactly the distinct keys: " + strings.Join(repeated, "; ") + " (" + kc.Cost() + ")"
		res.Note = joinNotes(res.Note, note)
		fmt.Fprintf(v.Stderr, "verify: %s\n", note)
	}
	if len(rewritten) > 0 {
		note := "the target overwrites identical points and these tables held rows before: acknowledged rows not added to a count replaced points already there (counts cannot tell them from lost ones): " + strings.Join(rewritten, "; ")
		res.Note = joinNotes(res.Note, note)
		fmt.Fprintf(v.Stderr, "verify: %s\n", note)
	}
	return nil
}

// count calls the target's Count, retrying what it marks retryable with
// the same back-off and time bound as a batch.
func (v *Verifier) count(ctx context.Context, names []string) (map[string]int64, error) {
	p := v.Policy
	p.OnRetry = func(_ int, wait time.Duration, err error) {
		v.Retries.Add(1)
		fmt.Fprintf(v.Stderr, "retrying the row count in %s: %v\n", wait.Round(time.Millisecond), err)
	}
	var actual map[string]int64
	err := p.Do(ctx, func(ctx context.Context) error {
		var err error
		actual, err = v.Target.Count(ctx, names)
		return err
	})
	var g *retry.GiveUpError
	if errors.As(err, &g) {
		err = g.Err // the count's own error says what failed
	}
	return actual, err
}

// joinNotes joins two notes of a verification with "; ".
func joinNotes(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
