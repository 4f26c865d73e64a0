// Package tonbo is the tonbo target of cmd/load_tonbo: tonbo 0.3.2 (an
// embedded LSM store over Arrow and Parquet, a Rust crate) runs inside the
// loader's process through a small C bridge (bridge/tonbo, linked with cgo
// under the build tag "tonbo"; scripts/build_tonbo.sh builds it). Without
// the tag the package builds and every load fails with ErrNoBridge.
//
// One table is one tonbo database in a directory of its own under the
// load's directory (--db-path): a string key, the series (the table's tag
// values) and the time, so that a point of the same series and time
// replaces the one stored (Hooks.Overwrites), the time in nanoseconds, and
// the table's tags and fields. A table without tags is keyed by all its
// values and the time (only identical rows are one). tonbo 0.3's runtime schemas have no
// floating-point type: a double is stored as the 64 bits of its IEEE-754
// value (exact). The table's schema is kept beside it (schema.json) so that
// a later load or count opens it with the same columns.
//
// Commit modes (--commit) map to tonbo's three ways of writing: per-row
// (each row alone with insert, no transaction), per-batch (a transaction
// per batch and table, committed at its end) and write-batch (each batch
// one insert_batch). tonbo's write-ahead log can be turned off (--wal
// off). Close (and Finish, after the last batch) flushes the log and the
// memtables to files: verification reads the tables back reopened from
// their files.
package tonbo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/tsload/tsload/pkg/fingerprint"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/results"
	"github.com/tsload/tsload/pkg/schema"
	"github.com/tsload/tsload/pkg/target/contentq"
	"github.com/tsload/tsload/pkg/usecase"
)

// ErrNoBridge is every load's error in a build without the bridge.
var ErrNoBridge = errors.New("load_tonbo was built without the tonbo bridge: run scripts/build_tonbo.sh, then go build -tags tonbo ./cmd/load_tonbo")

// Commit is how rows are written.
type Commit string

// Commit modes (--commit), spelled as the embedded SQL loaders spell
// theirs where they mean the same.
const (
	CommitRow        Commit = "per-row"     // insert, a row at a time, no transaction
	CommitBatch      Commit = "per-batch"   // a transaction per batch (and table): the default
	CommitWriteBatch Commit = "write-batch" // insert_batch, a batch at a time
)

// ParseCommit parses a Commit name ("" is CommitBatch).
func ParseCommit(s string) (Commit, error) {
	switch c := Commit(s); c {
	case CommitRow, CommitBatch, CommitWriteBatch:
		return c, nil
	case "":
		return CommitBatch, nil
	case "one-transaction":
		return "", load.Settingf("tonbo: {Commit} one-transaction is not available: a tonbo 0.3 transaction holds its rows in memory until it commits; per-batch with a batch as large as the load is one transaction (want per-row, per-batch or write-batch)")
	}
	return "", load.Settingf("tonbo: unknown {Commit} %q (want per-row, per-batch or write-batch)", s)
}

// mode is the bridge's write mode of c (tt_write).
func (c Commit) mode() int {
	switch c {
	case CommitRow:
		return 0
	case CommitWriteBatch:
		return 2
	}
	return 1
}

// Config configures the target.
type Config struct {
	// Path is the load's directory (created when missing): a directory
	// per table in it.
	Path   string
	Commit Commit
	// WAL off turns tonbo's write-ahead log off: rows are in memory until
	// Finish or Close flushes them.
	WAL bool
}

// Target is tonbo as a load.Target.
type Target struct {
	cfg Config

	mu      sync.Mutex
	tables  map[string]*table
	known   map[string]*schema.Table
	dropped map[string]bool
	opts    load.PrepareOptions
	flushes int
}

// New returns the target; it opens nothing.
func New(cfg Config) (*Target, error) {
	if cfg.Path == "" {
		return nil, load.Settingf("tonbo: {Path} is empty")
	}
	if cfg.Commit == "" {
		cfg.Commit = CommitBatch
	}
	if _, err := ParseCommit(string(cfg.Commit)); err != nil {
		return nil, err
	}
	return &Target{cfg: cfg, tables: map[string]*table{}, known: map[string]*schema.Table{}, dropped: map[string]bool{}}, nil
}

// table is one tonbo table: its columns and, while open, its handle.
type table struct {
	name, dir string
	tb        *schema.Table
	spec      string
	first     int    // the first column stored as a column: 1 after the time, 0 in a table without one
	kinds     []byte // per stored column: 'i', 'f' or 's'
	keyCols   []int  // the columns that make the key's series
	tagged    bool   // the key is the tags: its series are the table's
	byName    map[string]int

	mu    sync.RWMutex // writers share the handle (RLock); closing takes it (Lock)
	h     *handle
	dirty bool
}

const schemaFile = "schema.json"

// newTable lays out tb: column 0 is the time when it is a timestamp (a
// table without one keys its rows by every column).
func newTable(dir string, tb *schema.Table) (*table, error) {
	if len(tb.Columns) == 0 {
		return nil, fmt.Errorf("table %q has no columns", tb.Name)
	}
	t := &table{name: tb.Name, dir: dir, tb: tb, byName: map[string]int{}}
	var spec strings.Builder
	timed := tb.Columns[0].Type == schema.Timestamp
	if timed {
		t.first = 1
	}
	for i, c := range tb.Columns {
		if _, dup := t.byName[c.Name]; dup {
			return nil, fmt.Errorf("table %q: column %q twice", tb.Name, c.Name)
		}
		t.byName[c.Name] = i
		if c.Tag || !timed {
			t.keyCols = append(t.keyCols, i)
		}
		if i < t.first {
			continue
		}
		if strings.ContainsAny(c.Name, "\n") || c.Name == "_key" || c.Name == "time" && timed {
			return nil, fmt.Errorf("table %q: column name %q is not possible in tonbo", tb.Name, c.Name)
		}
		var k byte
		switch c.Type {
		case schema.Float8, schema.Float4:
			k = 'f'
		case schema.Int8, schema.Int4, schema.Timestamp:
			k = 'i'
		case schema.Text:
			k = 's'
		default:
			return nil, fmt.Errorf("table %q: column %q of type %s", tb.Name, c.Name, c.Type)
		}
		t.kinds = append(t.kinds, k)
		fmt.Fprintf(&spec, "%c %s\n", k, c.Name)
	}
	t.spec = spec.String()
	t.tagged = len(t.keyCols) > 0
	if timed && !t.tagged {
		// No tags (TSBS's cpu table keys its series by an integer): the
		// row's values and its time are the key, so that rows that differ
		// are never merged.
		for i := 1; i < len(tb.Columns); i++ {
			t.keyCols = append(t.keyCols, i)
		}
	}
	return t, nil
}

// Accepts takes ILP, CSV and pgcopy (Parquet arrives as pgcopy).
func (t *Target) Accepts(f format.Format) error {
	switch f {
	case format.ILP, format.CSV, format.PGCopy, format.Unknown:
		return nil
	}
	return fmt.Errorf("tonbo: cannot load %s input", f)
}

// Prepare creates the load's directory (unless opts.CreateDB is false) and
// opens the known tables; DropDB removes their directories first (and any
// other table's the load writes, before its first write), never the
// load's directory.
func (t *Target) Prepare(ctx context.Context, opts load.PrepareOptions) error {
	if !Linked {
		return ErrNoBridge
	}
	if !opts.CreateDB {
		if _, err := os.Stat(t.cfg.Path); err != nil {
			return fmt.Errorf("tonbo: database directory %s: %w (and --do-create-db=false)", t.cfg.Path, err)
		}
	}
	if err := os.MkdirAll(t.cfg.Path, 0o755); err != nil {
		return fmt.Errorf("tonbo: %w", err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.opts = opts
	for _, tb := range opts.Tables {
		t.known[tb.Name] = tb
		if _, err := t.tableLocked(tb.Name, tb, true); err != nil {
			return err
		}
	}
	return nil
}

// table returns the open table name, opening or creating it (from the
// known tables, the use case, or like) when it is not.
func (t *Target) table(name string, like *schema.Table, create bool) (*table, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.tableLocked(name, like, create)
}

func (t *Target) tableLocked(name string, like *schema.Table, create bool) (*table, error) {
	if tb := t.tables[name]; tb != nil {
		if err := tb.open(t.cfg.WAL); err != nil {
			return nil, err
		}
		return tb, nil
	}
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") {
		return nil, fmt.Errorf("tonbo: table name %q cannot name a directory", name)
	}
	dir := filepath.Join(t.cfg.Path, name)
	if !create && t.opts.DropDB && !t.dropped[name] {
		return nil, nil // dropped before this load's first write to it
	}
	if create && t.opts.DropDB && !t.dropped[name] {
		if err := os.RemoveAll(dir); err != nil {
			return nil, fmt.Errorf("tonbo: dropping table %q: %w", name, err)
		}
		t.dropped[name] = true
	}
	have, err := readSchema(dir)
	if err != nil {
		return nil, err
	}
	if have == nil && !create {
		return nil, nil
	}
	if have != nil && create && t.opts.AbortOnExist {
		return nil, fmt.Errorf("tonbo: table %q exists (--do-abort-on-exist)", name)
	}
	sch := have
	if sch == nil {
		sch = t.known[name]
		if sch == nil {
			sch = load.LookupPrefixed(usecase.LookupTable, t.opts.TablePrefix, name)
		}
		if sch == nil {
			sch = like
		}
		if sch == nil {
			return nil, fmt.Errorf("tonbo: table %q is not known (no use case or input header names it)", name)
		}
		c := *sch
		c.Name = name
		sch = &c
	}
	tb, err := newTable(dir, sch)
	if err != nil {
		return nil, fmt.Errorf("tonbo: %w", err)
	}
	if have == nil {
		if err := writeSchema(dir, sch); err != nil {
			return nil, err
		}
	}
	if err := tb.open(t.cfg.WAL); err != nil {
		return nil, err
	}
	t.tables[name] = tb
	return tb, nil
}

func readSchema(dir string) (*schema.Table, error) {
	data, err := os.ReadFile(filepath.Join(dir, schemaFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("tonbo: %w", err)
	}
	var tb schema.Table
	if err := json.Unmarshal(data, &tb); err != nil || len(tb.Columns) == 0 {
		return nil, fmt.Errorf("tonbo: %s: not a table's schema (%v)", filepath.Join(dir, schemaFile), err)
	}
	return &tb, nil
}

func writeSchema(dir string, tb *schema.Table) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("tonbo: %w", err)
	}
	data, err := json.MarshalIndent(tb, "", "\t")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, schemaFile), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("tonbo: %w", err)
	}
	return nil
}

// open opens the table's handle when it is closed.
func (tb *table) open(wal bool) error {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if tb.h != nil {
		return nil
	}
	h, err := bridgeOpen(filepath.Join(tb.dir, "data"), tb.spec, wal)
	if err != nil {
		return fmt.Errorf("tonbo: opening table %q: %w", tb.name, err)
	}
	tb.h = h
	return nil
}

// close flushes the table to its files and closes its handle.
func (tb *table) close() error {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if tb.h == nil {
		return nil
	}
	err := tb.h.close()
	tb.h, tb.dirty = nil, false
	if err != nil {
		return fmt.Errorf("tonbo: closing table %q: %w", tb.name, err)
	}
	return nil
}

// write writes rows encoded rows.
func (tb *table) write(mode int, buf []byte, rows int) error {
	tb.mu.RLock()
	defer tb.mu.RUnlock()
	if tb.h == nil {
		return fmt.Errorf("tonbo: table %q is closed", tb.name)
	}
	tb.dirty = true
	return tb.h.write(mode, buf, rows)
}

// scanned is what tt_scan reads: per column after the time, the non-NULL
// count, sums and extremes (IMin, IMax of integer columns, FMin, FMax of
// double ones).
type scanned struct {
	Rows, MinTime, MaxTime, Series int64
	Counts                         []int64
	IntHi                          []int64
	IntLo                          []uint64
	Sums, Abs                      []float64
	IMin, IMax                     []int64
	FMin, FMax                     []float64
}

func (tb *table) scan() (*scanned, error) {
	tb.mu.RLock()
	defer tb.mu.RUnlock()
	if tb.h == nil {
		return nil, fmt.Errorf("tonbo: table %q is closed", tb.name)
	}
	s, err := tb.h.scan(len(tb.kinds))
	if err != nil {
		return nil, fmt.Errorf("tonbo: reading table %q: %w", tb.name, err)
	}
	return s, nil
}

// flush closes every table (their rows go to files); they reopen when
// next used.
func (t *Target) flush() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	var err error
	for _, name := range sortedKeys(t.tables) {
		if cerr := t.tables[name].close(); cerr != nil && err == nil {
			err = cerr
		}
	}
	t.flushes++
	return err
}

func sortedKeys(m map[string]*table) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Finish flushes every table to its files after the last batch: the
// load's time includes making its rows durable (with the WAL off, rows
// not flushed would be lost), and verification reads them back from the
// files.
func (t *Target) Finish(context.Context) error { return t.flush() }

// FlushStorage flushes every table to its files (for the footprint).
func (t *Target) FlushStorage(context.Context, []string) (string, error) {
	return "tonbo flush_wal and flush of every table (closed and reopened)", t.flush()
}

// Count counts each table's live rows (0 for a table that does not exist).
func (t *Target) Count(ctx context.Context, tables []string) (map[string]int64, error) {
	if !Linked {
		return nil, ErrNoBridge
	}
	out := make(map[string]int64, len(tables))
	for _, name := range tables {
		tb, err := t.table(name, nil, false)
		if err != nil {
			return nil, err
		}
		if tb == nil {
			out[name] = 0
			continue
		}
		s, err := tb.scan()
		if err != nil {
			return nil, err
		}
		out[name] = s.Rows
	}
	return out, nil
}

// Content computes each table's fingerprint from one scan: rows, series,
// time range, per field the non-NULL count and the exact sum (integers),
// the sum and the sum of magnitudes (doubles), the byte lengths (strings),
// and the numeric fields' min and max.
func (t *Target) Content(ctx context.Context, qs []fingerprint.Query) (map[string]*fingerprint.Table, error) {
	if len(qs) == 0 {
		return map[string]*fingerprint.Table{}, nil
	}
	if !Linked {
		return nil, ErrNoBridge
	}
	return contentq.Each(qs, func(q fingerprint.Query) (*fingerprint.Table, error) {
		tb, err := t.table(q.Table, nil, false)
		if err != nil {
			return nil, err
		}
		if tb == nil {
			return contentq.Missing(q), nil
		}
		s, err := tb.scan()
		if err != nil {
			return nil, err
		}
		return tb.fingerprint(q, s), nil
	})
}

func (tb *table) fingerprint(q fingerprint.Query, s *scanned) *fingerprint.Table {
	fp := &fingerprint.Table{Name: q.Table, Rows: s.Rows, Series: s.Series, SeriesExact: true,
		MinTime: s.MinTime, MaxTime: s.MaxTime, TimeUnit: 1}
	if tb.first == 0 {
		fp.MinTime, fp.MaxTime = 0, 0
	}
	if !tb.tagged {
		fp.Series = contentq.NoTagSeries(s.Rows)
	}
	for _, fq := range q.Fields {
		f := fingerprint.Field{Name: fq.Name, Kind: fq.Kind}
		i, ok := tb.byName[fq.Name]
		if !ok || i < tb.first {
			fp.Fields = append(fp.Fields, f)
			continue
		}
		c, j := tb.tb.Columns[i], i-tb.first
		f.Count = s.Counts[j]
		sum := fingerprint.Int128{Hi: s.IntHi[j], Lo: s.IntLo[j]}
		switch tb.kinds[j] {
		case 'f':
			f.Kind, f.Float4, f.Sum, f.AbsSum = fingerprint.Float, c.Type == schema.Float4, s.Sums[j], s.Abs[j]
			f.Extremes, f.Min, f.Max = f.Count > 0, s.FMin[j], s.FMax[j]
		case 's':
			f.Kind, f.Len = fingerprint.String, int64(sum.Lo)
		default:
			switch fq.Kind {
			case fingerprint.Bool: // an ILP boolean, stored as 0 or 1
				f.True = int64(sum.Lo)
			case fingerprint.Uint:
				f.IntSum = sum
			default:
				f.Kind, f.IntSum = fingerprint.Int, sum
			}
			if fq.Kind != fingerprint.Bool && tb.kinds[j] == 'i' {
				f.Extremes = f.Count > 0
				f.IntMin, f.IntMax = fingerprint.Int128FromInt64(s.IMin[j]), fingerprint.Int128FromInt64(s.IMax[j])
			}
		}
		fp.Fields = append(fp.Fields, f)
	}
	return fp
}

// Close flushes and closes every table.
func (t *Target) Close() error { return t.flush() }

var _ load.Target = (*Target)(nil)

// Hooks declares the target's optional behaviours (load.Hooks).
func (t *Target) Hooks() load.Hooks {
	return load.Hooks{Finish: t.Finish, Overwrites: true, FlushStorage: t.FlushStorage}
}

// Ping: there is no server to reach (Prepare opens the tables).
func (t *Target) Ping(context.Context) error {
	if !Linked {
		return ErrNoBridge
	}
	return nil
}

// ServerAddr is "": tonbo runs inside the loader, whose command names its
// own process as the server's.
func (t *Target) ServerAddr() string { return "" }

// ServerVersion is the tonbo release the bridge links.
func (t *Target) ServerVersion(context.Context) (string, error) {
	if !Linked {
		return "", ErrNoBridge
	}
	return bridgeVersion(), nil
}

// Describe says where the load went and how it was written.
func (t *Target) Describe() *results.Setup {
	wal := "on"
	if !t.cfg.WAL {
		wal = "off"
	}
	return &results.Setup{URL: "file:" + t.cfg.Path, Settings: map[string]any{"commit": string(t.cfg.Commit), "wal": wal,
		"embedded": "tonbo runs inside the loader: its CPU and memory are the loader's",
		"key":      "series (tags) and time: a point of the same series and time replaces the one stored"}}
}

// Footprint is the size of the tables' directories (their Parquet files,
// write-ahead logs and manifests).
func (t *Target) Footprint(ctx context.Context, tables []string) (load.Size, error) {
	var total int64
	for _, name := range tables {
		err := filepath.WalkDir(filepath.Join(t.cfg.Path, name), func(_ string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type().IsRegular() {
				info, err := d.Info()
				if err != nil {
					return err
				}
				total += info.Size()
			}
			return nil
		})
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return load.Size{}, err
		}
	}
	sz := load.Size{Bytes: total, Method: "size of the tables' directories under " + t.cfg.Path}
	t.mu.Lock()
	for _, tb := range t.tables {
		tb.mu.RLock()
		if tb.dirty {
			sz.Mark = results.MarkLowerBound // rows in memtables, not yet in files
		}
		tb.mu.RUnlock()
	}
	t.mu.Unlock()
	return sz, nil
}

// InDoubt: a stopped load cannot be resumed. tonbo keeps its write-ahead
// log in the process's buffers until it flushes (Finish, Close), so rows
// acknowledged before the process was killed may be lost, and the runner
// would skip their batches.
func (t *Target) InDoubt(context.Context, []string) (load.InDoubt, error) {
	return 0, fmt.Errorf("tonbo: a stopped load cannot be resumed (rows acknowledged before a kill may be in tonbo's unflushed buffers): %w", errors.ErrUnsupported)
}

// ReadTable opens the table in dir (a directory of the load's, with its
// schema.json) with a handle of its own, not through a Target, and returns
// its live rows and distinct series (tests read what a load left this way).
func ReadTable(dir string) (rows, series int64, err error) {
	sch, err := readSchema(dir)
	if err != nil {
		return 0, 0, err
	}
	if sch == nil {
		return 0, 0, fmt.Errorf("tonbo: %s holds no table", dir)
	}
	tb, err := newTable(dir, sch)
	if err != nil {
		return 0, 0, fmt.Errorf("tonbo: %w", err)
	}
	if err := tb.open(true); err != nil {
		return 0, 0, err
	}
	s, err := tb.scan()
	if cerr := tb.close(); err == nil && cerr != nil {
		return 0, 0, cerr
	}
	if err != nil {
		return 0, 0, err
	}
	return s.Rows, s.Series, nil
}
