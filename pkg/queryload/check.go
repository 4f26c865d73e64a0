package queryload

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/influxdata/line-protocol/v2/lineprotocol"

	"github.com/tsload/tsload/pkg/query"
)

// checkStore holds what the checks need of the rows acknowledged: for each
// query type of the mix, its answers' partials (a query.Partials per type,
// in grains of time); and, for a target whose acknowledgement does not
// mean visible, the count of every field read per table (what the
// database must count before a window is checked: visible.go). Each
// batch is read into it once, from the bytes the writer sent, when it is
// acknowledged whole: no check reads the input file again, so a file
// replaced or changed while it is loaded changes nothing here, and one
// read serves every check.
type checkStore struct {
	mu     sync.Mutex
	grain  time.Duration
	unit   int64                  // ns per ILP timestamp unit
	tables map[string]*storeTable // by measurement, as the input names it
	kinds  []*query.Partials      // per kind of the mix; nil: not checked
	spans  []time.Duration        // per kind
	counts map[string]*query.Partials
	held   map[int64]int // window starts of answers not yet checked (ns)
	names  map[string]string
	lastM  string      // the table of the last line scan read
	lastT  *storeTable // (its name)
	err    error       // a batch could not be read: no more checks
}

// storeTable is what is read of the rows of one table, and the row being
// read (its tags and fields in the order of tags and fields: the
// rollups' Bind).
type storeTable struct {
	tags, fields []string
	rollups      []*query.Partials
	tagVals      []string
	hasTag       []bool
	vals         []float64
	has          []bool
	// The rollups of the newest row (query.Last: lastpoint, last-loc)
	// need a row's values only when no later row of its series and grain
	// comes: pending keeps the newest line of each series (by every tag
	// read) in its grain, and only its values are read, when a row of
	// another grain comes or an answer needs them (flush). The other
	// rollups' fields are eager: read from every row. raw: the fields of
	// the row scan read.
	lazy   []*query.Partials
	eager  []bool // per field
	nEager int    // the eager fields: a line's fields are read up to the last of them
	// The rollups of rows over a threshold (query.Rows with a Filter:
	// high-cpu, low-fuel) keep a fraction of the rows: only the
	// Filter's field is eager for them, and a row's other fields are
	// read when one of them keeps the row.
	gated    []*query.Partials
	pending  []*pendingRow // by series number
	borrowed []*pendingRow // whose raw is in the batch being read
	// ids number the series (the values of every tag read): the rollups
	// find a row's series by its number (query.Partials.AddRowID).
	ids        map[string]int
	seriesTags [][]string // by series number: its tag values
	id         int        // the series of the row read
	tagRaw     [][]byte   // scan's tag values, in the line
	key        []byte
	raw        []byte
}

// pendingRow is the newest line of a series in grain g that a lazy rollup
// has not read yet.
type pendingRow struct {
	id      int
	g, ns   int64
	tagVals []string
	hasTag  []bool
	// raw: the row's fields; while the batch is read, in the batch
	// (borrowed), else in buf.
	raw, buf []byte
	borrowed bool
}

// checkGrain is the grain of the partials: the greatest divisor of a
// minute that divides the dataset's start and every bucket of the mix, so
// that every checked window (whole grains from the start) can be answered.
func checkGrain(kinds []query.Kind, ds *query.Dataset, start time.Time) time.Duration {
	g := int64(time.Minute)
	gcd := func(a, b int64) int64 {
		for b != 0 {
			a, b = b, a%b
		}
		return a
	}
	if off := start.UnixNano() % g; off != 0 {
		g = gcd(g, max(off, -off))
	}
	for _, k := range kinds {
		if b := int64(k.Build(ds, 0, start, start.Add(k.Span)).Bucket); b > 0 {
			g = gcd(g, b)
		}
	}
	return time.Duration(g)
}

// newCheckStore is the store of the kinds of the mix; the notes say which
// kinds cannot be checked, and why. counts: keep the counts for
// visibility.
func newCheckStore(kinds []query.Kind, ds *query.Dataset, start time.Time, unit int64, counts bool) (*checkStore, []string) {
	s := &checkStore{grain: checkGrain(kinds, ds, start), unit: unit, tables: map[string]*storeTable{}, held: map[int64]int{},
		names: map[string]string{}}
	var notes []string
	countFields, eagerFields := map[string][]string{}, map[string][]string{}
	for _, k := range kinds {
		sample := k.Build(ds, 0, start, start.Add(k.Span))
		var r *query.Partials
		var err error
		for seq := uint64(1); seq < 32 && err == nil; seq++ {
			if !query.SameShape(sample, k.Build(ds, seq, start, start.Add(k.Span))) {
				err = fmt.Errorf("its queries differ in more than their window and tag values")
			}
		}
		m, ok := strings.CutPrefix(sample.Table, ds.TablePrefix)
		if err == nil && !ok {
			err = fmt.Errorf("its table %q lacks the prefix %q", sample.Table, ds.TablePrefix)
		}
		if err == nil {
			r, err = query.NewPartials(sample, s.grain)
		}
		s.kinds, s.spans = append(s.kinds, r), append(s.spans, k.Span)
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s not checked: %v", k.Name, err))
			continue
		}
		t := s.table(m)
		switch {
		case counts: // the counts read every field of every row
			t.rollups = append(t.rollups, r)
			eagerFields[m] = union(eagerFields[m], r.Fields())
		case sample.Agg == query.Last:
			t.lazy = append(t.lazy, r)
		case sample.Agg == query.Rows && sample.Filter != nil:
			t.gated = append(t.gated, r)
			eagerFields[m] = union(eagerFields[m], []string{r.Filter()})
		default:
			t.rollups = append(t.rollups, r)
			eagerFields[m] = union(eagerFields[m], r.Fields())
		}
		t.tags = union(t.tags, r.Tags())
		t.fields = union(t.fields, r.Fields())
		countFields[m] = union(countFields[m], r.Fields())
	}
	if counts {
		s.counts = map[string]*query.Partials{}
		for m, f := range countFields {
			slices.Sort(f)
			r, _ := query.NewPartials(&query.Query{Name: "visible", Table: ds.TablePrefix + m, Fields: f, Agg: query.Count, Bucket: s.grain}, s.grain)
			s.counts[m] = r
			s.tables[m].rollups = append(s.tables[m].rollups, r)
			eagerFields[m] = union(eagerFields[m], f)
		}
	}
	for m, t := range s.tables {
		t.tagVals, t.hasTag = make([]string, len(t.tags)), make([]bool, len(t.tags))
		t.vals, t.has = make([]float64, len(t.fields)), make([]bool, len(t.fields))
		t.eager, t.ids, t.tagRaw = make([]bool, len(t.fields)), map[string]int{}, make([][]byte, len(t.tags))
		for i, f := range t.fields {
			t.eager[i] = slices.Contains(eagerFields[m], f)
			if t.eager[i] {
				t.nEager++
			}
		}
		for _, r := range slices.Concat(t.rollups, t.lazy, t.gated) {
			if err := r.Bind(t.tags, t.fields); err != nil {
				panic(err) // the union of the rollups' names
			}
		}
	}
	return s, notes
}

func (s *checkStore) table(m string) *storeTable {
	t := s.tables[m]
	if t == nil {
		t = &storeTable{}
		s.tables[m] = t
	}
	return t
}

func union(a, b []string) []string {
	for _, x := range b {
		if !slices.Contains(a, x) {
			a = append(a, x)
		}
	}
	return a
}

// add reads an acknowledged batch's line protocol into the partials; lo
// and hi are the least and greatest timestamps (input units) of the rows
// read (ok: there was one).
func (s *checkStore) add(data []byte) (lo, hi int64, ok bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return 0, 0, false, s.err
	}
	if lo, hi, ok, err = s.read(data); err != nil {
		s.err = err
	}
	return lo, hi, ok, s.err
}

func (s *checkStore) read(data []byte) (lo, hi int64, ok bool, err error) {
	lo, hi = math.MaxInt64, math.MinInt64
	// Generated data has neither escapes nor quotes: one look at the
	// whole batch spares one per line.
	plain := bytes.IndexByte(data, '\\') < 0 && bytes.IndexByte(data, '"') < 0
	for line := 1; len(data) > 0; line++ {
		n := bytes.IndexByte(data, '\n')
		if n < 0 {
			n = len(data)
		}
		l := data[:n]
		data = data[min(n+1, len(data)):]
		var t *storeTable
		var ns int64
		decoded := !plain && (bytes.IndexByte(l, '\\') >= 0 || bytes.IndexByte(l, '"') >= 0)
		if decoded {
			t, ns, err = s.decode(l) // escapes, strings: the full grammar, every field
		} else {
			t, ns, err = s.scan(l, false)
		}
		if err == nil && t != nil {
			lo, hi, ok = min(lo, ns), max(hi, ns), true
			id := t.id
			for _, r := range t.rollups {
				r.AddRowID(id, ns*s.unit, t.tagVals, t.hasTag, t.vals, t.has)
			}
			full := decoded
			for _, r := range t.gated {
				if !r.Keeps(t.vals, t.has) {
					continue
				}
				if !full {
					if err = t.readFields(t.raw, true); err != nil {
						break
					}
					full = true
				}
				r.AddRowID(id, ns*s.unit, t.tagVals, t.hasTag, t.vals, t.has)
			}
			if len(t.lazy) > 0 && err == nil {
				err = s.lazyRow(t, id, ns, decoded)
			}
		}
		if err != nil {
			s.own()
			return 0, 0, false, fmt.Errorf("line %d of a batch: %w", line, err)
		}
	}
	s.own()
	return lo, hi, ok, nil
}

// seriesID numbers the series of the row in t's vectors (t.id).
func (t *storeTable) seriesID() {
	t.key = t.key[:0]
	for i, v := range t.tagVals {
		if t.hasTag[i] {
			t.key = append(append(t.key, 1), v...)
		}
		t.key = append(t.key, 0)
	}
	t.number()
}

// number sets t.id to the number of the series t.key spells, a new one
// for a new series (t.tagVals then hold its values).
func (t *storeTable) number() {
	id, ok := t.ids[string(t.key)]
	if !ok {
		id = len(t.ids)
		t.ids[string(t.key)] = id
		t.seriesTags = append(t.seriesTags, slices.Clone(t.tagVals))
	}
	t.id = id
}

// seriesRaw numbers the series of the tags scan found in the line
// (t.tagRaw), and sets t.tagVals to their values: one lookup per row.
func (t *storeTable) seriesRaw(s *checkStore) {
	t.key = t.key[:0]
	for i, v := range t.tagRaw {
		if t.hasTag[i] {
			t.key = append(append(t.key, 1), v...)
		}
		t.key = append(t.key, 0)
	}
	if id, ok := t.ids[string(t.key)]; ok {
		t.id = id
		copy(t.tagVals, t.seriesTags[id])
		return
	}
	for i, v := range t.tagRaw {
		if t.hasTag[i] {
			t.tagVals[i] = s.name(v)
		}
	}
	t.number()
}

// isSpace is a blank of a line's edges.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }

// own copies the pending rows that lie in the batch just read: the
// batch's bytes are not kept.
func (s *checkStore) own() {
	for _, t := range s.tables {
		for _, p := range t.borrowed {
			if p.borrowed && p.raw != nil {
				p.buf = append(p.buf[:0], p.raw...)
				p.raw = p.buf
			}
			p.borrowed = false
		}
		clear(t.borrowed)
		t.borrowed = t.borrowed[:0]
	}
}

// lazyRow hands the row in t's vectors (id: its series; ns: its time;
// full: every field read, else t.raw holds them) to the lazy rollups: it
// becomes its series' pending row unless an older row of its grain is
// (then it replaces it), or a newer one is (then it is dropped: the lazy
// rollups keep the newest row of a grain, the first of those at one
// time).
func (s *checkStore) lazyRow(t *storeTable, id int, ns int64, full bool) error {
	if id >= len(t.pending) {
		t.pending = append(t.pending, make([]*pendingRow, id+1-len(t.pending))...)
	}
	p := t.pending[id]
	if full { // its values are read: straight to the rollups, after the pending
		if p != nil && p.raw != nil {
			tagVals, hasTag, vals, has := slices.Clone(t.tagVals), slices.Clone(t.hasTag), slices.Clone(t.vals), slices.Clone(t.has)
			if err := s.flush(t, p); err != nil {
				return err
			}
			copy(t.tagVals, tagVals)
			copy(t.hasTag, hasTag)
			copy(t.vals, vals)
			copy(t.has, has)
		}
		for _, r := range t.lazy {
			r.AddRowID(id, ns*s.unit, t.tagVals, t.hasTag, t.vals, t.has)
		}
		return nil
	}
	g := floorTo(ns*s.unit, int64(s.grain))
	switch {
	case p != nil && p.raw != nil && p.g == g:
		if ns <= p.ns {
			return nil
		}
	case p != nil && p.raw != nil: // the series moved to another grain: its row there is read
		if err := s.flush(t, p); err != nil {
			return err
		}
	case p == nil:
		p = &pendingRow{id: id, tagVals: slices.Clone(t.tagVals), hasTag: slices.Clone(t.hasTag)}
		t.pending[id] = p
	}
	p.g, p.ns, p.raw = g, ns, t.raw
	if !p.borrowed {
		p.borrowed = true
		t.borrowed = append(t.borrowed, p)
	}
	return nil
}

// flush reads pending row p of t into the lazy rollups (t's vectors are
// overwritten); p is then empty (raw nil).
func (s *checkStore) flush(t *storeTable, p *pendingRow) error {
	t.clear()
	copy(t.tagVals, p.tagVals)
	copy(t.hasTag, p.hasTag)
	raw := p.raw
	p.raw = nil
	if err := t.readFields(raw, true); err != nil {
		return err
	}
	for _, r := range t.lazy {
		r.AddRowID(p.id, p.ns*s.unit, t.tagVals, t.hasTag, t.vals, t.has)
	}
	return nil
}

// flushAll reads every pending row (s.mu held): before an answer or a
// forget, the lazy rollups hold every row added.
func (s *checkStore) flushAll() {
	for _, t := range s.tables {
		for _, p := range t.pending {
			if p == nil || p.raw == nil {
				continue
			}
			if err := s.flush(t, p); err != nil && s.err == nil {
				s.err = err
			}
		}
	}
}

// scan reads line l (without escapes or quotes) into its table's row
// vectors: nil when l is blank, a comment or of a table no query reads.
// Unless all, it reads the values of the eager fields only (t.raw keeps
// the line's fields for the rest).
func (s *checkStore) scan(l []byte, all bool) (*storeTable, int64, error) {
	for len(l) > 0 && isSpace(l[0]) {
		l = l[1:]
	}
	if len(l) == 0 || l[0] == '#' {
		return nil, 0, nil
	}
	end := 0
	for end < len(l) && l[end] != ',' && l[end] != ' ' {
		end++
	}
	t := s.lastT
	if string(l[:end]) != s.lastM {
		t = s.tables[string(l[:end])]
		if t != nil {
			s.lastM, s.lastT = string(l[:end]), t
		}
	}
	if t == nil {
		return nil, 0, nil // no table a query reads (the load judged the line)
	}
	if end == len(l) {
		return nil, 0, fmt.Errorf("no fields: %q", l)
	}
	t.clear()
	rest := l[end:]
	if rest[0] == ',' {
		sp := bytes.IndexByte(rest, ' ')
		if sp < 0 {
			return nil, 0, fmt.Errorf("no fields: %q", l)
		}
		for tags, found := rest[1:sp], 0; len(tags) > 0 && found < len(t.tags); {
			kv := tags
			if c := bytes.IndexByte(tags, ','); c >= 0 {
				kv, tags = tags[:c], tags[c+1:]
			} else {
				tags = nil
			}
			eq := bytes.IndexByte(kv, '=')
			if eq <= 0 || eq == len(kv)-1 {
				return nil, 0, fmt.Errorf("tag %q is not key=value", kv)
			}
			if i := indexIn(t.tags, kv[:eq]); i >= 0 && !t.hasTag[i] {
				t.tagRaw[i], t.hasTag[i] = kv[eq+1:], true
				found++ // the other tags are not read
			}
		}
		rest = rest[sp:]
	}
	t.seriesRaw(s)
	// Fields hold no blank (no quotes): the timestamp is the line's
	// last word, read from its end.
	for len(rest) > 0 && rest[0] == ' ' {
		rest = rest[1:]
	}
	for len(rest) > 0 && (rest[len(rest)-1] == ' ' || rest[len(rest)-1] == '\r') {
		rest = rest[:len(rest)-1]
	}
	sp := bytes.LastIndexByte(rest, ' ')
	if sp < 0 {
		return nil, 0, fmt.Errorf("no timestamp: %q", l)
	}
	fields, ts := rest[:sp], rest[sp+1:]
	for len(fields) > 0 && fields[len(fields)-1] == ' ' {
		fields = fields[:len(fields)-1]
	}
	if err := t.readFields(fields, all); err != nil {
		return nil, 0, err
	}
	t.raw = fields
	if ns, ok := digits(ts); ok {
		return t, ns, nil
	}
	ns, err := strconv.ParseInt(unsafe.String(unsafe.SliceData(ts), len(ts)), 10, 64)
	if err != nil {
		return nil, 0, fmt.Errorf("timestamp %q: %w", ts, err)
	}
	return t, ns, nil
}

// readFields reads a line's fields into the row vectors: all of them, or
// the eager ones only (then it stops after the last of them: generated
// lines name each field once).
func (t *storeTable) readFields(fields []byte, all bool) error {
	left := t.nEager
	if all {
		left = -1
	}
	for hint := 0; len(fields) > 0 && left != 0; {
		// The fast path: the field the order of the last line names next,
		// with a plain decimal value (what generated data holds); anything
		// else takes the general path below, from the field's start.
		if hint < len(t.fields) {
			if f := t.fields[hint]; len(fields) > len(f) && fields[len(f)] == '=' && string(fields[:len(f)]) == f {
				if !all && !t.eager[hint] { // read with its row, if it is the newest (lazy)
					if c := bytes.IndexByte(fields[len(f)+1:], ','); c >= 0 {
						fields = fields[len(f)+1+c+1:]
					} else {
						fields = nil
					}
					hint++
					continue
				}
				if v, n, ok := decimal(fields[len(f)+1:]); ok {
					t.vals[hint], t.has[hint] = v, true
					fields = fields[min(len(f)+1+n+1, len(fields)):]
					hint++
					left--
					continue
				}
			}
		}
		kv := fields
		if c := bytes.IndexByte(fields, ','); c >= 0 {
			kv, fields = fields[:c], fields[c+1:]
		} else {
			fields = nil
		}
		eq := bytes.IndexByte(kv, '=')
		if eq <= 0 || eq == len(kv)-1 {
			return fmt.Errorf("field %q is not key=value", kv)
		}
		i := hint
		if i >= len(t.fields) || t.fields[i] != string(kv[:eq]) {
			i = indexIn(t.fields, kv[:eq])
		}
		if i < 0 {
			continue
		}
		hint = i + 1 // lines name their fields in one order
		if !all && !t.eager[i] {
			continue
		}
		v, err := number(kv[eq+1:])
		if err != nil {
			return fmt.Errorf("field %s: %w", kv[:eq], err)
		}
		if !math.IsNaN(v) {
			t.vals[i], t.has[i] = v, true
		}
		left--
	}
	return nil
}

// pow10 are the powers of ten a float64 holds exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
	1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// decimal reads the plain decimal ([-]digits[.digits]) that starts v and
// ends at a comma or v's end: its value, its length, and false when v
// holds anything else or more digits than it reads exactly. With at most
// 15 digits, the digits as an integer and the power of ten are exact
// float64s, so their quotient is the correctly rounded value, the one
// strconv.ParseFloat returns; it costs a fraction of ParseFloat's time,
// and every row the checks read pays it for each field.
func decimal(v []byte) (float64, int, bool) {
	i, neg := 0, false
	if len(v) > 0 && v[0] == '-' {
		i, neg = 1, true
	}
	var m uint64
	nd, frac, dot := 0, 0, false
	for ; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= '0' && c <= '9':
			m = m*10 + uint64(c-'0')
			nd++
			if dot {
				frac++
			}
		case c == '.' && !dot && nd > 0:
			dot = true
		case c == ',':
			goto end
		default:
			return 0, 0, false
		}
	}
end:
	if nd == 0 || nd > 15 || dot && frac == 0 {
		return 0, 0, false
	}
	f := float64(m) / pow10[frac]
	if neg {
		f = -f
	}
	return f, i, true
}

// digits reads a timestamp of at most 19 digits (no sign) that int64
// holds.
func digits(v []byte) (int64, bool) {
	if len(v) == 0 || len(v) > 19 {
		return 0, false
	}
	var n uint64 // 19 digits stay below 2^64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return int64(n), n <= math.MaxInt64
}

// number is a line-protocol field value as a float: NaN for a boolean.
func number(v []byte) (float64, error) {
	switch v[len(v)-1] {
	case 'i':
		n, err := strconv.ParseInt(unsafe.String(unsafe.SliceData(v), len(v)-1), 10, 64)
		return float64(n), err
	case 'u':
		n, err := strconv.ParseUint(unsafe.String(unsafe.SliceData(v), len(v)-1), 10, 64)
		return float64(n), err
	}
	switch string(v) {
	case "t", "T", "true", "True", "TRUE", "f", "F", "false", "False", "FALSE":
		return math.NaN(), nil
	}
	return strconv.ParseFloat(unsafe.String(unsafe.SliceData(v), len(v)), 64)
}

func (t *storeTable) clear() {
	clear(t.hasTag)
	clear(t.tagVals)
	clear(t.has)
}

// decode is scan for any line, with the line-protocol decoder.
func (s *checkStore) decode(l []byte) (*storeTable, int64, error) {
	dec := lineprotocol.NewDecoderWithBytes(l)
	if !dec.Next() {
		return nil, 0, dec.Err()
	}
	m, err := dec.Measurement()
	if err != nil {
		return nil, 0, err
	}
	t := s.tables[string(m)]
	if t == nil {
		return nil, 0, nil
	}
	t.clear()
	for {
		k, v, err := dec.NextTag()
		if err != nil {
			return nil, 0, err
		}
		if k == nil {
			break
		}
		if i := indexIn(t.tags, k); i >= 0 && !t.hasTag[i] {
			t.tagVals[i], t.hasTag[i] = s.name(v), true
		}
	}
	t.seriesID()
	for {
		k, val, err := dec.NextField()
		if err != nil {
			return nil, 0, err
		}
		if k == nil {
			break
		}
		i := indexIn(t.fields, k)
		if i < 0 {
			continue
		}
		switch val.Kind() {
		case lineprotocol.Float:
			t.vals[i], t.has[i] = val.FloatV(), true
		case lineprotocol.Int:
			t.vals[i], t.has[i] = float64(val.IntV()), true
		case lineprotocol.Uint:
			t.vals[i], t.has[i] = float64(val.UintV()), true
		}
	}
	ts, err := dec.TimeBytes()
	if err != nil {
		return nil, 0, err
	}
	ns, err := strconv.ParseInt(string(ts), 10, 64)
	if err != nil {
		return nil, 0, fmt.Errorf("timestamp %q: %w", ts, err)
	}
	return t, ns, nil
}

// name is v as a string, one string per distinct value.
func (s *checkStore) name(v []byte) string {
	if n, ok := s.names[string(v)]; ok {
		return n
	}
	n := string(v)
	s.names[n] = n
	return n
}

// indexIn is the index of the element of names that k spells, or -1.
func indexIn(names []string, k []byte) int {
	for i, n := range names {
		if n == string(k) {
			return i
		}
	}
	return -1
}

// answer is the expected answer to q (kind ki), or false when the store
// cannot say it (its kind is not checked, its window was forgotten, a
// batch could not be read).
func (s *checkStore) answer(ki int, q *query.Query) (*query.Answer, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flushAll()
	if s.err != nil || s.kinds[ki] == nil {
		return nil, false
	}
	return s.kinds[ki].Answer(q)
}

// counted is the count of each field of table m per grain of [start,
// end) as the input has it (visibility): the query to ask, and the
// counts by grain start.
func (s *checkStore) counted(m string, start, end time.Time) (*query.Query, map[int64][]float64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flushAll()
	r := s.counts[m]
	if s.err != nil || r == nil {
		return nil, nil, false
	}
	q := &query.Query{Name: "visible", Table: r.Table(), Fields: r.Fields(), Agg: query.Count, Bucket: s.grain, Start: start, End: end}
	a, ok := r.Answer(q)
	if !ok {
		return nil, nil, false
	}
	c, _ := perGrain(a, len(q.Fields))
	return q, c, true
}

// countsOf reads a Count answer's first row: no row is 0.
func countsOf(a *query.Answer, n int) []float64 {
	c := make([]float64, n)
	if len(a.Rows) > 0 {
		copy(c, a.Rows[0].Values)
	}
	for i, v := range c {
		if math.IsNaN(v) {
			c[i] = 0
		}
	}
	return c
}

// hold keeps the rows from start on until release(start): an answer over
// a window from start waits to be checked.
func (s *checkStore) hold(start time.Time) {
	s.mu.Lock()
	s.held[start.UnixNano()]++
	s.mu.Unlock()
}

func (s *checkStore) release(start time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := start.UnixNano()
	if s.held[k]--; s.held[k] <= 0 {
		delete(s.held, k)
	}
}

// forget drops the partials no window can need any more: each kind's
// before end minus its span (windows end at end or later), the counts'
// before visible, nothing an answer waiting to be checked reads.
func (s *checkStore) forget(end, visible time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flushAll()
	minHeld := int64(math.MaxInt64)
	for k := range s.held {
		minHeld = min(minHeld, k)
	}
	for i, r := range s.kinds {
		if r != nil {
			r.Forget(time.Unix(0, min(end.Add(-s.spans[i]).UnixNano(), minHeld)))
		}
	}
	for _, r := range s.counts {
		r.Forget(visible)
	}
}
