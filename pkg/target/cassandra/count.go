package cassandra

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/tsload/tsload/pkg/fingerprint"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/results"
	"github.com/tsload/tsload/pkg/schema"
	"github.com/tsload/tsload/pkg/target/contentq"
)

// ranges is how many token ranges a table is first cut into; minRange the
// narrowest a range is split to when the server times out on it.
const (
	ranges   = 16
	minRange = 1 << 24
)

// tokenRange is the Murmur3 tokens lo..hi, both included.
type tokenRange struct{ lo, hi int64 }

// ring cuts the whole Murmur3 ring into n ranges.
func ring(n int) []tokenRange {
	step := math.MaxUint64 / uint64(n)
	first := uint64(1) << 63 // math.MinInt64 as unsigned
	out := make([]tokenRange, n)
	for i := range out {
		lo := int64(first + uint64(i)*step)
		hi := int64(uint64(lo) + step - 1)
		if i == n-1 {
			hi = math.MaxInt64
		}
		out[i] = tokenRange{lo, hi}
	}
	return out
}

// timedOut: the server (or the driver) gave up on a request that may
// succeed over a narrower range.
func timedOut(err error) bool {
	var re gocql.RequestError
	if errors.As(err, &re) {
		c := re.Code()
		return c == gocql.ErrCodeReadTimeout || c == gocql.ErrCodeReadFailure
	}
	return errors.Is(err, gocql.ErrTimeoutNoResponse)
}

// eachRange runs stmt (its last two markers the range's tokens, after
// args) over every token range of the ring; scan reads one range's rows.
// A range the server times out on is split in two and run again, so every
// request stays bounded and the total stays exact.
func (t *Target) eachRange(ctx context.Context, stmt string, args []any, scan func(it *gocql.Iter) error) error {
	s, err := t.session()
	if err != nil {
		return err
	}
	todo := ring(ranges)
	for len(todo) > 0 {
		r := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		it := s.Query(stmt, append(args[:len(args):len(args)], r.lo, r.hi)...).Consistency(t.cons).PageSize(5000).IterContext(ctx)
		serr := scan(it)
		cerr := it.Close()
		if cerr == nil {
			cerr = serr
		}
		if cerr == nil {
			continue
		}
		if timedOut(cerr) && uint64(r.hi)-uint64(r.lo) > minRange {
			mid := int64(uint64(r.lo) + (uint64(r.hi)-uint64(r.lo))/2)
			todo = append(todo, tokenRange{r.lo, mid}, tokenRange{mid + 1, r.hi})
			continue
		}
		return fmt.Errorf("cassandra: %s (tokens %d..%d): %w", stmt, r.lo, r.hi, cerr)
	}
	return nil
}

// where is the token restriction of tb's partition key.
func (tb *table) where() string {
	var key []string
	for _, c := range tb.cols[1 : 1+tb.ntags] {
		key = append(key, quote(c.name))
	}
	key = append(key, quote(BucketColumn))
	k := strings.Join(key, ", ")
	return fmt.Sprintf(" WHERE token(%s) >= ? AND token(%s) <= ?", k, k)
}

func (t *Target) from(tb *table) string {
	return " FROM " + quote(t.cfg.Keyspace) + "." + quote(tb.name)
}

// Count counts each table's rows, token range by token range.
func (t *Target) Count(ctx context.Context, tables []string) (map[string]int64, error) {
	out := make(map[string]int64, len(tables))
	for _, name := range tables {
		tb, err := t.table(ctx, name, nil)
		if err != nil {
			return out, err
		}
		if tb == nil {
			out[name] = 0
			continue
		}
		var total int64
		err = t.eachRange(ctx, "SELECT count(*)"+t.from(tb)+tb.where(), nil, func(it *gocql.Iter) error {
			var n int64
			for it.Scan(&n) {
				total += n
			}
			return nil
		})
		if err != nil {
			return out, err
		}
		out[name] = total
	}
	return out, nil
}

// Content computes each table's fingerprint token range by token range:
// rows, the time range, per field the non-null count and the sum (integers
// exact, as varint; floats in double with the sum of magnitudes), and the
// numeric fields' min and max (scanned in binary: exact); the distinct tag
// sets of the partition keys. CQL has no length function for
// text: a string field's Len is -1.
func (t *Target) Content(ctx context.Context, qs []fingerprint.Query) (map[string]*fingerprint.Table, error) {
	if len(qs) == 0 {
		return map[string]*fingerprint.Table{}, nil
	}
	return contentq.Each(qs, func(q fingerprint.Query) (*fingerprint.Table, error) {
		fp, err := t.content(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("cassandra: content of %q: %w", q.Table, err)
		}
		return fp, nil
	})
}

func (t *Target) content(ctx context.Context, q fingerprint.Query) (*fingerprint.Table, error) {
	tb, err := t.table(ctx, q.Table, nil)
	if err != nil {
		return nil, err
	}
	if tb == nil {
		return contentq.Missing(q), nil
	}
	fp := &fingerprint.Table{Name: q.Table, SeriesExact: true, TimeUnit: int64(time.Millisecond)}
	tc := quote(tb.cols[0].name)
	exprs := []string{"count(*)", "min(" + tc + ")", "max(" + tc + ")"}
	type acc struct {
		f        *fingerprint.Field
		typ      schema.Type
		count    int64
		sum, abs float64
		isum     *big.Int
		at       int // first of its expressions
	}
	fp.Fields = make([]fingerprint.Field, len(q.Fields))
	var accs []*acc
	for i, fq := range q.Fields {
		f := &fp.Fields[i]
		*f = fingerprint.Field{Name: fq.Name, Kind: fq.Kind}
		j, ok := tb.index[fq.Name]
		if !ok || j == 0 || tb.cols[j].tag {
			continue
		}
		a := &acc{f: f, typ: tb.cols[j].typ, isum: new(big.Int), at: len(exprs)}
		c := quote(fq.Name)
		exprs = append(exprs, "count("+c+")")
		switch a.typ {
		case schema.Float8, schema.Float4:
			f.Kind, f.Float4 = fingerprint.Float, a.typ == schema.Float4
			d := "cast(" + c + " as double)"
			exprs = append(exprs, "sum("+d+")", "sum(abs("+d+"))", "min("+d+")", "max("+d+")")
		case schema.Int8, schema.Int4:
			// A boolean is stored as 0 or 1 (write.go): its sum is its
			// true count, compared as the file's.
			if fq.Kind != fingerprint.Uint && fq.Kind != fingerprint.Bool {
				f.Kind = fingerprint.Int
			}
			exprs = append(exprs, "sum(cast("+c+" as varint))", "min(cast("+c+" as bigint))", "max(cast("+c+" as bigint))")
		case schema.Text:
			f.Kind, f.Len = fingerprint.String, -1
		}
		accs = append(accs, a)
	}
	var lo, hi time.Time
	stmt := "SELECT " + strings.Join(exprs, ", ") + t.from(tb) + tb.where()
	err = t.eachRange(ctx, stmt, nil, func(it *gocql.Iter) error {
		var n int64
		var mn, mx time.Time
		dest := []any{&n, &mn, &mx}
		counts := make([]int64, len(accs))
		sums := make([]float64, 4*len(accs)) // sum, sum of magnitudes, min, max
		isums := make([]*big.Int, len(accs))
		iext := make([]int64, 2*len(accs))
		for i, a := range accs {
			dest = append(dest, &counts[i])
			switch a.typ {
			case schema.Float8, schema.Float4:
				dest = append(dest, &sums[4*i], &sums[4*i+1], &sums[4*i+2], &sums[4*i+3])
			case schema.Int8, schema.Int4:
				isums[i] = new(big.Int)
				dest = append(dest, isums[i], &iext[2*i], &iext[2*i+1])
			}
		}
		for it.Scan(dest...) {
			if n == 0 {
				continue
			}
			fp.Rows += n
			if lo.IsZero() || mn.Before(lo) {
				lo = mn
			}
			if hi.IsZero() || mx.After(hi) {
				hi = mx
			}
			for i, a := range accs {
				a.count += counts[i]
				a.sum += sums[4*i]
				a.abs += sums[4*i+1]
				if isums[i] != nil {
					a.isum.Add(a.isum, isums[i])
				}
				if counts[i] == 0 || a.f.Kind == fingerprint.Bool {
					continue
				}
				switch a.typ {
				case schema.Float8, schema.Float4:
					contentq.Widen(a.f, sums[4*i+2])
					contentq.Widen(a.f, sums[4*i+3])
				case schema.Int8, schema.Int4:
					contentq.WidenInt(a.f, fingerprint.Int128FromInt64(iext[2*i]))
					contentq.WidenInt(a.f, fingerprint.Int128FromInt64(iext[2*i+1]))
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if fp.Rows > 0 {
		fp.MinTime, fp.MaxTime = lo.UnixNano(), hi.UnixNano()
	}
	for _, a := range accs {
		a.f.Count = a.count
		switch a.f.Kind {
		case fingerprint.Float:
			a.f.Sum, a.f.AbsSum = a.sum, a.abs
		case fingerprint.Bool:
			a.f.True = a.isum.Int64()
		case fingerprint.Int, fingerprint.Uint:
			x, err := contentq.ParseInt128(a.isum.String())
			if err != nil {
				return nil, err
			}
			a.f.IntSum = x
		}
	}
	if fp.Series, err = t.series(ctx, tb); err != nil {
		return nil, err
	}
	return fp, nil
}

// series counts the distinct tag sets of tb's partition keys.
func (t *Target) series(ctx context.Context, tb *table) (int64, error) {
	var key []string
	for _, c := range tb.cols[1 : 1+tb.ntags] {
		key = append(key, quote(c.name))
	}
	key = append(key, quote(BucketColumn))
	seen := map[string]struct{}{}
	vals := make([]string, tb.ntags)
	var bucket time.Time
	dest := make([]any, 0, tb.ntags+1)
	for i := range vals {
		dest = append(dest, &vals[i])
	}
	dest = append(dest, &bucket)
	err := t.eachRange(ctx, "SELECT DISTINCT "+strings.Join(key, ", ")+t.from(tb)+tb.where(), nil, func(it *gocql.Iter) error {
		for it.Scan(dest...) {
			seen[strings.Join(vals, "\x00")] = struct{}{}
		}
		return nil
	})
	return int64(len(seen)), err
}

// Footprint is the live SSTable bytes of the tables as system_views.disk_usage
// reports them (whole MiB); rows still in memtables are not counted.
func (t *Target) Footprint(ctx context.Context, tables []string) (load.Size, error) {
	s, err := t.session()
	if err != nil {
		return load.Size{}, err
	}
	var mib int64
	for _, name := range tables {
		var n int64
		if name, err = TableName(name); err != nil {
			return load.Size{}, err
		}
		err := s.Query("SELECT mebibytes FROM system_views.disk_usage WHERE keyspace_name = ? AND table_name = ?",
			t.cfg.Keyspace, name).ScanContext(ctx, &n)
		if errors.Is(err, gocql.ErrNotFound) {
			continue
		}
		if err != nil {
			return load.Size{}, fmt.Errorf("cassandra: system_views.disk_usage of %q: %w", name, err)
		}
		mib += n
	}
	if mib == 0 {
		return load.Size{}, errors.New("cassandra: system_views.disk_usage says 0 MiB: the rows are still in memtables " +
			"(it counts flushed SSTables only, and CQL cannot ask for a flush)")
	}
	return load.Size{Bytes: mib << 20, Method: "system_views.disk_usage (live SSTables, whole MiB; memtables not counted)",
		Mark: results.MarkLowerBound}, nil
}
