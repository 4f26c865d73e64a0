package runner

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tsload/tsload/pkg/load"
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
// visibility was proven (query.go's checkEnd).
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
func (ql *queryLoad) watch(ctx context.Context) {
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
func (ql *queryLoad) catchUp(ctx context.Context, q load.Querier) {
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

// prove counts, for every table, the values of [upTo, end) in the
// database and in the store, and moves upTo to end when they agree. state
// says what was found (it changes while rows arrive).
func (ql *queryLoad) prove(ctx context.Context, q load.Querier) (moved bool, state string) {
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
		got := countsOf(ans, len(cq.Fields))
		if len(ans.Rows) > 1 || !slices.Equal(got, want) {
			state = fmt.Sprintf("%s: %v of %v over %s", cq.Table, got, want, cq.Fields)
			ql.vis.set(fmt.Sprintf("%s counted %v of %v values of %v from %s", cq.Table, got, want, cq.Fields, start.Format(time.RFC3339Nano)))
			return false, state
		}
	}
	ql.vis.upTo.Store(end)
	return true, ""
}
