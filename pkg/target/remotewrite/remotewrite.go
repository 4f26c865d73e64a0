// Package remotewrite turns line-protocol batches into Prometheus remote
// write 1.0 requests: a prompb.WriteRequest, protobuf, in snappy's block
// format, POSTed with Content-Encoding: snappy and
// X-Prometheus-Remote-Write-Version: 0.1.0. Prometheus takes them on
// /api/v1/write (with --web.enable-remote-write-receiver), VictoriaMetrics
// on its /api/v1/write.
//
// Each field of a line becomes one sample of the series whose labels are
// __name__ = <measurement>_<field>, the line's tags and the Encoder's extra
// labels (db=<database>), at the line's millisecond: the names
// VictoriaMetrics gives a line written to /write, so both servers hold a
// line the same way whichever path it took. Samples of one series in a
// batch go in one TimeSeries.
//
// The four messages are written with protowire (google.golang.org/protobuf,
// already in the module graph) rather than imported from
// github.com/prometheus/prometheus/prompb: that module's go.mod requires
// over a hundred modules (Kubernetes, cloud SDKs) for four small messages
// whose wire format is fixed.
//
//	message WriteRequest { repeated TimeSeries timeseries = 1; }
//	message TimeSeries   { repeated Label labels = 1; repeated Sample samples = 2; }
//	message Label        { string name = 1; string value = 2; }
//	message Sample       { double value = 1; int64 timestamp = 2; } // milliseconds
//
// What a line must be for the servers to store it as sent (Encoder refuses
// the rest, naming the line): every value a float64 holds exactly (a float;
// an integer float64 holds exactly (any up to 2^53); a boolean, stored as 1 or 0; no
// string), a timestamp given, whole milliseconds, within Rules' bounds, no
// tag starting with "__" or named as an extra label (and, with
// Rules.StrictNames, names that are classic Prometheus names).
package remotewrite

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/influxdata/line-protocol/v2/lineprotocol"
	"github.com/klauspost/compress/snappy"
	"google.golang.org/protobuf/encoding/protowire"
)

// Headers are the headers of a remote write 1.0 request.
var Headers = map[string]string{
	"Content-Encoding":                  "snappy",
	"X-Prometheus-Remote-Write-Version": "0.1.0",
}

// ContentType is the Content-Type of a remote write 1.0 request.
const ContentType = "application/x-protobuf"

// Label is one label.
type Label struct{ Name, Value string }

// Rules are what Encoder holds lines to.
type Rules struct {
	// Unit is the unit of the lines' timestamps (0: nanoseconds).
	Unit time.Duration
	// Min and Max are the first and last millisecond taken (Min = Max = 0:
	// no bound).
	Min, Max int64
	// Why says, in the refusal of a timestamp outside [Min, Max], why the
	// bounds are there.
	Why string
	// StrictNames refuses names other than Prometheus' classic ones
	// (servers that take any UTF-8 name store them, but PromQL can then
	// name them only as {__name__="..."}).
	StrictNames bool
	// NoZeroTime refuses timestamp 0 (VictoriaMetrics reads it as "now").
	NoZeroTime bool
}

// LineError is a line the Encoder refuses: Line is 1-based within the data.
type LineError struct {
	Line   int64
	Reason string
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Reason) }

// Encoder builds requests, reusing its buffers. It is used by one goroutine.
type Encoder struct {
	rules  Rules
	extra  []Label
	extraB []lv
	all    []lv

	index   map[string]int // series labels (encoded) -> series
	series  []series
	labels  []byte // every series' encoded labels, back to back
	scratch []byte
	tags    []tag
	line    []byte // the line's names, copied out of the decoder
	raw     []byte // the WriteRequest before compression
	// Shape is, after Encode, the number of fields of each measurement's
	// lines in the batch (-1: not all the same).
	Shape map[string]int
	// Samples is, after Encode, the number of samples of the batch.
	Samples int
}

// lv is a label being encoded.
type lv struct{ n, v []byte }

var nameLabel = []byte("__name__")

type series struct {
	lo, hi  int // labels[lo:hi]
	samples []sample
}

type sample struct {
	v float64
	t int64
}

// tag is a label of the current line: name and value offsets in line.
type tag struct{ n0, n1, v0, v1 int }

// New returns an Encoder that adds extra to every series' labels.
func New(r Rules, extra ...Label) (*Encoder, error) {
	for _, l := range extra {
		if !validLabel(l.Name) {
			return nil, fmt.Errorf("remotewrite: %q is not a label name", l.Name)
		}
	}
	if r.Unit == 0 {
		r.Unit = time.Nanosecond
	}
	if r.Unit < time.Nanosecond || (r.Unit < time.Millisecond && time.Millisecond%r.Unit != 0) || (r.Unit >= time.Millisecond && r.Unit%time.Millisecond != 0) {
		return nil, fmt.Errorf("remotewrite: timestamp unit %v", r.Unit)
	}
	e := &Encoder{rules: r, extra: extra, index: map[string]int{}, Shape: map[string]int{}}
	for _, l := range extra {
		e.extraB = append(e.extraB, lv{[]byte(l.Name), []byte(l.Value)})
	}
	return e, nil
}

// Encode returns the compressed WriteRequest of data's lines, appended to
// dst[:0]. A line it refuses is a *LineError and nothing is returned.
// Comment and blank lines are skipped.
func (e *Encoder) Encode(dst, data []byte) ([]byte, error) {
	clear(e.index)
	clear(e.Shape)
	e.series, e.labels, e.Samples = e.series[:0], e.labels[:0], 0
	dec := lineprotocol.NewDecoderWithBytes(data)
	var n int64
	for dec.Next() {
		n++
		if err := e.addLine(dec); err != nil {
			var de *lineprotocol.DecodeError
			if errors.As(err, &de) {
				return nil, &LineError{de.Line, de.Err.Error()}
			}
			return nil, &LineError{lineOf(data, n), err.Error()}
		}
	}
	e.raw = e.marshal(e.raw[:0])
	return snappy.Encode(dst[:cap(dst)], e.raw), nil
}

// lineOf is the 1-based line number of the n-th line of data that is a
// record (not blank, not a comment), as the decoder counts them.
func lineOf(data []byte, n int64) int64 {
	var line int64
	for len(data) > 0 {
		line++
		l := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		l = bytes.TrimLeft(l, " \t\r")
		if len(l) > 0 && l[0] != '#' {
			if n--; n == 0 {
				return line
			}
		}
	}
	return line
}

func (e *Encoder) addLine(dec *lineprotocol.Decoder) error {
	m, err := dec.Measurement()
	if err != nil {
		return err
	}
	e.line = append(e.line[:0], m...)
	mEnd := len(e.line)
	e.tags = e.tags[:0]
	for {
		k, v, err := dec.NextTag()
		if err != nil {
			return err
		}
		if k == nil {
			break
		}
		if bytes.HasPrefix(k, []byte("__")) || e.rules.StrictNames && !validLabel(string(k)) {
			return fmt.Errorf("tag %q is not a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*, not starting with __)", k)
		}
		for _, x := range e.extra {
			if x.Name == string(k) {
				return fmt.Errorf("tag %q is the label the loader sets itself (%s=%q)", k, x.Name, x.Value)
			}
		}
		t := tag{n0: len(e.line)}
		e.line = append(e.line, k...)
		t.n1, t.v0 = len(e.line), len(e.line)
		e.line = append(e.line, v...)
		t.v1 = len(e.line)
		e.tags = append(e.tags, t)
	}
	for i := 1; i < len(e.tags); i++ { // insertion sort: few tags, usually sorted already
		for j := i; j > 0 && bytes.Compare(e.line[e.tags[j].n0:e.tags[j].n1], e.line[e.tags[j-1].n0:e.tags[j-1].n1]) < 0; j-- {
			e.tags[j], e.tags[j-1] = e.tags[j-1], e.tags[j]
		}
	}
	type field struct {
		k0, k1 int
		v      float64
	}
	var fields [16]field
	fs := fields[:0]
	for {
		k, v, err := dec.NextField()
		if err != nil {
			return err
		}
		if k == nil {
			break
		}
		f, reason := floatOf(v)
		if reason != "" {
			return fmt.Errorf("field %s: %s", k, reason)
		}
		k0 := len(e.line)
		e.line = append(e.line, k...)
		fs = append(fs, field{k0, len(e.line), f})
	}
	ts, err := dec.TimeBytes()
	if err != nil {
		return err
	}
	ms, err := e.millis(ts)
	if err != nil {
		return err
	}
	meas := e.line[:mEnd]
	if k, ok := e.Shape[string(meas)]; !ok {
		e.Shape[string(meas)] = len(fs)
	} else if k != len(fs) {
		e.Shape[string(meas)] = -1
	}
	for _, f := range fs {
		e.scratch = append(append(append(e.scratch[:0], meas...), '_'), e.line[f.k0:f.k1]...)
		if e.rules.StrictNames && !validMetric(e.scratch) {
			return fmt.Errorf("metric name %q (<measurement>_<field>) is not a Prometheus metric name ([a-zA-Z_:][a-zA-Z0-9_:]*)", e.scratch)
		}
		lo := len(e.labels)
		e.labels = e.appendLabels(e.labels, e.scratch)
		key := e.labels[lo:]
		i, ok := e.index[string(key)]
		if ok {
			e.labels = e.labels[:lo]
		} else {
			i = len(e.series)
			e.index[string(key)] = i
			if len(e.series) < cap(e.series) {
				e.series = e.series[:i+1]
				e.series[i].samples = e.series[i].samples[:0]
			} else {
				e.series = append(e.series, series{})
			}
			e.series[i].lo, e.series[i].hi = lo, len(e.labels)
		}
		e.series[i].samples = append(e.series[i].samples, sample{f.v, ms})
		e.Samples++
	}
	return nil
}

// appendLabels appends the encoded Label fields of the current line's
// series named name, in label-name order.
func (e *Encoder) appendLabels(dst, name []byte) []byte {
	all := append(e.all[:0], lv{nameLabel, name})
	all = append(all, e.extraB...)
	for _, t := range e.tags {
		all = append(all, lv{e.line[t.n0:t.n1], e.line[t.v0:t.v1]})
	}
	for i := 1; i < len(all); i++ { // insertion sort: short, mostly sorted
		for j := i; j > 0 && bytes.Compare(all[j].n, all[j-1].n) < 0; j-- {
			all[j], all[j-1] = all[j-1], all[j]
		}
	}
	e.all = all
	for _, l := range all {
		dst = protowire.AppendTag(dst, 1, protowire.BytesType)
		dst = protowire.AppendVarint(dst, uint64(protowire.SizeTag(1)*2+protowire.SizeBytes(len(l.n))+protowire.SizeBytes(len(l.v))))
		dst = protowire.AppendTag(dst, 1, protowire.BytesType)
		dst = protowire.AppendBytes(dst, l.n)
		dst = protowire.AppendTag(dst, 2, protowire.BytesType)
		dst = protowire.AppendBytes(dst, l.v)
	}
	return dst
}

// marshal appends the WriteRequest of the batch's series.
func (e *Encoder) marshal(dst []byte) []byte {
	for i := range e.series {
		s := &e.series[i]
		size := s.hi - s.lo
		for _, x := range s.samples {
			size += protowire.SizeTag(2) + protowire.SizeBytes(sampleSize(x))
		}
		dst = protowire.AppendTag(dst, 1, protowire.BytesType)
		dst = protowire.AppendVarint(dst, uint64(size))
		dst = append(dst, e.labels[s.lo:s.hi]...)
		for _, x := range s.samples {
			dst = protowire.AppendTag(dst, 2, protowire.BytesType)
			dst = protowire.AppendVarint(dst, uint64(sampleSize(x)))
			dst = protowire.AppendTag(dst, 1, protowire.Fixed64Type)
			dst = protowire.AppendFixed64(dst, math.Float64bits(x.v))
			dst = protowire.AppendTag(dst, 2, protowire.VarintType)
			dst = protowire.AppendVarint(dst, uint64(x.t))
		}
	}
	return dst
}

func sampleSize(x sample) int {
	return protowire.SizeTag(1) + 8 + protowire.SizeTag(2) + protowire.SizeVarint(uint64(x.t))
}

// floatOf is v as the sample's value, or why it cannot be one.
func floatOf(v lineprotocol.Value) (float64, string) {
	switch v.Kind() {
	case lineprotocol.Float:
		return v.FloatV(), ""
	case lineprotocol.Int:
		i := v.IntV()
		if f := float64(i); f >= math.MaxInt64 || int64(f) != i {
			return 0, fmt.Sprintf("integer %d has no exact float64 (samples are float64, exact for integers up to 2^53: it would be stored as %.0f)", i, f)
		}
		return float64(i), ""
	case lineprotocol.Uint:
		u := v.UintV()
		if f := float64(u); f >= math.MaxUint64 || uint64(f) != u {
			return 0, fmt.Sprintf("integer %d has no exact float64 (samples are float64, exact for integers up to 2^53: it would be stored as %.0f)", u, f)
		}
		return float64(u), ""
	case lineprotocol.Bool:
		if v.BoolV() {
			return 1, ""
		}
		return 0, ""
	case lineprotocol.String:
		return 0, "a string: samples are float64 numbers only"
	}
	return 0, fmt.Sprintf("a value of kind %v", v.Kind())
}

// millis is the timestamp ts (in the Encoder's unit) in milliseconds, or
// why it is refused.
func (e *Encoder) millis(ts []byte) (int64, error) {
	if ts == nil {
		return 0, errors.New("no timestamp (the server would store the row at the time it arrives)")
	}
	v, err := strconv.ParseInt(string(ts), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("timestamp %s: %v", ts, err)
	}
	if v == 0 && e.rules.NoZeroTime {
		return 0, errors.New("timestamp 0 (the server takes it as 'no timestamp' and stores the row at the time it arrives)")
	}
	var ms int64
	u := e.rules.Unit
	if u < time.Millisecond {
		per := int64(time.Millisecond / u)
		if v%per != 0 {
			return 0, fmt.Errorf("timestamp %s has a part finer than a millisecond (samples keep milliseconds: rows that differ only there would be one)", ts)
		}
		ms = v / per
	} else {
		per := int64(u / time.Millisecond)
		if v > math.MaxInt64/per || v < math.MinInt64/per {
			return 0, fmt.Errorf("timestamp %s is out of range", ts)
		}
		ms = v * per
	}
	if r := e.rules; (r.Min != 0 || r.Max != 0) && (ms < r.Min || ms > r.Max) {
		return 0, fmt.Errorf("timestamp %s is outside %s to %s (%s)", ts,
			time.UnixMilli(r.Min).UTC().Format(time.RFC3339), time.UnixMilli(r.Max).UTC().Format(time.RFC3339), r.Why)
	}
	return ms, nil
}

func validLabel(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func validMetric(s []byte) bool {
	if len(s) == 0 {
		return false
	}
	for i, c := range s {
		if !(c == '_' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
