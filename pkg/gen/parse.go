package gen

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Shard is this process's share of the series: shard Index (0-based) of
// Count. Shard i of M writes the entities (hosts, trucks, locations)
// [i*N/M, (i+1)*N/M) of the N at the configured scale.
type Shard struct {
	Index, Count int
}

// String formats s as "i/M".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// ParseShard parses "i/M" with 0 <= i < M (0-based, like a Kubernetes
// indexed Job's JOB_COMPLETION_INDEX).
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	if !ok {
		return Shard{}, fmt.Errorf("shard %q: want i/M, e.g. 0/4", s)
	}
	i, err1 := strconv.Atoi(a)
	m, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("shard %q: want i/M with integers, e.g. 0/4", s)
	}
	if m < 1 || i < 0 || i >= m {
		return Shard{}, fmt.Errorf("shard %q: want 0 <= i < M (shards are 0-based)", s)
	}
	return Shard{Index: i, Count: m}, nil
}

// ParseInterval parses a Go duration ("10s", "1h", "250ms"). The interval
// must be positive and a whole number of microseconds (COPY binary and CSV
// timestamps carry microseconds).
func ParseInterval(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("interval %q: %v", s, strings.TrimPrefix(err.Error(), "time: "))
	}
	if d <= 0 {
		return 0, fmt.Errorf("interval %q: must be positive", s)
	}
	if d%time.Microsecond != 0 {
		return 0, fmt.Errorf("interval %q: must be a whole number of microseconds", s)
	}
	return d, nil
}

// Earliest and Latest bound the timestamps that nanoseconds since the Unix
// epoch in an int64 can carry (with margin).
var (
	Earliest = time.Date(1678, 1, 1, 0, 0, 0, 0, time.UTC)
	Latest   = time.Date(2262, 1, 1, 0, 0, 0, 0, time.UTC)
)

// ParseTimestamp parses RFC 3339 ("2016-01-01T00:00:00Z", with an offset and
// optional fractional seconds) or a date ("2016-01-01", midnight UTC). The
// result is in UTC, a whole number of microseconds, within
// [Earliest, Latest).
func ParseTimestamp(s string) (time.Time, error) {
	var t time.Time
	var err error
	if len(s) == len("2006-01-02") {
		t, err = time.Parse("2006-01-02", s)
	} else {
		t, err = time.Parse(time.RFC3339Nano, s)
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("timestamp %q: want RFC 3339 (2016-01-01T00:00:00Z) or a date (2016-01-01)", s)
	}
	t = t.UTC()
	if t.Before(Earliest) || !t.Before(Latest) {
		return time.Time{}, fmt.Errorf("timestamp %q: out of range (%s to %s)", s, Earliest.Format("2006"), Latest.Format("2006"))
	}
	if t.Nanosecond()%1000 != 0 {
		return time.Time{}, fmt.Errorf("timestamp %q: at most 6 fractional digits (microseconds)", s)
	}
	return t, nil
}
