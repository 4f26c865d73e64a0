//go:build tonbo && cgo

package tonbo

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tsload/tsload/pkg/schema"
)

// padTable opens a new table m (time, tag host, text pad, integer n),
// its WAL on or off.
func padTable(t *testing.T, wal bool) *table {
	t.Helper()
	tb, err := newTable(t.TempDir(), &schema.Table{Name: "m", Columns: []schema.Column{
		{Name: "time", Type: schema.Timestamp}, {Name: "host", Type: schema.Text, Tag: true},
		{Name: "pad", Type: schema.Text}, {Name: "n", Type: schema.Int8},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := tb.open(wal); err != nil {
		t.Fatal(err)
	}
	return tb
}

// TestReopenCountsOnce writes more than one tonbo memtable (64 MB) with the
// WAL on, closes and reopens the table, as verification does, and scans.
// tonbo 0.3.2 writes a flush's memtables one after the other into one file
// (so the file is not sorted) and replays the WAL files of flushed rows at
// open (they stay until its version log is rewritten), so its scan returns
// those rows twice; the count and the sums must not.
func TestReopenCountsOnce(t *testing.T) {
	const hosts, times, pad = 2, 3000, 16 << 10 // 96 MB of rows
	tb := padTable(t, true)
	defer tb.close()
	text := bytes.Repeat([]byte("x"), pad)
	var e encoder
	e.reset()
	var sum int64
	for i := 0; i < times; i++ { // by time, as the data comes: every memtable holds every host
		for h := 0; h < hosts; h++ {
			c := e.row(tb)
			c[1] = cell{set: true, s: []byte{'a' + byte(h)}}
			c[2] = cell{set: true, s: text}
			c[3] = cell{set: true, i: int64(i*hosts + h)}
			sum += int64(i*hosts + h)
			e.put(tb, c, int64(i)*1e9)
		}
		if g := e.group(tb); g.rows >= 500 || i == times-1 {
			if err := tb.write(1, g.buf, g.rows); err != nil {
				t.Fatal(err)
			}
			e.reset()
		}
	}
	if err := tb.close(); err != nil {
		t.Fatal(err)
	}
	if err := tb.open(true); err != nil {
		t.Fatal(err)
	}
	s, err := tb.scan()
	if err != nil {
		t.Fatal(err)
	}
	if s.Rows != hosts*times || s.Series != hosts || s.MinTime != 0 || s.MaxTime != (times-1)*1e9 {
		t.Errorf("rows %d series %d time %d..%d; want %d, %d, 0..%d", s.Rows, s.Series, s.MinTime, s.MaxTime,
			hosts*times, hosts, int64(times-1)*1e9)
	}
	// The columns after the time: host, pad, n.
	if s.Counts[1] != hosts*times || s.IntLo[1] != uint64(hosts*times*pad) || s.Counts[2] != hosts*times ||
		s.IntHi[2] != 0 || s.IntLo[2] != uint64(sum) {
		t.Errorf("pad %d values, %d bytes; n %d values, sum %d:%d; want %d, %d; %d, %d", s.Counts[1], s.IntLo[1],
			s.Counts[2], s.IntHi[2], s.IntLo[2], hosts*times, hosts*times*pad, hosts*times, sum)
	}
}

// TestOverwriteAcrossMemtables: a row overwritten with other values after
// a memtable (64 MB) was frozen; the flush writes both memtables into one
// file and tonbo 0.3.2's scan returns both versions, in no order that
// tells the current one. The scan says so rather than counting either.
func TestOverwriteAcrossMemtables(t *testing.T) {
	const rows, pad = 6000, 16 << 10 // 96 MB of rows
	tb := padTable(t, false)
	defer tb.close()
	text := bytes.Repeat([]byte("x"), pad)
	var e encoder
	put := func(host string, ns, n int64) {
		c := e.row(tb)
		c[1] = cell{set: true, s: []byte(host)}
		c[2] = cell{set: true, s: text}
		c[3] = cell{set: true, i: n}
		e.put(tb, c, ns)
	}
	write := func() {
		if g := e.group(tb); g.rows > 0 {
			if err := tb.write(1, g.buf, g.rows); err != nil {
				t.Fatal(err)
			}
		}
		e.reset()
	}
	e.reset()
	put("z", 0, 1) // the key sorts last: the newer memtable's rows come before it in the file
	for i := 0; i < rows; i++ {
		put("a", int64(i), int64(i))
		if i%500 == 499 {
			write()
		}
	}
	put("z", 0, 2)
	write()
	if err := tb.close(); err != nil {
		t.Fatal(err)
	}
	if err := tb.open(false); err != nil {
		t.Fatal(err)
	}
	s, err := tb.scan()
	if err == nil || !strings.Contains(err.Error(), "twice with different values") {
		t.Errorf("scan: %+v, %v; want an error: the row overwritten after the freeze read twice", s, err)
	}
}
