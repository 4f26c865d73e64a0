package runner

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
	"github.com/tsload/tsload/pkg/schema"
)

// verifier proves a run's rows: it counts every table before the run first
// writes to it (countBefore) and after the load (verify), and judges the
// difference against the rows acknowledged. Every count is retried within
// the run's retry budget while the target marks its error retryable (a
// server restarting, a stale connection), like a batch.
type verifier struct {
	target load.Target
	hooks  load.Hooks // target's
	// dropped: the tables are dropped before loading and start empty.
	dropped bool
	policy  retry.Policy
	retries *atomic.Int64 // the run's retry counter
	stderr  io.Writer

	// onCounted, when set, is given the tables counted before their first
	// write (the journal records them before that write).
	onCounted func(before map[string]int64) error
	// onBefore, when set, is given the counts of the tables just counted
	// before their first write, to fingerprint them (content.go).
	onBefore func(ctx context.Context, counts map[string]int64) error
	// distinct, when set, counts the input's distinct (series, time)
	// keys per table (run.distinctKeys), or says why it cannot.
	distinct func(ctx context.Context, names []string) (*keyCount, string)

	mu     sync.Mutex
	before map[string]int64 // rows in each table before this run wrote to it
}

// recountPause is how long verification waits before counting a table
// again to tell another writer from a loss (a variable for tests).
var recountPause = time.Second

// countBefore counts the tables among names not counted yet, before this
// run writes to them, so that verification can prove what this run added
// to tables that already held rows. Workers call it before each batch; it
// asks the database once per table.
func (v *verifier) countBefore(ctx context.Context, names []string) error {
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
	if v.dropped {
		// Dropped tables start empty; a target may drop a table only when
		// a batch first names it (ILP), after this count would be taken.
		// A table the target leaves alone (load.Hooks.Drops) is counted.
		drops := v.hooks.Drops
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
	if v.onBefore != nil {
		if err := v.onBefore(ctx, counts); err != nil {
			return err
		}
	}
	return v.counted(todo)
}

// counted hands the counts of names to onCounted.
func (v *verifier) counted(names []string) error {
	if v.onCounted == nil {
		return nil
	}
	m := make(map[string]int64, len(names))
	for _, n := range names {
		m[n] = v.before[n]
	}
	return v.onCounted(m)
}

// verify proves what this run added: for every table, the rows counted
// after the load minus those counted before it equal the rows acknowledged.
// More rows than that, or a count that still moves once this run is done,
// means another client writes into the same tables: reported as such, not
// as data loss. On a target that overwrites identical points
// (load.Hooks.Overwrites), fewer rows than acknowledged in a table that held rows
// before can be points written again: reported, but not as a failure. The
// returned Verification is set whenever counting was attempted.
func (v *verifier) verify(ctx context.Context, tot totals) (*results.Verification, error) {
	t0 := time.Now()
	canon, foldNote := foldTables(v.hooks.FoldName, sortedKeys(tot.tables))
	if canon != nil {
		tot = tot.fold(canon)
		fmt.Fprintf(v.stderr, "verify: %s\n", foldNote)
	}
	names := sortedKeys(tot.tables)
	v.mu.Lock()
	before := map[string]int64{}
	for _, n := range names {
		before[n] = v.before[n]
	}
	v.mu.Unlock()
	expected := map[string]int64{}
	for _, n := range names {
		expected[n] = before[n] + tot.tables[n]
	}
	res := &results.Verification{Before: before, Expected: expected, Actual: map[string]int64{}, Note: foldNote}
	if v.hooks.Await != nil {
		if err := v.hooks.Await(ctx, expected); err != nil {
			fmt.Fprintf(v.stderr, "verify: %v\n", err)
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
	if tot.partial {
		// Rejections cannot be attributed to tables: compare the totals.
		res.Note = joinNotes(res.Note, "partial writes: per-table expectations are estimates; the total is compared")
		var b, a int64
		for _, n := range names {
			b += before[n]
			a += actual[n]
		}
		return res, v.judge(ctx, res, names, map[string]int64{"all tables": b}, map[string]int64{"all tables": tot.rows}, map[string]int64{"all tables": a}, nil)
	}
	return res, v.judge(ctx, res, names, before, tot.tables, actual, actual)
}

// judge compares after-before with acked per key and sets res. Four cases
// per key: exact; more rows (another writer); fewer rows in a table of an
// overwriting target that held rows (points written again); fewer rows
// otherwise (a loss). recount, when not nil, holds the counts per table to
// compare a second count with when the first does not add up.
func (v *verifier) judge(ctx context.Context, res *results.Verification, names []string, before, acked, after, recount map[string]int64) error {
	overwrites := v.hooks.Overwrites
	var lost, other, rewritten, repeated []string
	keys := make([]string, 0, len(acked))
	for k := range acked {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// Fewer rows on an overwriting target: the input's distinct keys
	// (distinct.go) tell repeated keys from lost rows.
	var kc *keyCount
	var noKeys string
	if overwrites && recount != nil && v.distinct != nil && anyShort(keys, before, acked, after) {
		kc, noKeys = v.distinct(ctx, keys)
		if kc != nil {
			res.Seconds += kc.seconds
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
		case <-time.After(recountPause):
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
		note := "the input repeats (series, time) keys, which the target stores as one point, and the database holds exactly the distinct keys: " + strings.Join(repeated, "; ") + " (" + kc.cost() + ")"
		res.Note = joinNotes(res.Note, note)
		fmt.Fprintf(v.stderr, "verify: %s\n", note)
	}
	if len(rewritten) > 0 {
		note := "the target overwrites identical points and these tables held rows before: acknowledged rows not added to a count replaced points already there (counts cannot tell them from lost ones): " + strings.Join(rewritten, "; ")
		res.Note = joinNotes(res.Note, note)
		fmt.Fprintf(v.stderr, "verify: %s\n", note)
	}
	return nil
}

// count calls the target's Count, retrying what it marks retryable with
// the same back-off and time bound as a batch.
func (v *verifier) count(ctx context.Context, names []string) (map[string]int64, error) {
	p := v.policy
	p.OnRetry = func(_ int, wait time.Duration, err error) {
		v.retries.Add(1)
		fmt.Fprintf(v.stderr, "retrying the row count in %s: %v\n", wait.Round(time.Millisecond), err)
	}
	var actual map[string]int64
	err := p.Do(ctx, func(ctx context.Context) error {
		var err error
		actual, err = v.target.Count(ctx, names)
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

func tableNames(tables []*schema.Table) []string {
	out := make([]string, len(tables))
	for i, t := range tables {
		out[i] = t.Name
	}
	return out
}

func batchTables(b *load.Batch) []string {
	out := make([]string, len(b.Tables))
	for i, t := range b.Tables {
		out[i] = t.Name
	}
	return out
}
