package queryload

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/query"
)

// visibility is how far the input's rows are proven visible to queries,
// for a target whose acknowledgement does not mean visible
// (load.Hooks.AcksNotVisible: ILP over TCP, InfluxDB 3 with no_sync).
// upTo moves from the dataset's start to a later end once, for every
// table the mix reads, the database counts in [upTo, end) as many values
// of each field read as the acknowledged input holds there (the store's
// counts). Rows once visible stay visible, so every row before end is
// then visible and a window that ends there is checked over every row it
// should read; a surplus (a row stored twice) holds upTo back as a
// shortfall does. A watcher asks on a querier of its own every
// visibilityPoll; queries never wait for it: a checked window ends where
// visibility was proven (load.go's checkEnd).
type visibility struct {
	upTo atomic.Int64 // ns
	mu   sync.Mutex
	last string // the latest difference or error
	// behind: the final round's wait ended with rows not yet visible.
	behind bool
}

// visibilityPoll is the pause between two counts of the watcher.
const visibilityPoll = 50 * time.Millisecond

// visibilityWait bounds the final round's wait for the last rows to be
// counted: it gives up once the counts have not moved for this long.
const visibilityWait = 30 * time.Second

func newVisibility(start time.Time) *visibility {
	v := &visibility{}
	v.upTo.Store(start.UnixNano())
	return v
}

// note says what the results should know: checks that ended early.
func (v *visibility) note() string {
	if v == nil {
		return ""
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.behind {
		return ""
	}
	return fmt.Sprintf("acknowledged rows from %s on were not all visible within %s after the load (%s): the final round's windows end there",
		time.Unix(0, v.upTo.Load()).UTC().Format(time.RFC3339Nano), visibilityWait, v.last)
}

// watch proves visibility until ctx ends, on connection --query-workers
// (the final round's, which opens after).
func (ql *Load) watch(ctx context.Context) {
	q, err := ql.connect(ctx, ql.nw)
	if err != nil {
		if ctx.Err() == nil {
			ql.vis.set(fmt.Sprintf("connect: %v", err))
			fmt.Fprintf(ql.stderr, "query load: counting visible rows: connect: %v\n", err)
		}
		return
	}
	defer func() {
		if err := q.Close(); err != nil {
			fmt.Fprintf(ql.stderr, "query load: counting visible rows: close: %v\n", err)
		}
	}()
	t := time.NewTicker(visibilityPoll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ql.acked:
		}
		ql.prove(ctx, q)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// catchUp proves visibility up to the end of what was acknowledged, or
// until the counts stop moving for visibilityWait (final round).
func (ql *Load) catchUp(ctx context.Context, q load.Querier) {
	last, since := "", time.Now()
	for ctx.Err() == nil {
		end, _ := ql.checkEnd(false)
		if ql.vis.upTo.Load() >= end || ql.badData.Load() {
			return
		}
		moved, state := ql.prove(ctx, q)
		if moved || state != last {
			last, since = state, time.Now()
			continue
		}
		if time.Since(since) >= visibilityWait {
			ql.vis.mu.Lock()
			ql.vis.behind = true
			ql.vis.mu.Unlock()
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(visibilityPoll):
		}
	}
}

func (v *visibility) set(s string) {
	v.mu.Lock()
	v.last = s
	v.mu.Unlock()
}

// prove counts, for every table, the values of each grain of [upTo,
// end) in the database and in the store, and moves upTo to the first
// grain where they differ (end when none does). state says what was
// found (it changes while rows arrive).
func (ql *Load) prove(ctx context.Context, q load.Querier) (moved bool, state string) {
	end, _ := ql.checkEnd(false)
	from := ql.vis.upTo.Load()
	if end <= from {
		return false, ""
	}
	tables := make([]string, 0, len(ql.store.counts))
	for m := range ql.store.counts {
		tables = append(tables, m)
	}
	slices.Sort(tables)
	start, stop := time.Unix(0, from).UTC(), time.Unix(0, end).UTC()
	upTo := end
	for _, m := range tables {
		cq, want, ok := ql.store.counted(m, start, stop)
		if !ok {
			return false, "no counts"
		}
		ans, err := q.Query(ctx, cq)
		if err != nil {
			if ctx.Err() == nil {
				ql.vis.set(err.Error())
			}
			return false, "error"
		}
		got, dup := perGrain(ans, len(cq.Fields))
		g := int64(ql.store.grain)
		for t := from; t < upTo; t += g {
			w, d := want[t], got[t]
			if dup || !slices.Equal(w, d) {
				upTo = t
				ql.vis.set(fmt.Sprintf("%s counted %v of %v values of %v at %s", cq.Table, d, w, cq.Fields, time.Unix(0, t).UTC().Format(time.RFC3339Nano)))
				state += fmt.Sprintf("%s %d %v;", m, t, d)
				break
			}
		}
	}
	if upTo > from {
		ql.vis.upTo.Store(upTo)
		return true, state
	}
	return false, state
}

// perGrain reads a Count answer per bucket: the counts by bucket start,
// a bucket without a row (or a NULL) counted 0; dup: a bucket came twice.
func perGrain(a *query.Answer, n int) (map[int64][]float64, bool) {
	out := map[int64][]float64{}
	dup := false
	for _, r := range a.Rows {
		c := countsOf(&query.Answer{Rows: []query.Row{r}}, n)
		if slices.Equal(c, make([]float64, n)) {
			continue
		}
		k := r.Time.UnixNano()
		_, dup = out[k]
		out[k] = c
	}
	return out, dup
}
