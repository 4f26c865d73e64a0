package influx

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"
)

// v3Settle is how long Await waits for a count that has stopped moving,
// and v3AwaitMax how long it waits at most (variables for tests).
var (
	v3Settle   = 10 * time.Second
	v3AwaitMax = 2 * time.Minute
)

// Await waits, on InfluxDB 3, until the acknowledged rows are countable. A
// no_sync write is acknowledged before the write-ahead log is persisted and
// before its rows are in the queryable buffer: InfluxDB 3.6.0 counted
// 75,000 of 108,000 acknowledged rows right after a load, and all of them a
// moment later, so counting at once reported rows as missing and the
// recount as another client's writes. Writes that wait for the log lag too,
// less often: 3.6.0 counted 2,400 of 2,880 of them right after a load on a
// busy machine, 2,880 a second later. Await returns at the first count when
// every table holds what the runner expects (one count query per table),
// else once the counts have not moved for v3Settle (rows that overwrite
// points already there never arrive), or after v3AwaitMax; the count that
// follows decides. The 1.x and 2.x APIs need no wait.
func (t *Target) Await(ctx context.Context, want map[string]int64) error {
	if len(want) == 0 {
		return nil
	}
	a, err := t.theAPI(ctx)
	if err != nil || a.name() != APIv3 {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, v3AwaitMax)
	defer cancel()
	names := make([]string, 0, len(want))
	for n := range want {
		names = append(names, n)
	}
	sort.Strings(names)
	last, lastChange, pause := "", time.Now(), 50*time.Millisecond
	for {
		var lag []string
		var sig strings.Builder
		for _, n := range names {
			c, err := a.count(ctx, t, n)
			if err != nil {
				return err
			}
			if c < want[n] {
				lag = append(lag, fmt.Sprintf("%s has %d of %d rows", n, c, want[n]))
			}
			fmt.Fprintf(&sig, "%s#%d;", n, c)
		}
		if len(lag) == 0 {
			return nil
		}
		if s := sig.String(); s != last {
			last, lastChange = s, time.Now()
		} else if time.Since(lastChange) >= v3Settle {
			return fmt.Errorf("influx: acknowledged rows: nothing more became countable within %s: %s", v3Settle, strings.Join(lag, ", "))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("influx: acknowledged rows not all countable after %s: %s", v3AwaitMax, strings.Join(lag, ", "))
		case <-time.After(pause):
		}
		pause = min(2*pause, 500*time.Millisecond)
	}
}
