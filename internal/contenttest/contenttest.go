// Package contenttest holds what the targets' content-verification tests
// share: comparing a database's fingerprint with the one worked out by hand.
package contenttest

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/influxdata/line-protocol/v2/lineprotocol"

	"github.com/tsload/tsload/pkg/fingerprint"
)

// Same fails t unless got equals want: every count, sum, length and time
// exactly, float sums within 1e-9 relative (the database adds in its own
// order).
func Same(t testing.TB, got *fingerprint.Table, want fingerprint.Table) {
	t.Helper()
	if got == nil {
		t.Fatalf("no fingerprint for %s", want.Name)
	}
	g, w := *got, want
	g.Fields, w.Fields = nil, nil
	if !reflect.DeepEqual(g, w) {
		t.Errorf("table %s:\n got %+v\nwant %+v", want.Name, g, w)
	}
	if len(got.Fields) != len(want.Fields) {
		t.Fatalf("table %s fields:\n got %+v\nwant %+v", want.Name, got.Fields, want.Fields)
	}
	for i, f := range got.Fields {
		wf := want.Fields[i]
		if !close(f.Sum, wf.Sum) || !close(f.AbsSum, wf.AbsSum) {
			t.Errorf("table %s field %s: sum %v abs %v, want %v %v", want.Name, f.Name, f.Sum, f.AbsSum, wf.Sum, wf.AbsSum)
		}
		f.Sum, f.AbsSum, wf.Sum, wf.AbsSum = 0, 0, 0, 0
		if f != wf {
			t.Errorf("table %s field:\n got %+v\nwant %+v", want.Name, f, wf)
		}
	}
}

func close(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

// ReadILP is the fingerprint of line-protocol data (nanosecond
// timestamps) as the loader's reader computes it, with the keys tracked,
// fed through fingerprint.Acc from a line-protocol decoder of its own.
func ReadILP(t testing.TB, data string) map[string]*fingerprint.Read {
	t.Helper()
	acc := fingerprint.NewAcc(fingerprint.Options{Keys: true})
	d := lineprotocol.NewDecoderWithBytes([]byte(data))
	var tags fingerprint.TagSet
	for d.Next() {
		m, err := d.Measurement()
		if err != nil {
			t.Fatal(err)
		}
		tb := acc.Table(m)
		tags.Reset()
		for {
			k, v, err := d.NextTag()
			if err != nil {
				t.Fatal(err)
			}
			if k == nil {
				break
			}
			tags.Add(k, v)
		}
		type field struct {
			k []byte
			v lineprotocol.Value
		}
		var fields []field
		for {
			k, v, err := d.NextField()
			if err != nil {
				t.Fatal(err)
			}
			if k == nil {
				break
			}
			fields = append(fields, field{append([]byte(nil), k...), v})
		}
		ts, err := d.Time(lineprotocol.Nanosecond, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		tb.Row(tags.Hash(), ts.UnixNano())
		for _, f := range fields {
			switch f.v.Kind() {
			case lineprotocol.Float:
				tb.Field(f.k, fingerprint.Float).Float(f.v.FloatV())
			case lineprotocol.Int:
				tb.Field(f.k, fingerprint.Int).Int(f.v.IntV())
			case lineprotocol.Uint:
				tb.Field(f.k, fingerprint.Uint).Uint(f.v.UintV())
			case lineprotocol.String:
				tb.Field(f.k, fingerprint.String).String(len(f.v.StringV()))
			case lineprotocol.Bool:
				tb.Field(f.k, fingerprint.Bool).Bool(f.v.BoolV())
			}
		}
	}
	return acc.Result()
}

// Query is the content query of what was read into a table: its tags
// given, its fields as read.
func Query(r *fingerprint.Read, tags ...string) fingerprint.Query {
	q := fingerprint.Query{Table: r.Name, Time: "time", Tags: tags}
	for _, f := range r.Fields {
		q.Fields = append(q.Fields, fingerprint.FieldQuery{Name: f.Name, Kind: f.Kind})
	}
	return q
}

// Verify compares found with what was read (fingerprint.ExpectRead and
// Compare) and returns the mismatches as text, one a line ("" when the
// content verifies).
func Verify(read *fingerprint.Read, found *fingerprint.Table, overwrites bool) string {
	res := fingerprint.Compare(fingerprint.ExpectRead(read, overwrites), found)
	var out []string
	for _, m := range res.Mismatches {
		out = append(out, m.String())
	}
	return strings.Join(out, "\n")
}
