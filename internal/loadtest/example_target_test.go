package loadtest_test

// The worked example of docs/adding-a-target.md: a target written from
// the doc alone that needs no server. Its "database" is a store in the
// loader's memory: it keeps each row's timestamp, tag set and field
// values, counts them, and computes fingerprints from what it holds. It
// passes loadtest.TargetSuite as an embedded database (Embedded: no
// server address, no faults, no resume). What it lacks it says: no
// footprint (nothing on disk), no resume (memory dies with the process),
// no querier (a --query-rate is refused).

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/influxdata/line-protocol/v2/lineprotocol"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/fingerprint"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/results"
)

// memRow is one stored row.
type memRow struct {
	time   int64  // nanoseconds since the epoch
	series string // the tag set, "k=v,k=v" sorted by key
	host   string // the "host" tag, for the suite's distinct keys
	fields []memField
}

type memField struct {
	name string
	v    lineprotocol.Value // a copy, independent of the batch's bytes
}

// memTarget is the whole target: the face of load.Target over a map of
// tables. It takes line protocol only; the runner writes CSV as lines for
// it (runner.Accepts).
type memTarget struct {
	mu     sync.Mutex
	tables map[string][]memRow
	db     string
}

var _ load.Target = (*memTarget)(nil)

func newMemTarget() *memTarget { return &memTarget{tables: map[string][]memRow{}} }

func (m *memTarget) Accepts(f format.Format) error {
	if f != format.ILP {
		return fmt.Errorf("the memory store takes line protocol only, not %s", f)
	}
	return nil
}

func (m *memTarget) Prepare(_ context.Context, opts load.PrepareOptions) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if opts.DropDB {
		m.tables = map[string][]memRow{}
	}
	if opts.AbortOnExist {
		for _, t := range opts.Tables {
			if _, ok := m.tables[opts.TablePrefix+t.Name]; ok {
				return fmt.Errorf("table %s already exists", opts.TablePrefix+t.Name)
			}
		}
	}
	m.db = opts.DBName
	return nil
}

func (m *memTarget) NewWriter(context.Context, int) (load.Writer, error) {
	return memWriter{m}, nil
}

// Count takes the store's lock, so it may run while writers write.
func (m *memTarget) Count(_ context.Context, tables []string) (map[string]int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]int64, len(tables))
	for _, t := range tables {
		out[t] = int64(len(m.tables[t]))
	}
	return out, nil
}

// Close releases nothing: the store outlives a run, as a server's
// tables do (the suite loads the same target twice).
func (m *memTarget) Close() error { return nil }

// Ping: the store is in this process; it always answers.
func (m *memTarget) Ping(context.Context) error { return nil }

// ServerVersion: the store is this code, built by this Go.
func (m *memTarget) ServerVersion(context.Context) (string, error) {
	return "memory store (" + runtime.Version() + ")", nil
}

// ServerAddr: no server to find.
func (m *memTarget) ServerAddr() string { return "" }

func (m *memTarget) Describe() *results.Setup {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := &results.Setup{Database: m.db}
	for name := range m.tables {
		s.Tables = append(s.Tables, results.TableSetup{Name: name})
	}
	sort.Slice(s.Tables, func(i, j int) bool { return s.Tables[i].Name < s.Tables[j].Name })
	return s
}

// Footprint: memory is not storage, and a count of Go heap bytes would be
// a figure of the loader, not of a database.
func (m *memTarget) Footprint(context.Context, []string) (load.Size, error) {
	return load.Size{}, fmt.Errorf("an in-memory store has nothing on disk: %w", errors.ErrUnsupported)
}

// InDoubt: what a stopped loader held is gone with it.
func (m *memTarget) InDoubt(context.Context, []string) (load.InDoubt, error) {
	return 0, fmt.Errorf("the store lives in the loader's process: %w", errors.ErrUnsupported)
}

// Hooks: none. Every row is stored once per write (no Overwrites), rows
// are countable once acknowledged (no Await), and there is no querier.
func (m *memTarget) Hooks() load.Hooks { return load.Hooks{} }

// Content computes each table's fingerprint from the rows it holds, as a
// database would with one aggregate query. With no queries it answers at
// once.
func (m *memTarget) Content(_ context.Context, qs []fingerprint.Query) (map[string]*fingerprint.Table, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]*fingerprint.Table, len(qs))
	for _, q := range qs {
		ft := &fingerprint.Table{Name: q.Table, SeriesExact: true}
		series := map[string]bool{}
		sums := make([]fingerprint.Field, len(q.Fields))
		for i, f := range q.Fields {
			sums[i] = fingerprint.Field{Name: f.Name, Kind: f.Kind}
		}
		for _, r := range m.tables[q.Table] {
			if ft.Rows == 0 || r.time < ft.MinTime {
				ft.MinTime = r.time
			}
			if ft.Rows == 0 || r.time > ft.MaxTime {
				ft.MaxTime = r.time
			}
			ft.Rows++
			series[r.series] = true
			for i := range sums {
				for _, f := range r.fields {
					if f.name == sums[i].Name {
						add(&sums[i], f.v)
					}
				}
			}
		}
		ft.Series, ft.Fields = int64(len(series)), sums
		out[q.Table] = ft
	}
	return out, nil
}

// add adds one value to a field's aggregates (numeric fields: min and
// max too; a target that cannot compute them leaves Extremes false).
func add(f *fingerprint.Field, v lineprotocol.Value) {
	f.Count++
	first := !f.Extremes
	widen := func(x fingerprint.Int128) {
		if first || x.Cmp(f.IntMin) < 0 {
			f.IntMin = x
		}
		if first || x.Cmp(f.IntMax) > 0 {
			f.IntMax = x
		}
		f.Extremes = true
	}
	switch v.Kind() {
	case lineprotocol.Float:
		x := v.FloatV()
		f.Sum += x
		f.AbsSum += math.Abs(x)
		if first || x < f.Min {
			f.Min = x
		}
		if first || x > f.Max {
			f.Max = x
		}
		f.Extremes = true
	case lineprotocol.Int:
		f.IntSum = f.IntSum.AddInt64(v.IntV())
		f.AbsSum += math.Abs(float64(v.IntV()))
		widen(fingerprint.Int128FromInt64(v.IntV()))
	case lineprotocol.Uint:
		f.IntSum = f.IntSum.AddUint64(v.UintV())
		f.AbsSum += float64(v.UintV())
		widen(fingerprint.Int128FromUint64(v.UintV()))
	case lineprotocol.String:
		f.Len += int64(len(v.StringV()))
	case lineprotocol.Bool:
		if v.BoolV() {
			f.True++
		}
	}
}

// memWriter stores whole batches: a batch with one bad line is refused
// and stores nothing.
type memWriter struct{ m *memTarget }

func (w memWriter) Write(_ context.Context, b *load.Batch) (load.Ack, error) {
	rows := map[string][]memRow{}
	n := 0
	dec := lineprotocol.NewDecoderWithBytes(b.Data)
	for line := b.FirstLine; dec.Next(); line++ {
		table, r, err := decodeRow(dec)
		if err != nil {
			// Not retryable: the same bytes fail the same way.
			return load.Ack{}, fmt.Errorf("%s: %w", b.Where(), err)
		}
		rows[table] = append(rows[table], r)
		n++
	}
	w.m.mu.Lock()
	for t, rs := range rows {
		w.m.tables[t] = append(w.m.tables[t], rs...)
	}
	w.m.mu.Unlock()
	return load.Ack{Rows: n}, nil
}

func (w memWriter) Close() error { return nil }

// decodeRow reads the decoder's current line into a row (strings copied:
// the batch's bytes are the runner's).
func decodeRow(dec *lineprotocol.Decoder) (string, memRow, error) {
	var r memRow
	name, err := dec.Measurement()
	if err != nil {
		return "", r, err
	}
	var tags []string
	for {
		k, v, err := dec.NextTag()
		if err != nil {
			return "", r, err
		}
		if k == nil {
			break
		}
		tags = append(tags, string(k)+"="+string(v))
		if string(k) == "host" {
			r.host = string(v)
		}
	}
	sort.Strings(tags)
	r.series = strings.Join(tags, ",")
	for {
		k, v, err := dec.NextField()
		if err != nil {
			return "", r, err
		}
		if k == nil {
			break
		}
		if v.Kind() == lineprotocol.String {
			v = lineprotocol.MustNewValue(v.StringV()) // StringV copies
		}
		r.fields = append(r.fields, memField{string(k), v})
	}
	ts, err := dec.Time(lineprotocol.Nanosecond, time.Time{})
	if err != nil {
		return "", r, err
	}
	if ts.IsZero() {
		return "", r, errors.New("a line without a timestamp")
	}
	r.time = ts.UnixNano()
	return string(name), r, nil
}

// memRows is the suite's RowsFunc: it reads the store directly, not
// through Count or Content.
func memRows(t *testing.T, tg load.Target, table string) (rows, keys int64) {
	m := tg.(*memTarget)
	m.mu.Lock()
	defer m.mu.Unlock()
	distinct := map[string]bool{}
	for _, r := range m.tables[table] {
		distinct[fmt.Sprint(r.time, r.host)] = true
	}
	return int64(len(m.tables[table])), int64(len(distinct))
}

// TestExampleTarget runs the conformance suite on the memory store, the
// worked example of docs/adding-a-target.md.
func TestExampleTarget(t *testing.T) {
	newTarget := func(t *testing.T, _ string, _ time.Duration) (load.Target, load.PrepareOptions) {
		return newMemTarget(), load.PrepareOptions{DBName: "example", CreateDB: true, DropDB: true}
	}
	loadtest.TargetSuite{Loader: "load_memory", New: newTarget, Rows: memRows, Embedded: true}.Run(t, "example")
}
