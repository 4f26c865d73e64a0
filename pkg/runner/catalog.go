package runner

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/schema"
)

// catalog is what the database says of the tables the inputs name
// (load.Hooks.Catalog): a table that exists decides the columns and types an
// input is loaded with, not a use case of the same name, which only
// describes a table to create. The splitter asks by name (Config.Lookup,
// without the context it cannot take), so the catalog keeps the first
// error for the runner to return once the inputs are open.
type catalog struct {
	ctx    context.Context
	cat    func(ctx context.Context, opts load.PrepareOptions, name string) (*load.CatalogTable, error)
	opts   load.PrepareOptions
	prefix string
	base   func(string) *schema.Table // the use cases (Config.Lookup)
	cols   []string                   // load.Mapping.Columns

	mu     sync.Mutex
	tables map[string]*load.CatalogTable // by unprefixed name; nil: none
	asked  map[string]bool
	err    error
}

// newCatalog is the run's catalog: nil when the target has none, or when
// the tables are dropped first (DropDB) and only the use case or the
// input can describe them.
func (r *run) newCatalog(ctx context.Context) *catalog {
	cat := r.hooks.Catalog
	if cat == nil || r.cfg.Prepare.DropDB {
		return nil
	}
	return &catalog{ctx: ctx, cat: cat, opts: r.cfg.Prepare, prefix: r.cfg.TablePrefix, base: r.cfg.Lookup,
		cols: r.cfg.Mapping.Columns, tables: map[string]*load.CatalogTable{}, asked: map[string]bool{}}
}

// table returns the database's table name (unprefixed), nil when it does
// not exist (or the catalog failed: see failed).
func (c *catalog) table(name string) *load.CatalogTable {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.asked[name] {
		return c.tables[name]
	}
	c.asked[name] = true
	if c.err != nil {
		return nil
	}
	ct, err := c.cat(c.ctx, c.opts, c.prefix+name)
	if err != nil {
		c.err = fmt.Errorf("reading the catalog of table %s: %w", c.prefix+name, err)
		return nil
	}
	if ct != nil {
		t := *ct.Table
		t.Name = name
		ct = &load.CatalogTable{Table: &t, Types: ct.Types, Required: ct.Required, Lengths: ct.Lengths}
		c.tables[name] = ct
	}
	return ct
}

func (c *catalog) failed() error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// lookup is the splitter's Config.Lookup: the database's table when it
// exists, else the use case's; with Mapping.Columns the table's columns
// in that order (the fields of a pgcopy file or a CSV without a header).
func (r *run) lookup(c *catalog) func(string) *schema.Table {
	base := r.cfg.Lookup
	cols := r.cfg.Mapping.Columns
	return func(name string) *schema.Table {
		t := base(name)
		if ct := c.table(name); ct != nil && !sameShape(t, ct.Table) {
			t = ct.Table
		}
		if t == nil || len(cols) == 0 {
			return t
		}
		p := &schema.Table{Name: t.Name}
		for _, n := range cols {
			found := false
			for _, col := range t.Columns {
				if col.Name == n {
					p.Columns, found = append(p.Columns, col), true
					break
				}
			}
			if !found {
				return nil // the input's own names are checked against the table after (checkCatalog)
			}
		}
		return p
	}
}

// sameShape reports whether the database's table db is the use case's
// table uc as made by a loader (the same columns and types after the
// time column, whose name QuestDB gives as "timestamp"): the use case's
// table then stands, with its tags.
func sameShape(uc, db *schema.Table) bool {
	if uc == nil || len(uc.Columns) != len(db.Columns) || db.Columns[0].Type != schema.Timestamp {
		return false
	}
	for i := 1; i < len(uc.Columns); i++ {
		if uc.Columns[i].Name != db.Columns[i].Name || uc.Columns[i].Type != db.Columns[i].Type {
			return false
		}
	}
	return true
}

// checkCatalog refuses, before anything is sent, an input whose table
// exists in the database with other columns: a column the table lacks, a
// type the input's values cannot be (pgcopy: exactly the table's; CSV
// text: one the column's type reads), a required column the input leaves
// out.
func (r *run) checkCatalog(c *catalog) error {
	if err := c.failed(); err != nil {
		return err
	}
	if c == nil {
		return nil
	}
	for i, in := range r.in.formats {
		for _, t := range r.own.inputTables[i] {
			ct := c.table(t.Name)
			if ct == nil {
				continue
			}
			timeCol := -1 // written as lines: the timestamp is the table's, whatever its name
			if in.format == format.CSV && linesOnly(r.target) {
				timeCol = max(0, slices.Index(t.ColumnNames(), r.cfg.Mapping.TimeColumn))
			}
			if err := fits(in.format, t, ct, c.prefix, timeCol); err != nil {
				return fmt.Errorf("%s: %w", in.source, err)
			}
		}
	}
	return c.failed()
}

// fits says why input table t (of format f) cannot be loaded into the
// database's table ct. Column timeCol of t (-1: none) is written as a
// line's timestamp, into the table's time column (its first).
func fits(f format.Format, t *schema.Table, ct *load.CatalogTable, prefix string, timeCol int) error {
	name := prefix + t.Name
	have := map[string]int{}
	for i, col := range ct.Table.Columns {
		have[col.Name] = i
	}
	used := map[int]bool{}
	if timeCol >= 0 && ct.Table.Columns[0].Type == schema.Timestamp {
		used[0] = true
	}
	for k, col := range t.Columns {
		if k == timeCol {
			continue
		}
		i, ok := have[col.Name]
		if !ok {
			return fmt.Errorf("column %s: the input has it (%s), table %s does not (its columns: %s)",
				col.Name, col.Type, name, strings.Join(ct.Table.ColumnNames(), ", "))
		}
		used[i] = true
		dbType := ct.Table.Columns[i].Type
		if !typeFits(f, col.Type, dbType) {
			return fmt.Errorf("column %s: the input has %s, table %s has %s", col.Name, col.Type, name, ct.Types[i])
		}
	}
	for i, col := range ct.Table.Columns {
		if !used[i] && i < len(ct.Required) && ct.Required[i] {
			return fmt.Errorf("column %s: table %s needs it (%s, no default), the input does not have it", col.Name, name, ct.Types[i])
		}
	}
	return nil
}

// typeFits reports whether values of type in can be written into a
// column of type db. pgcopy's binary values must be the column's type
// exactly. CSV is text that the database (or the line written from it)
// parses: only types whose texts cannot be the column's are refused, and a
// text column of the input (what an empty first value infers) fits any.
func typeFits(f format.Format, in, db schema.Type) bool {
	if in == db {
		return true
	}
	if f == format.PGCopy || db == 0 {
		return false
	}
	num := func(t schema.Type) bool {
		return t == schema.Float8 || t == schema.Float4 || t == schema.Int8 || t == schema.Int4
	}
	switch {
	case in == schema.Text || db == schema.Text:
		return true
	case num(in) && num(db):
		return !(in == schema.Float8 || in == schema.Float4) || db == schema.Float8 || db == schema.Float4
	}
	return false
}
