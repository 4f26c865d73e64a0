package runner

import (
	"bytes"
	"strings"
	"sync"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/format/ilp"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/schema"
)

// prefixer loads every table under Config.TablePrefix: a worker rewrites
// each batch before counting and writing it (ILP lines get the prefix
// before their measurement, a CSV or pgcopy batch a renamed table, every
// per-table count the prefixed name) and puts the batch back as the
// splitter made it afterwards. An ILP batch is sent zero-copy from the
// reader's bytes; a prefix costs a copy of each batch into a buffer of
// its own, kept by the batch's job (job.go), so only runs that ask pay.
type prefixer struct {
	prefix string

	mu     sync.Mutex
	tables map[string]*schema.Table // prefixed copies, by the unprefixed table's name and columns (layoutKey: tables of one name may differ, the one created puts the time column first)
}

func newPrefixer(prefix string) *prefixer {
	if prefix == "" {
		return nil
	}
	return &prefixer{prefix: prefix, tables: map[string]*schema.Table{}}
}

// table returns tb under the prefix (one copy per table).
func (p *prefixer) table(tb *schema.Table) *schema.Table {
	if p == nil || tb == nil {
		return tb
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.tables[tableKey(tb)]
	if c == nil {
		c = &schema.Table{Name: p.prefix + tb.Name, Columns: tb.Columns}
		p.tables[tableKey(tb)] = c
	}
	return c
}

// tableKey names a table by its name and columns (a splitter opened again
// for a later input or pass makes tables of its own).
func tableKey(t *schema.Table) string {
	return t.Name + "\x00" + strings.Join(t.ColumnNames(), ",")
}

// tableList returns tables under the prefix.
func (p *prefixer) tableList(tables []*schema.Table) []*schema.Table {
	if p == nil {
		return tables
	}
	out := make([]*schema.Table, len(tables))
	for i, tb := range tables {
		out[i] = p.table(tb)
	}
	return out
}

// apply rewrites b under the prefix, into buf, and returns what puts it
// back; b's Hold (the reader's memory) stays as it is until b is released.
func (p *prefixer) apply(b *load.Batch, buf *scratch) (restore func()) {
	if p == nil {
		return func() {}
	}
	data, tables, table := b.Data, b.Tables, b.Table
	if b.Format == format.ILP {
		buf.data = ilp.AppendPrefixed(buf.data[:0], b.Data, p.prefix)
		b.Data = buf.data
	}
	b.Table = p.table(b.Table)
	buf.tables = buf.tables[:0]
	for _, t := range b.Tables {
		buf.tables = append(buf.tables, load.TableRows{Name: p.prefix + t.Name, Rows: t.Rows})
	}
	b.Tables = buf.tables
	return func() { b.Data, b.Tables, b.Table = data, tables, table }
}

// unprefixed takes the prefix off a line as sent, for the errors file:
// the line as the input has it, so that it loads again with the prefix.
func (p *prefixer) unprefixed(line []byte) []byte {
	if p == nil {
		return line
	}
	return bytes.TrimPrefix(line, []byte(p.prefix))
}
