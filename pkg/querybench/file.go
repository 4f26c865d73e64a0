// Package querybench is the query half of the benchmark: a seeded set of
// queries of TSBS's catalogue (query.TSBSKinds) written to a file once
// (Generate, cmd/generate_queries), replayed against every loaded database
// (Run: workers, an optional rate, a warm-up, HDR latencies per query
// type), every answer checked against the reference evaluator over the
// loaded input (Expect: one pass over the input for the whole set).
//
// A query set is a text file of JSON lines (docs/queries.md): a header
// line, then one line per query, each a dialect-free query.Query. The
// same header (use case, seed, scale, window, count) gives the same file,
// byte for byte.
package querybench

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/tsload/tsload/pkg/query"
)

// Magic is the value of a query set's header field "tsload_queries": its
// format version.
const Magic = 1

// Header is a query set's first line: what the set was drawn from.
type Header struct {
	Version int    `json:"tsload_queries"`
	UseCase string `json:"use_case"`
	Seed    uint64 `json:"seed"`
	Scale   int    `json:"scale"`
	// Start and End are the loaded data's time range the windows are
	// drawn from.
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// TablePrefix starts every table's name (--table-prefix of the load).
	TablePrefix string `json:"table_prefix,omitempty"`
	// Types are the query types, PerType the queries of each.
	Types   []string `json:"types"`
	PerType int      `json:"per_type"`
}

// Set is a query set: its header and its queries in run order.
type Set struct {
	Header  Header
	Queries []*query.Query
}

// GenConfig says what set Generate draws.
type GenConfig struct {
	UseCase     string
	Seed        uint64
	Scale       int
	Start, End  time.Time
	TablePrefix string
	// Types are the query types (nil: every type of the use case).
	Types []string
	// PerType is the number of queries of each type.
	PerType int
}

// Generate draws the set cfg describes: PerType queries of each type,
// interleaved (type 1, type 2, ..., type 1, ...), each drawn from a
// sequence number of the seed's stream.
func Generate(cfg GenConfig) (*Set, error) {
	all := query.TSBSKinds(cfg.UseCase)
	switch {
	case all == nil:
		return nil, fmt.Errorf("use case %q has no queries (cpu-only, devops and iot have)", cfg.UseCase)
	case cfg.Scale < 1:
		return nil, fmt.Errorf("scale %d: want at least 1", cfg.Scale)
	case !cfg.End.After(cfg.Start):
		return nil, fmt.Errorf("the time range [%s, %s) is empty", cfg.Start.Format(time.RFC3339), cfg.End.Format(time.RFC3339))
	case cfg.PerType < 1:
		return nil, fmt.Errorf("%d queries per type: want at least 1", cfg.PerType)
	}
	kinds := all
	if len(cfg.Types) > 0 {
		kinds = nil
		for _, name := range cfg.Types {
			i := slices.IndexFunc(all, func(k query.Kind) bool { return k.Name == name })
			if i < 0 {
				return nil, fmt.Errorf("query type %q is not one of %s's: %s", name, cfg.UseCase, strings.Join(Names(cfg.UseCase), ", "))
			}
			kinds = append(kinds, all[i])
		}
	}
	h := Header{Version: Magic, UseCase: cfg.UseCase, Seed: cfg.Seed, Scale: cfg.Scale, Start: cfg.Start.UTC(), End: cfg.End.UTC(),
		TablePrefix: cfg.TablePrefix, PerType: cfg.PerType}
	for _, k := range kinds {
		h.Types = append(h.Types, k.Name)
	}
	d := &query.Dataset{UseCase: cfg.UseCase, Scale: cfg.Scale, TablePrefix: cfg.TablePrefix}
	r := rand.New(rand.NewPCG(cfg.Seed, 0x747371))
	set := &Set{Header: h}
	for range cfg.PerType {
		for i := range kinds {
			set.Queries = append(set.Queries, kinds[i].Draw(d, r.Uint64(), h.Start, h.End))
		}
	}
	return set, nil
}

// Names are the query types of use case uc, in TSBS's order.
func Names(uc string) []string {
	var out []string
	for _, k := range query.TSBSKinds(uc) {
		out = append(out, k.Name)
	}
	return out
}

// wireQuery is a query.Query as a line of the file.
type wireQuery struct {
	Name    string        `json:"name"`
	Table   string        `json:"table"`
	Start   time.Time     `json:"start"`
	End     time.Time     `json:"end"`
	Where   []wireMatch   `json:"where,omitempty"`
	Filter  *wireFilter   `json:"filter,omitempty"`
	Fields  []string      `json:"fields"`
	Agg     string        `json:"agg"`
	GroupBy []string      `json:"group_by,omitempty"`
	Bucket  time.Duration `json:"bucket_ns,omitempty"`
	Limit   int           `json:"limit,omitempty"`
	Having  *wireHaving   `json:"having,omitempty"`
	Rollups []wireRollup  `json:"rollups,omitempty"`
}

type wireHaving struct {
	Field string  `json:"field"`
	Over  string  `json:"over,omitempty"`
	Value float64 `json:"value"`
	Below bool    `json:"below,omitempty"`
}

type wireRollup struct {
	Agg     string        `json:"agg"`
	GroupBy []string      `json:"group_by,omitempty"`
	Bucket  time.Duration `json:"bucket_ns,omitempty"`
	Scale   float64       `json:"scale,omitempty"`
	Having  *wireHaving   `json:"having,omitempty"`
}

type wireMatch struct {
	Tag    string   `json:"tag"`
	Values []string `json:"values"`
}

type wireFilter struct {
	Field string  `json:"field"`
	Value float64 `json:"value"`
	Below bool    `json:"below,omitempty"`
}

var aggs = []query.Agg{query.Rows, query.Max, query.Min, query.Avg, query.Last, query.Count}

// Write writes s as a query set file.
func (s *Set) Write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	if err := enc.Encode(s.Header); err != nil {
		return err
	}
	for _, q := range s.Queries {
		wq := wireQuery{Name: q.Name, Table: q.Table, Start: q.Start.UTC(), End: q.End.UTC(), Fields: q.Fields, Agg: q.Agg.String(),
			GroupBy: q.GroupBy, Bucket: q.Bucket, Limit: q.Limit}
		for _, m := range q.Where {
			wq.Where = append(wq.Where, wireMatch(m))
		}
		if f := q.Filter; f != nil {
			wq.Filter = &wireFilter{Field: f.Field, Value: f.Value, Below: f.Below}
		}
		wq.Having = (*wireHaving)(q.Having)
		for _, r := range q.Rollups {
			wq.Rollups = append(wq.Rollups, wireRollup{Agg: r.Agg.String(), GroupBy: r.GroupBy, Bucket: r.Bucket, Scale: r.Scale,
				Having: (*wireHaving)(r.Having)})
		}
		if err := enc.Encode(wq); err != nil {
			return fmt.Errorf("query %s: %w", q.Name, err)
		}
	}
	return bw.Flush()
}

// MaxLine bounds a line of a query set file.
const MaxLine = 1 << 20

// Read reads a query set file (source names it in errors): every line
// must be a valid header, then valid queries; an error names the line.
func Read(r io.Reader, source string) (*Set, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLine)
	set := &Set{}
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if line == 1 {
			if err := strictUnmarshal(b, &set.Header); err != nil {
				return nil, fmt.Errorf("%s:1: not a query set header: %w", source, err)
			}
			if set.Header.Version != Magic {
				return nil, fmt.Errorf("%s:1: query set version %d, this tsload reads %d", source, set.Header.Version, Magic)
			}
			continue
		}
		q, err := parseQuery(b)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", source, line, err)
		}
		set.Queries = append(set.Queries, q)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s:%d: a line longer than %d bytes", source, line+1, MaxLine)
		}
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	switch {
	case line == 0:
		return nil, fmt.Errorf("%s: empty: not a query set", source)
	case len(set.Queries) == 0:
		return nil, fmt.Errorf("%s: a header and no query", source)
	}
	return set, nil
}

func strictUnmarshal(b []byte, v any) error {
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("more than one JSON value on the line")
	}
	return nil
}

func parseAgg(name, s string) (query.Agg, error) {
	i := slices.IndexFunc(aggs, func(a query.Agg) bool { return a.String() == s })
	if i < 0 {
		return 0, fmt.Errorf("query %s: aggregate %q is not one of rows, max, min, avg, last, count", name, s)
	}
	return aggs[i], nil
}

func parseQuery(b []byte) (*query.Query, error) {
	var wq wireQuery
	if err := strictUnmarshal(b, &wq); err != nil {
		return nil, fmt.Errorf("not a query: %w", err)
	}
	q := &query.Query{Name: wq.Name, Table: wq.Table, Start: wq.Start.UTC(), End: wq.End.UTC(), Fields: wq.Fields,
		GroupBy: wq.GroupBy, Bucket: wq.Bucket, Limit: wq.Limit}
	var err error
	if q.Agg, err = parseAgg(wq.Name, wq.Agg); err != nil {
		return nil, err
	}
	q.Having = (*query.Having)(wq.Having)
	for _, r := range wq.Rollups {
		agg, err := parseAgg(wq.Name, r.Agg)
		if err != nil {
			return nil, err
		}
		q.Rollups = append(q.Rollups, query.Rollup{Agg: agg, GroupBy: r.GroupBy, Bucket: r.Bucket, Scale: r.Scale, Having: (*query.Having)(r.Having)})
	}
	for _, m := range wq.Where {
		q.Where = append(q.Where, query.Match(m))
	}
	if f := wq.Filter; f != nil {
		q.Filter = &query.Threshold{Field: f.Field, Value: f.Value, Below: f.Below}
	}
	if q.Name == "" {
		return nil, errors.New("a query without a name")
	}
	if err := q.Validate(); err != nil {
		return nil, err
	}
	return q, nil
}

// WriteFile generates cfg's set and writes it to path (stdout when path
// is "" or "-"); a file half written is removed.
func WriteFile(cfg GenConfig, path string, stdout io.Writer) error {
	set, err := Generate(cfg)
	if err != nil {
		return err
	}
	if path == "" || path == "-" {
		return set.Write(stdout)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := set.Write(f); err != nil {
		f.Close()
		os.Remove(path)
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// ReadFile reads the query set file at path.
func ReadFile(path string) (*Set, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path)
}
