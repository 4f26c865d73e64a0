package questdb

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/results"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// footprintMethod names QuestDB's accounting: table_storage() sums the
// files of a table's partitions (column files are allocated in append
// pages, cairo.writer.data.append.page.size, so a small table takes pages
// it has not filled). The files are not sparse: their allocated blocks
// (st_blocks) equal their size, so counting blocks would not tell the
// rows' own size either.
const footprintMethod = "QuestDB table_storage() diskSize"

// Footprint (load.Target.Footprint) is the sum of table_storage() diskSize over
// the named tables. A table it does not list is an error (the size of
// rows the server holds would be missing).
func (t *Target) Footprint(ctx context.Context, tables []string) (load.Size, error) {
	// Marked: a column file is counted as allocated, so a small load
	// shows pages it has not filled (not comparable with another
	// database's bytes per row as it is).
	sz := load.Size{Method: footprintMethod, Mark: results.MarkPreallocated}
	q, err := t.withQuerier(ctx)
	if err != nil {
		return sz, err
	}
	rows, err := q.query(ctx, "SELECT tableName, diskSize FROM table_storage()")
	if err != nil {
		return sz, fmt.Errorf("questdb: table_storage(): %w", err)
	}
	size := map[string]int64{}
	for _, r := range rows {
		if len(r) != 2 {
			return sz, fmt.Errorf("questdb: table_storage(): unexpected row %v", r)
		}
		n, err := strconv.ParseInt(r[1], 10, 64)
		if err != nil {
			return sz, fmt.Errorf("questdb: table_storage() diskSize of %q: %w", r[0], err)
		}
		size[r[0]] = n
	}
	var missing []string
	for _, n := range tables {
		b, ok := size[n]
		if !ok {
			missing = append(missing, n)
		}
		sz.Bytes += b
	}
	if len(missing) > 0 {
		return sz, fmt.Errorf("questdb: table_storage() does not list %s", strings.Join(missing, ", "))
	}
	return sz, nil
}

// ServerAddr (load.Target.ServerAddr) is the host:port of the HTTP URL, else
// of the PG-wire URL, else the ILP/TCP address: one server listens on all.
func (t *Target) ServerAddr() string {
	for _, raw := range []string{t.cfg.URL, t.cfg.PG} {
		if a := httpwrite.HostPort(raw); a != "" {
			return a
		}
	}
	return t.cfg.TCPAddr
}
