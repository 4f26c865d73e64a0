// Package tabular loads tabular input (CSV, pgcopy) the loader did not
// write itself: the database's catalog decides the tables that exist (an
// input that cannot fit one is refused before anything is sent, its first
// records sampled), the columns of a table to create are typed from the
// first records, and CSV rows are written as line protocol for a target
// that takes nothing else. The engine calls it through Data: New before
// the inputs are opened, Prepare once they are, Apply on each CSV batch.
package tabular

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/format/csv"
	"github.com/tsload/tsload/pkg/format/ilp"
	"github.com/tsload/tsload/pkg/format/pgcopy"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/schema"
	"github.com/tsload/tsload/pkg/split"
)

// Config is what Data needs of the run.
type Config struct {
	Target  load.Target // nil: no database (--do-load=false without one)
	Hooks   load.Hooks  // Target's
	DoLoad  bool        // false: a refusal a load would make is said, not made
	Prepare load.PrepareOptions
	Prefix  string                     // the tables' prefix
	Lookup  func(string) *schema.Table // the use cases' tables
	Mapping load.Mapping
	Stderr  io.Writer
	// Skip counts a row the lines skip (split.NoValue).
	Skip func(split.Skipped)
	// FirstBatch reads the first rows of input source again as the load
	// reads it (nil batch: it cannot be read twice, as stdin).
	FirstBatch func(source string, rows int) (b *load.Batch, release func(), err error)
}

// Input is one input of the run, in order.
type Input struct {
	Source string
	Format format.Format
}

// Accepts is what a run loads into t from input of format f: what t
// takes itself, and CSV into a target of line protocol only, which the
// workers turn into lines (Data). It returns t's own refusal otherwise.
func Accepts(t load.Target, f format.Format) error {
	err := t.Accepts(f)
	if err != nil && f == format.CSV && linesOnly(t.Accepts) {
		return nil
	}
	return err
}

// Loadable is what a run loads into a target that takes the formats takes
// itself (a target package's declaration, which its Accepts is made of):
// takes, and CSV when takes is line protocol only, as Accepts has it.
func Loadable(takes []format.Format) []format.Format {
	own := func(f format.Format) error {
		if slices.Contains(takes, f) {
			return nil
		}
		return errNotTaken
	}
	var out []format.Format
	for _, f := range []format.Format{format.ILP, format.CSV, format.PGCopy} {
		if own(f) == nil || f == format.CSV && linesOnly(own) {
			out = append(out, f)
		}
	}
	return out
}

var errNotTaken = errors.New("not taken")

// linesOnly reports whether a target whose Accepts is accepts takes line
// protocol and neither CSV nor pgcopy (QuestDB, InfluxDB, CnosDB; not a
// PostgreSQL method that takes ILP and pgcopy: its refusal of CSV stands).
func linesOnly(accepts func(format.Format) error) bool {
	return accepts(format.ILP) == nil && accepts(format.CSV) != nil && accepts(format.PGCopy) != nil
}

// Data is how a run loads tabular data it did not write itself: the
// database's catalog deciding the tables that exist, and CSV rows written
// as line protocol on the workers for a target that takes nothing else
// (lines). Apply rewrites a CSV batch into a buffer the caller keeps per
// batch before it is written and returns what puts it back as the
// splitter made it.
type Data struct {
	cfg         Config
	inputs      []Input
	lookup      func(string) *schema.Table
	cat         *catalog
	inputTables [][]*schema.Table // per input, the tables it holds
	inOrder     map[string]bool   // per input source, whether a batch's rows are consecutive input lines
	cancel      context.CancelFunc
	lines       bool           // CSV batches are written as lines
	unit        int64          // nanoseconds per unit of the lines' timestamps
	timeUnit    time.Duration  // Mapping.TimeUnit (0: times as csv.ParseTime reads them)
	epochs      map[string]int // by layoutKey: the time column of a CSV table sent as CSV whose epoch times (timeUnit) are written as times
	timeCols    map[string]int // by layoutKey: the time column of a CSV table sent as CSV when it is not the first (--time-column)

	inferred map[*schema.Table][]schema.Type // CSV column types from the first records (sample)
	skip     func(split.Skipped)             // counts a row the lines skip (split.NoValue)

	mu      sync.Mutex
	layouts map[string]*rowLayout // by layoutKey
}

// rowLayout is how the rows of one input table become lines.
type rowLayout struct {
	enc     *ilp.RowEncoder
	time    int
	width   int
	origin  string // where the types came from, for errors
	tagCols []string
	fields  []ilp.RowField
	loaded  *schema.Table // the input's table typed and tagged as its lines are (split.Checker.Loaded)
}

// catalogTimeout bounds the catalog's questions with DoLoad false, where
// no server need be there.
const catalogTimeout = 3 * time.Second

// New prepares the run's catalog (the splitter's Lookup goes through it:
// Data.Lookup) before the inputs are opened.
func New(ctx context.Context, cfg Config) *Data {
	o := &Data{cfg: cfg, layouts: map[string]*rowLayout{}, unit: 1, inferred: map[*schema.Table][]schema.Type{},
		inOrder: map[string]bool{}, cancel: func() {}, epochs: map[string]int{}, timeCols: map[string]int{}, lookup: cfg.Lookup}
	if cfg.Target != nil {
		// The catalog is asked only for the tables of CSV and pgcopy input.
		cctx := ctx
		if !cfg.DoLoad {
			cctx, o.cancel = context.WithTimeout(ctx, catalogTimeout)
		}
		o.cat = o.newCatalog(cctx)
	}
	if o.cat != nil || len(cfg.Mapping.Columns) > 0 {
		o.lookup = o.makeLookup(o.cat)
	}
	if u := cfg.Hooks.LineUnit; u > 0 {
		o.unit = int64(u)
	}
	o.skip = cfg.Skip
	return o
}

// Lookup is the splitter's Config.Lookup: the database's table when it
// exists, else the use case's (Config.Lookup).
func (o *Data) Lookup() func(string) *schema.Table { return o.lookup }

// Lines reports whether CSV batches are written as lines.
func (o *Data) Lines() bool { return o != nil && o.lines }

// TimeUnit is the epoch unit of CSV times (Mapping.TimeUnit; 0: times as
// csv.ParseTime reads them).
func (o *Data) TimeUnit() time.Duration {
	if o == nil {
		return 0
	}
	return o.timeUnit
}

func isTabular(f format.Format) bool { return f == format.CSV || f == format.PGCopy }

// noteInput records the tables of the next input (openInputs).
func (o *Data) NoteInput(source string, sp *split.Splitter) {
	o.inputTables = append(o.inputTables, sp.Tables())
	o.inOrder[source] = sp.InOrder()
}

// done ends the catalog's questions.
func (o *Data) Done() { o.cancel() }

// tables are the tables Prepare creates when they do not exist: the
// inputs', with the tags of Mapping.Tags when it names them, the types
// inferred from the first records, and for tables written as lines the
// time column first.
func (o *Data) Tables(tables []*schema.Table) []*schema.Table {
	tags := o.cfg.Mapping.Tags
	out := make([]*schema.Table, len(tables))
	for i, t := range tables {
		types := o.inferred[t]
		ec, epochs := o.epochs[layoutKey(t)]
		tcol := o.timeCols[layoutKey(t)]
		if l := o.layouts[layoutKey(t)]; l != nil {
			tcol = l.time
		}
		if tags == nil && types == nil && !epochs && tcol == 0 {
			out[i] = t
			continue
		}
		c := &schema.Table{Name: t.Name, Columns: slices.Clone(t.Columns)}
		if epochs {
			c.Columns[ec].Type = schema.Timestamp // apply writes the epoch numbers as times
		}
		if tcol > 0 {
			// The time column first, the table's timestamp (QuestDB's
			// designated one, TimescaleDB's hypertable dimension) in a table
			// made for them; a CSV sent as CSV names its columns in its COPY.
			tc := c.Columns[tcol]
			c.Columns = append([]schema.Column{tc}, slices.Delete(c.Columns, tcol, tcol+1)...)
			if types != nil {
				types = append([]schema.Type{types[tcol]}, slices.Delete(slices.Clone(types), tcol, tcol+1)...)
			}
		}
		l := o.layouts[layoutKey(t)]
		for j := range c.Columns {
			if types != nil {
				c.Columns[j].Type = types[j]
				c.Columns[j].Tag = types[j] == schema.Text
			}
			if tags != nil {
				c.Columns[j].Tag = slices.Contains(tags, c.Columns[j].Name)
			}
			if l != nil {
				// Written as lines: the tags are the lines' (one decision,
				// layout's), so a column written as a field is not made a
				// tag (a QuestDB SYMBOL and DEDUP key) of the table.
				c.Columns[j].Tag = slices.Contains(l.tagCols, c.Columns[j].Name)
			}
		}
		out[i] = c
	}
	return out
}

// prepare checks the inputs against the catalog and, when the target
// takes CSV only as lines, makes each CSV table's layout; it returns the
// tables as Prepare is to create them.
func (o *Data) Prepare(inputs []Input) error {
	o.inputs = inputs
	// With DoLoad false nothing is refused for the database's sake: the
	// refusal a load would make is said, and the input read all the same.
	refuse := func(err error) error {
		if err == nil || o.cfg.DoLoad {
			return err
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			fmt.Fprintf(o.cfg.Stderr, "mapping: a load would refuse it: %v\n", err)
		}
		return nil
	}
	if err := refuse(o.checkCatalog(o.cat)); err != nil {
		return err
	}
	m := o.cfg.Mapping
	o.timeUnit = m.TimeUnit
	if o.cfg.Target == nil {
		return nil
	}
	for i, in := range o.inputs {
		lines := in.Format == format.CSV && linesOnly(o.cfg.Target.Accepts)
		var sample *sampled
		if in.Format == format.PGCopy && len(o.inputTables[i]) == 1 {
			if err := refuse(o.samplePGCopy(i, o.inputTables[i][0])); err != nil {
				return err
			}
		}
		if in.Format == format.CSV && len(o.inputTables[i]) == 1 && (lines || o.cat.table(o.inputTables[i][0].Name) != nil) {
			var err error
			if sample, err = o.sample(i, o.inputTables[i][0]); refuse(err) != nil {
				return err
			}
		}
		if !lines {
			if in.Format == format.CSV {
				if err := o.epochTimes(in.Source, o.inputTables[i], m); err != nil {
					return err
				}
			}
			continue
		}
		o.lines = true
		for _, t := range o.inputTables[i] {
			if o.layouts[layoutKey(t)] != nil {
				continue
			}
			known := o.lookup(t.Name) == t
			if sample != nil && !known && o.cat.table(t.Name) == nil {
				var warnings []string
				o.inferred[t], warnings = sample.infer(t)
				for _, w := range warnings {
					fmt.Fprintf(o.cfg.Stderr, "mapping: warning: %s\n", w)
				}
			}
			l, err := o.layout(t, o.cat.table(t.Name), m, known, o.inferred[t])
			if err != nil {
				return fmt.Errorf("%s: %w", in.Source, err)
			}
			o.layouts[layoutKey(t)] = l
		}
	}
	return nil
}

// epochTimes is how the CSV tables of one input sent as CSV (a database
// that reads CSV itself) take their time column (m.TimeColumn, else the
// first): with --time-unit its epoch numbers are written as times (apply)
// into a timestamp column; without, a table to be created whose time
// column holds numbers is refused, naming --time-unit, before the
// database refuses it in its own words.
func (o *Data) epochTimes(source string, tables []*schema.Table, m load.Mapping) error {
	for _, t := range tables {
		col := 0
		if m.TimeColumn != "" {
			if col = slices.Index(t.ColumnNames(), m.TimeColumn); col < 0 {
				return fmt.Errorf("%s: table %s: no time column %s (its columns: %s)", source, t.Name, m.TimeColumn, strings.Join(t.ColumnNames(), ", "))
			}
		}
		if col > 0 {
			o.timeCols[layoutKey(t)] = col
		}
		if o.timeUnit > 0 {
			o.epochs[layoutKey(t)] = col
			continue
		}
		if ty := t.Columns[col].Type; (ty == schema.Int8 || ty == schema.Float8) && o.lookup(t.Name) != t && o.cat.table(t.Name) == nil {
			return fmt.Errorf("%s: table %s: time column %s holds numbers: give their epoch unit with --time-unit (s, ms, us or ns)", source, t.Name, t.Columns[col].Name)
		}
	}
	return nil
}

// layoutKey names a table's layout: its name and columns (a splitter
// opened again for a later input or pass makes tables of its own).
func layoutKey(t *schema.Table) string {
	return t.Name + "\x00" + strings.Join(t.ColumnNames(), ",")
}

// layout is how the rows of input table t become lines: the timestamp
// column (m.TimeColumn, else the first), the tags (m.Tags, else the
// database's tag columns when the table exists, else t's), the other
// columns fields typed as the database's table has them, else as t says
// (the use case's, the input's declaration, or inferred from the first
// record).
func (o *Data) layout(t *schema.Table, ct *load.CatalogTable, m load.Mapping, known bool, inferred []schema.Type) (*rowLayout, error) {
	l := &rowLayout{width: len(t.Columns), origin: "inferred from the input's first record"}
	if inferred != nil {
		l.origin = fmt.Sprintf("inferred from the input's first %d records", sampleRows)
	}
	switch {
	case ct != nil:
		l.origin = "of table " + t.Name + " in the database"
	case known:
		l.origin = "of the use case's table " + t.Name
	}
	l.time = 0
	if m.TimeColumn != "" {
		l.time = slices.Index(t.ColumnNames(), m.TimeColumn)
		if l.time < 0 {
			return nil, fmt.Errorf("table %s: no time column %s (its columns: %s)", t.Name, m.TimeColumn, strings.Join(t.ColumnNames(), ", "))
		}
	}
	typeOf := func(i int) schema.Type { return t.Columns[i].Type }
	if inferred != nil {
		typeOf = func(i int) schema.Type { return inferred[i] }
	}
	tagOf := func(i int) bool { return t.Columns[i].Tag }
	if ct != nil {
		idx := map[string]int{}
		for j, c := range ct.Table.Columns {
			idx[c.Name] = j
		}
		typeOf = func(i int) schema.Type { return ct.Table.Columns[idx[t.Columns[i].Name]].Type }
		tagOf = func(i int) bool { return ct.Table.Columns[idx[t.Columns[i].Name]].Tag }
	}
	if m.Tags != nil {
		for _, tag := range m.Tags {
			if !slices.Contains(t.ColumnNames(), tag) {
				return nil, fmt.Errorf("table %s: no tag column %s (its columns: %s)", t.Name, tag, strings.Join(t.ColumnNames(), ", "))
			}
		}
		tagOf = func(i int) bool { return slices.Contains(m.Tags, t.Columns[i].Name) }
	}
	lay := ilp.RowLayout{Measurement: t.Name}
	for i, c := range t.Columns {
		if i == l.time {
			continue
		}
		if tagOf(i) {
			lay.Tags = append(lay.Tags, ilp.RowTag{Col: i, Key: c.Name})
			l.tagCols = append(l.tagCols, c.Name)
			continue
		}
		f := ilp.RowField{Col: i, Key: c.Name}
		switch typeOf(i) {
		case schema.Float8, schema.Float4:
			f.Kind = ilp.FloatValue
		case schema.Int8, schema.Int4:
			f.Kind = ilp.IntValue
		case schema.Text:
			f.Kind = ilp.StringValue
		default:
			return nil, fmt.Errorf("table %s: column %s is %s (%s), which a line cannot carry as a field", t.Name, c.Name, typeOf(i), l.origin)
		}
		lay.Fields = append(lay.Fields, f)
	}
	l.fields = lay.Fields
	l.loaded = &schema.Table{Name: t.Name, Columns: slices.Clone(t.Columns)}
	for i := range l.loaded.Columns {
		l.loaded.Columns[i].Tag = slices.Contains(l.tagCols, t.Columns[i].Name)
	}
	for _, f := range l.fields {
		l.loaded.Columns[f.Col].Type = map[ilp.ValueKind]schema.Type{ilp.FloatValue: schema.Float8, ilp.IntValue: schema.Int8, ilp.StringValue: schema.Text}[f.Kind]
	}
	enc, err := ilp.NewRowEncoder(lay)
	if err != nil {
		return nil, err
	}
	l.enc = enc
	return l, nil
}

// loaded is split.Checker.Loaded: a CSV table written as lines as its
// lines have it, else t. The layouts are made before the workers start.
func (o *Data) Loaded(t *schema.Table) *schema.Table {
	if o == nil || !o.lines || t == nil {
		return t
	}
	o.mu.Lock()
	l := o.layouts[layoutKey(t)]
	o.mu.Unlock()
	if l != nil {
		return l.loaded
	}
	return t
}

// apply rewrites a CSV batch as lines and returns what puts it back.
func (o *Data) Apply(b *load.Batch, buf *[]byte) (restore func(), err error) {
	if o == nil || b.Format != format.CSV || b.Rows == 0 {
		return func() {}, nil
	}
	if !o.lines {
		return o.applyEpochs(b, buf)
	}
	o.mu.Lock()
	consecutive := o.inOrder[b.Source]
	l := o.layouts[layoutKey(b.Table)]
	o.mu.Unlock()
	if l == nil {
		return func() {}, fmt.Errorf("%s: no line layout for table %s", b.Where(), b.Table.Name)
	}
	out, skipped, err := o.lines1(l, (*buf)[:0], b, consecutive)
	*buf = out
	if err != nil {
		return func() {}, err
	}
	data, table, f, rows, tables := b.Data, b.Table, b.Format, b.Rows, b.Tables
	b.Data, b.Table, b.Format = out, nil, format.ILP
	if skipped > 0 {
		// Rows without a value have no line: the batch counts the others.
		b.Rows -= skipped
		b.Tables = slices.Clone(b.Tables)
		for i := range b.Tables {
			if b.Tables[i].Name == table.Name {
				b.Tables[i].Rows -= int64(skipped)
			}
		}
	}
	return func() { b.Data, b.Table, b.Format, b.Rows, b.Tables = data, table, f, rows, tables }, nil
}

// applyEpochs writes the epoch times of a CSV batch sent as CSV as times
// (epochTimes) and returns what puts the batch back.
func (o *Data) applyEpochs(b *load.Batch, buf *[]byte) (restore func(), err error) {
	o.mu.Lock()
	col, ok := o.epochs[layoutKey(b.Table)]
	o.mu.Unlock()
	if !ok {
		return func() {}, nil
	}
	out, err := csv.AppendEpochAsTime((*buf)[:0], b.Data, col, o.timeUnit)
	*buf = out
	if err != nil {
		var te *format.TimeError
		if errors.As(err, &te) && o.inOrder[b.Source] {
			return func() {}, fmt.Errorf("%s: record %d: %s (--time-unit %s)", b.Source, b.FirstRecord+int64(te.N)-1, te.Reason, o.timeUnit)
		}
		return func() {}, fmt.Errorf("%s: %w (--time-unit %s)", b.Where(), err, o.timeUnit)
	}
	data := b.Data
	b.Data = out
	return func() { b.Data = data }, nil
}

// lines1 appends the lines of batch b's CSV records to dst. A record
// without a field value has no line: it is skipped and counted
// (split.NoValue, o.skip), and skipped says how many were.
func (o *Data) lines1(l *rowLayout, dst []byte, b *load.Batch, consecutive bool) (_ []byte, skipped int, err error) {
	vals := make([][]byte, l.width)
	var scratch []byte
	var parser csv.RecordParser
	data := b.Data
	line := b.FirstLine
	for off, rec := 0, int64(0); off < len(data); rec++ {
		if cap(scratch) < len(data) {
			scratch = make([]byte, 0, len(data))
		}
		scratch = scratch[:0]
		next, n, err := parser.ParseRecord(data, off, vals, &scratch)
		where := func() string {
			if consecutive {
				return fmt.Sprintf("%s: record %d (line %d, byte offset %d)", b.Source, b.FirstRecord+rec, line, b.Offset+int64(off))
			}
			return fmt.Sprintf("%s: row %d of the batch", b.Where(), rec+1)
		}
		if err != nil {
			return dst, skipped, fmt.Errorf("%s: %w", where(), err)
		}
		if noField(l, vals) {
			// Whatever its time and tags, a row without a field value has
			// no line (split.NoValue): skipped and counted.
			skipped++
			sk := split.Skipped{Source: b.Source, Reason: split.NoValue}
			if consecutive {
				sk.Record, sk.Line, sk.Offset = b.FirstRecord+rec, line, b.Offset+int64(off)
			} else {
				sk.Reason = where() + ": " + split.NoValue
			}
			if o.skip != nil {
				o.skip(sk)
			}
			off = next
			line += int64(n)
			continue
		}
		ts, err := csv.ParseTime(vals[l.time], o.timeUnit)
		if errors.Is(err, csv.ErrEpochUnit) {
			return dst, skipped, fmt.Errorf("%s: time column: %q is an epoch number: give its unit with --time-unit (s, ms, us or ns)", where(), shorten(vals[l.time]))
		}
		if err != nil {
			return dst, skipped, fmt.Errorf("%s: time column: %q: %v", where(), shorten(vals[l.time]), err)
		}
		if ts%o.unit != 0 {
			return dst, skipped, fmt.Errorf("%s: time %q is finer than the lines' unit (%s)", where(), shorten(vals[l.time]), time.Duration(o.unit))
		}
		dst, err = l.enc.AppendRow(dst, vals, ts/o.unit)
		if err != nil {
			var ve *ilp.ValueError
			if errors.As(err, &ve) {
				return dst, skipped, fmt.Errorf("%s: %w (the column's type is %s)", where(), err, l.origin)
			}
			return dst, skipped, fmt.Errorf("%s: %w", where(), err)
		}
		off = next
		line += int64(n)
	}
	return dst, skipped, nil
}

// noField reports whether a record's every field value is empty (NULL).
func noField(l *rowLayout, vals [][]byte) bool {
	for _, f := range l.fields {
		if len(vals[f.Col]) > 0 {
			return false
		}
	}
	return true
}

func shorten(v []byte) string {
	if len(v) > 40 {
		return string(v[:40]) + "..."
	}
	return string(v)
}

// describe says, on every load, what the load uses for each tabular
// table (one home for the mapping, issue 43 item 12): the database's
// table or the one created, its columns and types as the database gets
// them, and for a table written as lines the time, tags and fields.
// With DoLoad false it says what a load would have used.
func (o *Data) Describe(w io.Writer) {
	if o == nil {
		return
	}
	would := func(s, load string) string {
		if o.cfg.DoLoad {
			return load
		}
		return s
	}
	for i, in := range o.inputs {
		if !isTabular(in.Format) {
			continue
		}
		for _, t := range o.inputTables[i] {
			var b strings.Builder
			fmt.Fprintf(&b, "mapping: %s: table %s", in.Source, o.cfg.Prefix+t.Name)
			ct := o.cat.table(t.Name)
			created := o.Tables([]*schema.Table{t})[0]
			switch {
			case o.cat == nil && o.cfg.Prepare.DropDB:
				b.WriteString(would(" would be dropped (--drop-db) and created", " is dropped (--drop-db) and created"))
			case o.cat == nil:
				b.WriteString(" (the database was not asked)")
			case o.cat.failed() != nil:
				fmt.Fprintf(&b, " (the database did not answer: %v)", o.cat.failed())
			case ct != nil:
				b.WriteString(" exists in the database: its columns and types are used")
			default:
				b.WriteString(would(" does not exist: it would be created", " does not exist: it is created"))
			}
			b.WriteString(": ")
			for j, c := range created.Columns {
				if j > 0 {
					b.WriteString(", ")
				}
				ty := c.Type.String()
				if ct != nil {
					if k := slices.Index(ct.Table.ColumnNames(), c.Name); k >= 0 {
						ty = ct.Types[k]
					}
				}
				fmt.Fprintf(&b, "%s %s", c.Name, ty)
				if c.Tag && ct == nil {
					b.WriteString(" tag")
				}
			}
			if l := o.layouts[layoutKey(t)]; l != nil {
				fmt.Fprintf(&b, "; as lines: time %s, tags [%s], fields", t.Columns[l.time].Name, strings.Join(l.tagCols, ","))
				for _, f := range l.fields {
					fmt.Fprintf(&b, " %s:%s", f.Key, f.Kind)
				}
			}
			fmt.Fprintln(w, b.String())
		}
	}
}

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
func (o *Data) newCatalog(ctx context.Context) *catalog {
	cat := o.cfg.Hooks.Catalog
	if cat == nil || o.cfg.Prepare.DropDB {
		return nil
	}
	return &catalog{ctx: ctx, cat: cat, opts: o.cfg.Prepare, prefix: o.cfg.Prefix, base: o.cfg.Lookup,
		cols: o.cfg.Mapping.Columns, tables: map[string]*load.CatalogTable{}, asked: map[string]bool{}}
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
func (o *Data) makeLookup(c *catalog) func(string) *schema.Table {
	base := o.lookup
	cols := o.cfg.Mapping.Columns
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
func (o *Data) checkCatalog(c *catalog) error {
	if err := c.failed(); err != nil {
		return err
	}
	if c == nil {
		return nil
	}
	for i, in := range o.inputs {
		for _, t := range o.inputTables[i] {
			ct := c.table(t.Name)
			if ct == nil {
				continue
			}
			timeCol := -1 // written as lines: the timestamp is the table's, whatever its name
			if in.Format == format.CSV && linesOnly(o.cfg.Target.Accepts) {
				timeCol = max(0, slices.Index(t.ColumnNames(), o.cfg.Mapping.TimeColumn))
			}
			if err := fits(in.Format, t, ct, c.prefix, timeCol); err != nil {
				return fmt.Errorf("%s: %w", in.Source, err)
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

// sampleRows is how many records of a CSV file are read before the load:
// the values checked against an existing table's types (so that a file
// that cannot fit is refused before anything is sent) and, for a table
// that is neither the database's nor a use case's, its column types
// inferred for line protocol (then held: a later record that does not fit
// fails naming its line).
const sampleRows = 1000

// sampled is the first records of one CSV input.
type sampled struct {
	source string
	rows   [][][]byte // values by record and column; nil: NULL
	where  []string   // "record N (line L, byte offset O)"
}

// firstBatch is the first batch (at most sampleRows rows) of input i,
// from a second opening of it (Config.FirstBatch); nil for stdin, which
// cannot be read twice. release gives back what it holds.
func (o *Data) firstBatch(i int) (b *load.Batch, release func(), err error) {
	if o.cfg.FirstBatch == nil {
		return nil, func() {}, nil
	}
	return o.cfg.FirstBatch(o.inputs[i].Source, sampleRows)
}

// samplePGCopy refuses a pgcopy file whose first tuples do not fit the
// existing table's columns: PostgreSQL's own binary COPY carries no types,
// but a fixed-size type's values have its length.
func (o *Data) samplePGCopy(i int, t *schema.Table) error {
	ct := o.cat.table(t.Name)
	if ct == nil || ct.Lengths == nil {
		return nil
	}
	b, release, err := o.firstBatch(i)
	defer release()
	if err != nil || b == nil {
		return err
	}
	want := make([]int, len(t.Columns))
	types := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		if j := slices.Index(ct.Table.ColumnNames(), c.Name); j >= 0 {
			want[i], types[i] = ct.Lengths[j], ct.Types[j]
		}
	}
	var fields [][]byte
	for off, rec := 0, b.FirstRecord; off < len(b.Data); rec++ {
		var size int
		fields, size, err = pgcopy.Tuple(fields[:0], b.Data[off:], 0)
		if err != nil {
			return nil // the load reports it where it is
		}
		for f, v := range fields {
			if v != nil && f < len(want) && want[f] > 0 && len(v) != want[f] {
				return fmt.Errorf("%s: record %d (byte offset %d): field %d (%s) has %d bytes, a value of table %s's column %s (%s) has %d",
					b.Source, rec, b.Offset+int64(off), f+1, t.Columns[f].Name, len(v), o.cfg.Prefix+t.Name, t.Columns[f].Name, types[f], want[f])
			}
		}
		off += size
	}
	return nil
}

// sample reads the first records of input i (a single-table CSV file) from
// a second opening of it; nil for stdin, which cannot be read twice. It
// checks them against the table's catalog.
func (o *Data) sample(i int, t *schema.Table) (*sampled, error) {
	b, release, err := o.firstBatch(i)
	defer release()
	if err != nil || b == nil {
		return nil, err
	}
	path := b.Source
	s := &sampled{source: path}
	line := b.FirstLine
	var scratch []byte
	for off, rec := 0, int64(0); off < len(b.Data) && b.Format == format.CSV; rec++ {
		vals := make([][]byte, len(t.Columns))
		scratch = make([]byte, 0, len(b.Data)-off)
		next, n, err := csv.ParseRecord(b.Data, off, vals, &scratch)
		if err != nil {
			return nil, fmt.Errorf("%s: record %d (line %d, byte offset %d): %w", path, b.FirstRecord+rec, line, b.Offset+int64(off), err)
		}
		s.rows = append(s.rows, vals)
		s.where = append(s.where, fmt.Sprintf("record %d (line %d, byte offset %d)", b.FirstRecord+rec, line, b.Offset+int64(off)))
		off, line = next, line+int64(n)
	}
	if ct := o.cat.table(t.Name); ct != nil {
		epochCol := -1 // with --time-unit the time column's numbers are written as times
		if o.timeUnit > 0 {
			epochCol = max(slices.Index(t.ColumnNames(), o.cfg.Mapping.TimeColumn), 0)
		}
		if err := s.check(t, ct, o.cfg.Prefix, epochCol); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// check refuses a sampled value that the existing table's column cannot
// read: a number column's value that is not a number of its kind. Column
// epochCol (-1: none) is not checked.
func (s *sampled) check(t *schema.Table, ct *load.CatalogTable, prefix string, epochCol int) error {
	idx := map[string]int{}
	for j, c := range ct.Table.Columns {
		idx[c.Name] = j
	}
	for k, vals := range s.rows {
		for i, c := range t.Columns {
			j, ok := idx[c.Name]
			v := vals[i]
			if !ok || len(v) == 0 || i == epochCol {
				continue
			}
			if kind := valueKind(v); !valueFits(kind, ct.Table.Columns[j].Type) {
				return fmt.Errorf("%s: %s: column %s: the input has %q (%s), table %s has %s",
					s.source, s.where[k], c.Name, shorten(v), kind, prefix+t.Name, ct.Types[j])
			}
		}
	}
	return nil
}

// valueFits reports whether a CSV value of kind can be a value of a
// column of type db: numbers of their kind; for a time column anything
// but a number (the database reads many texts of a time); anything for
// the others.
func valueFits(kind, db schema.Type) bool {
	switch db {
	case schema.Float8, schema.Float4:
		return kind == schema.Int8 || kind == schema.Float8
	case schema.Int8, schema.Int4:
		return kind == schema.Int8
	case schema.Timestamp:
		return kind != schema.Int8 && kind != schema.Float8
	}
	return true
}

// valueKind is the narrowest type a CSV value's text is.
func valueKind(v []byte) schema.Type {
	if _, err := strconv.ParseInt(string(v), 10, 64); err == nil {
		return schema.Int8
	}
	if _, err := strconv.ParseFloat(string(v), 64); err == nil {
		return schema.Float8
	}
	if _, err := csv.ParseTime(v, 0); err == nil {
		return schema.Timestamp
	}
	return schema.Text
}

// infer is t's column types from the sample: a column whose values are
// all integers is int8, all numbers float8, all times timestamptz, else
// text; a column with no value in the sample keeps t's type. A column of
// numbers but for a few values (mostlyNumbers) is text too, and said in
// the warnings returned: naming the column, the odd values and where the
// first is (issue 43 item 12: one n/a made a SYMBOL of a temperature).
func (s *sampled) infer(t *schema.Table) (types []schema.Type, warnings []string) {
	types = make([]schema.Type, len(t.Columns))
	for i, c := range t.Columns {
		var kind schema.Type
		numbers, nOdd, odd, firstOdd := 0, 0, []string{}, -1
		for k, vals := range s.rows {
			v := vals[i]
			if len(v) == 0 {
				continue
			}
			k0 := valueKind(v)
			if k0 == schema.Int8 || k0 == schema.Float8 {
				numbers++
			} else {
				nOdd++
				if firstOdd < 0 {
					firstOdd = k
				}
				if len(odd) < 3 && !slices.Contains(odd, strconv.Quote(shorten(v))) {
					odd = append(odd, strconv.Quote(shorten(v)))
				}
			}
			k := k0
			switch {
			case kind == 0 || kind == k:
				kind = k
			case (kind == schema.Int8 && k == schema.Float8) || (kind == schema.Float8 && k == schema.Int8):
				kind = schema.Float8
			default:
				kind = schema.Text
			}
		}
		if kind == 0 {
			kind = c.Type
		}
		types[i] = kind
		if kind == schema.Text && firstOdd >= 0 && mostlyNumbers(numbers, nOdd) {
			warnings = append(warnings, fmt.Sprintf("%s: table %s: column %s is numbers in %d of its sampled values but not %s (first at %s): it is loaded as text, a string field (an empty field would be a NULL of a numeric column)",
				s.source, t.Name, c.Name, numbers, strings.Join(odd, ", "), s.where[firstOdd]))
		}
	}
	return types, warnings
}

// mostlyNumbers reports whether a column whose sampled values are numbers
// but for odd ones is a numeric column with a few odd values (n/a, -, ?):
// at least 10 numbers, and at most 3 odd values or one in 20.
func mostlyNumbers(numbers, odd int) bool {
	return numbers >= 10 && (odd <= 3 || odd*20 <= numbers)
}
