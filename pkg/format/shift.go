package format

import (
	"math"
	"strconv"
)

// TimeError is a line (ILP), record (CSV) or tuple (pgcopy) whose time
// cannot be read or shifted by the format packages' TimeRange and
// AppendShifted: N is its 1-based number within the data given, Unit what
// N counts.
type TimeError struct {
	Unit   string
	N      int
	Reason string
}

func (e *TimeError) Error() string { return e.Unit + " " + strconv.Itoa(e.N) + ": " + e.Reason }

// TimeRange returns the smallest and largest of the times that each passes
// to add; ok is false when it passes none. each returns the first error of
// reading its times.
func TimeRange(each func(add func(t int64)) error) (lo, hi int64, ok bool, err error) {
	lo, hi = math.MaxInt64, math.MinInt64
	err = each(func(t int64) { lo, hi, ok = min(lo, t), max(hi, t), true })
	return lo, hi, ok, err
}

// Shift returns t moved by delta; ok is false when that leaves int64.
func Shift(t, delta int64) (s int64, ok bool) {
	s = t + delta
	return s, !(delta > 0 && s < t) && !(delta < 0 && s > t)
}
