package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/format/csv"
	"github.com/tsload/tsload/pkg/format/ilp"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/schema"
	"github.com/tsload/tsload/pkg/split"
)

// Accepts is what the runner loads into t from input of format f: what t
// takes itself, and CSV into a target of line protocol only, which the
// workers turn into lines (ownData). It returns t's own refusal otherwise.
func Accepts(t load.Target, f format.Format) error {
	err := t.Accepts(f)
	if err != nil && f == format.CSV && linesOnly(t) {
		return nil
	}
	return err
}

// linesOnly reports whether t takes line protocol and neither CSV nor
// pgcopy (QuestDB, InfluxDB, CnosDB; not a PostgreSQL method that takes
// ILP and pgcopy: its refusal of CSV stands).
func linesOnly(t load.Target) bool {
	return t.Accepts(format.ILP) == nil && t.Accepts(format.CSV) != nil && t.Accepts(format.PGCopy) != nil
}

// ownData is how the runner loads data it did not write itself (issue 25):
// the database's catalog deciding the tables that exist (catalog.go), and
// CSV rows written as line protocol on the workers for a target that
// takes nothing else (lines). Each worker rewrites a CSV batch into a
// buffer kept per batch of the free-list before it is written and puts it
// back as the splitter made it afterwards, as prefix.go does.
type ownData struct {
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

// newOwnData prepares the run's catalog (the splitter's Lookup goes
// through it) before the inputs are opened.
func (r *run) newOwnData(ctx context.Context) *ownData {
	o := &ownData{layouts: map[string]*rowLayout{}, unit: 1, inferred: map[*schema.Table][]schema.Type{},
		inOrder: map[string]bool{}, cancel: func() {}, epochs: map[string]int{}, timeCols: map[string]int{}}
	if r.target != nil {
		// The catalog is asked only for the tables of CSV and pgcopy input.
		cctx := ctx
		if !r.cfg.DoLoad {
			cctx, o.cancel = context.WithTimeout(ctx, catalogTimeout)
		}
		o.cat = r.newCatalog(cctx)
	}
	if o.cat != nil || len(r.cfg.Mapping.Columns) > 0 {
		r.cfg.Lookup = r.lookup(o.cat)
	}
	if u := r.hooks.LineUnit; u > 0 {
		o.unit = int64(u)
	}
	o.skip = func(s split.Skipped) {
		r.onSkip(s)
		r.n.skipped.Add(1)
		r.n.rowsRead.Add(-1)
	}
	return o
}

func isTabular(f format.Format) bool { return f == format.CSV || f == format.PGCopy }

// noteInput records the tables of the next input (openInputs).
func (o *ownData) noteInput(source string, sp *split.Splitter) {
	o.inputTables = append(o.inputTables, sp.Tables())
	o.inOrder[source] = sp.InOrder()
}

// done ends the catalog's questions.
func (o *ownData) done() { o.cancel() }

// tables are the tables Prepare creates when they do not exist: the
// inputs', with the tags of Mapping.Tags when it names them, the types
// inferred from the first records, and for tables written as lines the
// time column first.
func (o *ownData) tables(r *run, tables []*schema.Table) []*schema.Table {
	tags := r.cfg.Mapping.Tags
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
func (o *ownData) prepare(r *run) error {
	// With DoLoad false nothing is refused for the database's sake: the
	// refusal a load would make is said, and the input read all the same.
	refuse := func(err error) error {
		if err == nil || r.cfg.DoLoad {
			return err
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			fmt.Fprintf(r.cfg.Stderr, "mapping: a load would refuse it: %v\n", err)
		}
		return nil
	}
	if err := refuse(r.checkCatalog(o.cat)); err != nil {
		return err
	}
	m := r.cfg.Mapping
	o.timeUnit = m.TimeUnit
	if r.target == nil {
		return nil
	}
	for i, in := range r.in.formats {
		lines := in.format == format.CSV && linesOnly(r.target)
		var sample *sampled
		if in.format == format.PGCopy && len(o.inputTables[i]) == 1 {
			if err := refuse(r.samplePGCopy(i, o.inputTables[i][0])); err != nil {
				return err
			}
		}
		if in.format == format.CSV && len(o.inputTables[i]) == 1 && (lines || o.cat.table(o.inputTables[i][0].Name) != nil) {
			var err error
			if sample, err = r.sample(i, o.inputTables[i][0]); refuse(err) != nil {
				return err
			}
		}
		if !lines {
			if in.format == format.CSV {
				if err := o.epochTimes(r, in.source, o.inputTables[i], m); err != nil {
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
			known := r.cfg.Lookup(t.Name) == t
			if sample != nil && !known && o.cat.table(t.Name) == nil {
				var warnings []string
				o.inferred[t], warnings = sample.infer(t)
				for _, w := range warnings {
					fmt.Fprintf(r.cfg.Stderr, "mapping: warning: %s\n", w)
				}
			}
			l, err := o.layout(t, o.cat.table(t.Name), m, known, o.inferred[t])
			if err != nil {
				return fmt.Errorf("%s: %w", in.source, err)
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
func (o *ownData) epochTimes(r *run, source string, tables []*schema.Table, m load.Mapping) error {
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
		if ty := t.Columns[col].Type; (ty == schema.Int8 || ty == schema.Float8) && r.cfg.Lookup(t.Name) != t && o.cat.table(t.Name) == nil {
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
func (o *ownData) layout(t *schema.Table, ct *load.CatalogTable, m load.Mapping, known bool, inferred []schema.Type) (*rowLayout, error) {
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
func (o *ownData) loaded(t *schema.Table) *schema.Table {
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
func (o *ownData) apply(b *load.Batch, buf *scratch) (restore func(), err error) {
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
	out, skipped, err := o.lines1(l, buf.data[:0], b, consecutive)
	buf.data = out
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
func (o *ownData) applyEpochs(b *load.Batch, buf *scratch) (restore func(), err error) {
	o.mu.Lock()
	col, ok := o.epochs[layoutKey(b.Table)]
	o.mu.Unlock()
	if !ok {
		return func() {}, nil
	}
	out, err := csv.AppendEpochAsTime(buf.data[:0], b.Data, col, o.timeUnit)
	buf.data = out
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
func (o *ownData) lines1(l *rowLayout, dst []byte, b *load.Batch, consecutive bool) (_ []byte, skipped int, err error) {
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
func (o *ownData) describe(r *run, w io.Writer) {
	if o == nil {
		return
	}
	would := func(s, load string) string {
		if r.cfg.DoLoad {
			return load
		}
		return s
	}
	for i, in := range r.in.formats {
		if !isTabular(in.format) {
			continue
		}
		for _, t := range o.inputTables[i] {
			var b strings.Builder
			fmt.Fprintf(&b, "mapping: %s: table %s", in.source, r.cfg.TablePrefix+t.Name)
			ct := o.cat.table(t.Name)
			created := o.tables(r, []*schema.Table{t})[0]
			switch {
			case o.cat == nil && r.cfg.Prepare.DropDB:
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
