package cassandra

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"strconv"
	"time"
	"unicode/utf8"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/influxdata/line-protocol/v2/lineprotocol"
	"golang.org/x/sync/errgroup"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/format/ilp"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/schema"
)

// NewWriter returns the writer of one worker (the target's session is shared).
func (t *Target) NewWriter(ctx context.Context, worker int) (load.Writer, error) {
	if t.cfg.Keyspace == "" {
		return nil, load.Settingf("no keyspace ({Keyspace})")
	}
	if _, err := t.session(); err != nil {
		return nil, err
	}
	return &Writer{t: t, bucketMS: t.cfg.Bucket.Milliseconds()}, nil
}

// Writer writes batches as unlogged batches per partition.
type Writer struct {
	t        *Target
	bucketMS int64
	points   ilp.PointReader
	parts    []partition
	byKey    map[string]int
	key      []byte
	// tags holds each tag value seen once as a string: a file repeats a
	// few values on every line (cleared when it grows past maxInterned).
	tags map[string]string
}

const maxInterned = 1 << 16

// intern returns b as a string, allocating it once per distinct value.
func (w *Writer) intern(b []byte) string {
	if s, ok := w.tags[string(b)]; ok {
		return s
	}
	if w.tags == nil || len(w.tags) >= maxInterned {
		w.tags = make(map[string]string)
	}
	s := string(b)
	w.tags[s] = s
	return s
}

var _ load.Writer = (*Writer)(nil)

// partition is the rows of one partition of a batch.
type partition struct {
	tb   *table
	rows [][]any
}

// Close does nothing: the session is the Target's.
func (w *Writer) Close() error { return nil }

// Write decodes b, then writes each partition's rows in one unlogged batch
// (see the package doc for what the answers mean).
func (w *Writer) Write(ctx context.Context, b *load.Batch) (load.Ack, error) {
	if err := w.decode(ctx, b); err != nil {
		return load.Ack{}, err
	}
	s, err := w.t.session()
	if err != nil {
		return load.Ack{}, err
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(w.t.cfg.Concurrency)
	for i := range w.parts {
		p := &w.parts[i]
		g.Go(func() error {
			bt := s.Batch(gocql.UnloggedBatch).Consistency(w.t.cons)
			for _, r := range p.rows {
				bt.Query(p.tb.insert, r...)
			}
			return bt.ExecContext(gctx)
		})
	}
	if err := g.Wait(); err != nil {
		if errors.Is(err, gocql.ErrNoConnections) {
			w.t.drop(s)
		}
		return load.Ack{}, classify(err)
	}
	return load.Ack{Rows: b.Rows}, nil
}

// classify marks err retryable when a re-send may succeed (every write is
// an upsert, so a re-send stores nothing twice).
func classify(err error) error {
	var re gocql.RequestError
	if errors.As(err, &re) {
		switch re.Code() {
		case gocql.ErrCodeUnavailable, gocql.ErrCodeOverloaded, gocql.ErrCodeBootstrapping, gocql.ErrCodeTruncate,
			gocql.ErrCodeWriteTimeout, gocql.ErrCodeReadTimeout, gocql.ErrCodeWriteFailure, gocql.ErrCodeUnprepared:
			return load.Retryable(fmt.Errorf("cassandra: %w", err))
		}
		return fmt.Errorf("cassandra: the server refused the batch (nothing of it is counted as written): %w", err)
	}
	var ne net.Error
	if errors.Is(err, gocql.ErrNoConnections) || errors.Is(err, gocql.ErrTimeoutNoResponse) || errors.Is(err, gocql.ErrConnectionClosed) ||
		errors.Is(err, gocql.ErrNoStreams) || errors.Is(err, gocql.ErrTooManyTimeouts) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, gocql.ErrSessionClosed) || errors.As(err, &ne) {
		return load.Retryable(fmt.Errorf("cassandra: %w", err))
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return fmt.Errorf("cassandra: %w", err)
}

func (w *Writer) reset() {
	for i := range w.parts {
		w.parts[i] = partition{}
	}
	w.parts = w.parts[:0]
	if w.byKey == nil {
		w.byKey = map[string]int{}
	}
	clear(w.byKey)
}

// add files row (tb's columns, then the bucket) under its partition.
func (w *Writer) add(tb *table, row []any) {
	w.key = append(w.key[:0], tb.name...)
	for i := 1; i <= tb.ntags; i++ {
		w.key = append(w.key, 0)
		w.key = append(w.key, row[i].(string)...)
	}
	w.key = append(w.key, 0)
	w.key = strconv.AppendInt(w.key, row[len(row)-1].(time.Time).UnixMilli(), 10)
	i, ok := w.byKey[string(w.key)]
	if !ok {
		i = len(w.parts)
		w.parts = append(w.parts, partition{tb: tb})
		w.byKey[string(w.key)] = i
	}
	w.parts[i].rows = append(w.parts[i].rows, row)
}

// newRow is a row of tb: every column unset (a missing field writes
// nothing, not a tombstone), the tags "" (a partition key column cannot
// be null), then the bucket.
func newRow(tb *table) []any {
	row := make([]any, len(tb.cols)+1)
	for i := range row {
		row[i] = gocql.UnsetValue
	}
	for i := 1; i <= tb.ntags; i++ {
		row[i] = ""
	}
	return row
}

// setTime sets the time and the bucket of row from ns; a time CQL's
// milliseconds cannot hold is refused.
func (w *Writer) setTime(row []any, ns int64) error {
	if ns%1e6 != 0 {
		return fmt.Errorf("timestamp %d ns has a sub-millisecond part: Cassandra's timestamp holds milliseconds (it would be cut to %s)",
			ns, time.UnixMilli(floorDiv(ns, 1e6)).UTC().Format(time.RFC3339Nano))
	}
	ms := ns / 1e6
	row[0] = time.UnixMilli(ms)
	row[len(row)-1] = time.UnixMilli(floorDiv(ms, w.bucketMS) * w.bucketMS)
	return nil
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func (w *Writer) decode(ctx context.Context, b *load.Batch) error {
	w.reset()
	if b.Format != format.ILP {
		return fmt.Errorf("cassandra: cannot load %s input", b.Format)
	}
	return w.ilp(ctx, b)
}

func (w *Writer) ilp(ctx context.Context, b *load.Batch) error {
	var last *table
	var lastName string
	return w.points.Read(b.Data, b.Source, b.FirstLine, func(p *ilp.Point, where func(error) error) error {
		tb := last
		if tb == nil || lastName != string(p.Measurement) {
			var err error
			if tb, err = w.t.table(ctx, string(p.Measurement), p.Table(string(p.Measurement))); err != nil {
				return err
			}
		}
		for _, f := range p.Fields {
			if _, ok := tb.index[string(f.Key)]; !ok {
				typ := schema.Float8
				switch f.Value.Kind() {
				case lineprotocol.Int, lineprotocol.Uint, lineprotocol.Bool:
					typ = schema.Int8
				case lineprotocol.String:
					typ = schema.Text
				}
				var err error
				if tb, err = w.t.addField(ctx, string(p.Measurement), tb, string(f.Key), typ); err != nil {
					return where(err)
				}
			}
		}
		last, lastName = tb, string(p.Measurement)
		row := newRow(tb)
		if err := w.setTime(row, p.Time.UnixNano()); err != nil {
			return where(err)
		}
		for _, tg := range p.Tags {
			i, ok := tb.index[string(tg.Key)]
			if !ok || !tb.cols[i].tag {
				return where(fmt.Errorf("table %q has no tag %q: its series are keyed by %v in the partition key, which cannot change",
					tb.name, tg.Key, tagNames(tb)))
			}
			if !utf8.Valid(tg.Value) {
				return where(fmt.Errorf("tag %q is not UTF-8: CQL text holds UTF-8 only", tg.Key))
			}
			row[i] = w.intern(tg.Value)
		}
		for _, f := range p.Fields {
			i := tb.index[string(f.Key)]
			if tb.cols[i].tag {
				return where(fmt.Errorf("field %q is a tag of table %q", f.Key, tb.name))
			}
			v, err := fieldValue(tb.cols[i].typ, f.Value)
			if err != nil {
				return where(fmt.Errorf("field %q: %v", f.Key, err))
			}
			row[i] = v
		}
		if err := keyLength(tb, row); err != nil {
			return where(err)
		}
		w.add(tb, row)
		return nil
	})
}

// maxKey is the largest partition key Cassandra stores (its length is
// written in 16 bits).
const maxKey = 65535

// keyLength refuses a row whose partition key Cassandra would refuse,
// before anything of the batch is sent: the server writes each partition
// of a batch apart, so a refusal there would leave the others written.
// A composite key is, per component, 2 bytes of length, the value and an
// end byte; the bucket is a timestamp of 8 bytes.
func keyLength(tb *table, row []any) error {
	n := 2 + 8 + 1
	for i := 1; i <= tb.ntags; i++ {
		n += 2 + len(row[i].(string)) + 1
	}
	if n > maxKey {
		return fmt.Errorf("the partition key (tags %v and the bucket) is %d bytes: Cassandra's limit is %d", tagNames(tb), n, maxKey)
	}
	return nil
}

func tagNames(tb *table) []string {
	var n []string
	for _, c := range tb.cols[1 : 1+tb.ntags] {
		n = append(n, c.name)
	}
	return n
}

// fieldValue converts an ILP field to a column of type t; a value the
// column cannot hold as sent is refused.
func fieldValue(t schema.Type, v lineprotocol.Value) (any, error) {
	k := v.Kind()
	switch t {
	case schema.Float8, schema.Float4:
		f, ok := ilp.AsFloat(v)
		if !ok {
			return nil, fmt.Errorf("a %v into a %s column", k, cqlType(t))
		}
		if t == schema.Float4 {
			return float32(f), nil
		}
		return f, nil
	case schema.Int8, schema.Int4:
		var n int64
		switch k {
		case lineprotocol.Int:
			n = v.IntV()
		case lineprotocol.Uint:
			if v.UintV() > math.MaxInt64 {
				return nil, fmt.Errorf("%d is out of range for a bigint column (CQL has no unsigned integer)", v.UintV())
			}
			n = int64(v.UintV())
		case lineprotocol.Bool:
			if v.BoolV() {
				n = 1
			}
		default:
			return nil, fmt.Errorf("a %v into a %s column", k, cqlType(t))
		}
		if t == schema.Int4 {
			if n > math.MaxInt32 || n < math.MinInt32 {
				return nil, fmt.Errorf("%d is out of range for an int column", n)
			}
			return int32(n), nil
		}
		return n, nil
	case schema.Text:
		if k != lineprotocol.String {
			return nil, fmt.Errorf("a %v into a text column", k)
		}
		s := v.StringV()
		if !utf8.ValidString(s) {
			return nil, errors.New("not UTF-8: CQL text holds UTF-8 only")
		}
		return s, nil
	}
	return nil, fmt.Errorf("a %v into a %s column", k, cqlType(t))
}
