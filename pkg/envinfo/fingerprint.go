package envinfo

import (
	"sort"
	"strconv"

	"github.com/tsload/tsload/pkg/fingerprint"
)

// TableFingerprint is one table's content fingerprint as a dataset file
// carries it (generate_data --fingerprint): what the loaders' reader made
// of the file when it was written, for a loader reading it later to check
// its own reading against (a file damaged on disk differs).
type TableFingerprint struct {
	Table       string             `json:"table"`
	Rows        int64              `json:"rows"`
	Series      int64              `json:"series"`
	SeriesExact bool               `json:"series_exact"`
	MinTime     int64              `json:"min_time"` // nanoseconds since the epoch
	MaxTime     int64              `json:"max_time"`
	NoTime      int64              `json:"no_time,omitempty"` // rows without a timestamp
	Fields      []FieldFingerprint `json:"fields"`
}

// FieldFingerprint is one field's aggregates (see fingerprint.Field).
type FieldFingerprint struct {
	Name   string  `json:"name"`
	Kind   string  `json:"kind"`
	Count  int64   `json:"count"`
	Sum    float64 `json:"sum,omitempty"`
	AbsSum float64 `json:"abs_sum,omitempty"`
	IntSum string  `json:"int_sum,omitempty"` // decimal: exact beyond 2^53
	// Min and Max of a numeric field, as text (integers in decimal,
	// floats in round-trip text, "+Inf" included); empty when not known
	// (a file described before they were recorded, or holding NaN).
	Min  string `json:"min,omitempty"`
	Max  string `json:"max,omitempty"`
	Len  int64  `json:"len,omitempty"`
	True int64  `json:"true,omitempty"`
}

var kinds = map[string]fingerprint.Kind{}

func init() {
	for _, k := range []fingerprint.Kind{fingerprint.Float, fingerprint.Int, fingerprint.Uint, fingerprint.String, fingerprint.Bool} {
		kinds[k.String()] = k
	}
}

// FingerprintOf converts what a reader read, sorted by table.
func FingerprintOf(reads map[string]*fingerprint.Read) []TableFingerprint {
	var out []TableFingerprint
	for _, r := range reads {
		t := TableFingerprint{Table: r.Name, Rows: r.Rows, Series: r.Series, SeriesExact: r.SeriesExact, MinTime: r.MinTime, MaxTime: r.MaxTime, NoTime: r.NoTime}
		for _, f := range r.Fields {
			ff := FieldFingerprint{Name: f.Name, Kind: f.Kind.String(), Count: f.Count, Sum: f.Sum, AbsSum: f.AbsSum, Len: f.Len, True: f.True}
			if f.Kind == fingerprint.Int || f.Kind == fingerprint.Uint {
				ff.IntSum = f.IntSum.String()
			}
			if f.Extremes {
				if f.Kind == fingerprint.Float {
					ff.Min, ff.Max = strconv.FormatFloat(f.Min, 'g', -1, 64), strconv.FormatFloat(f.Max, 'g', -1, 64)
				} else {
					ff.Min, ff.Max = f.IntMin.String(), f.IntMax.String()
				}
			}
			t.Fields = append(t.Fields, ff)
		}
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Table < out[j].Table })
	return out
}

// Read converts t back to what a reader reads.
func (t TableFingerprint) Read() *fingerprint.Read {
	r := &fingerprint.Read{Table: fingerprint.Table{Name: t.Table, Rows: t.Rows, Series: t.Series, SeriesExact: t.SeriesExact, MinTime: t.MinTime, MaxTime: t.MaxTime}, NoTime: t.NoTime}
	for _, f := range t.Fields {
		k, ok := kinds[f.Kind]
		ff := fingerprint.Field{Name: f.Name, Kind: k, Count: f.Count, Sum: f.Sum, AbsSum: f.AbsSum, Len: f.Len, True: f.True}
		if !ok {
			ff.Count = -1 // a kind this build does not know: not compared
		}
		if f.IntSum != "" {
			if v, ok := fingerprint.ParseInt128(f.IntSum); ok {
				ff.IntSum = v
			} else {
				ff.Count = -1
			}
		}
		if f.Min != "" && f.Max != "" {
			if k == fingerprint.Float {
				lo, err1 := strconv.ParseFloat(f.Min, 64)
				hi, err2 := strconv.ParseFloat(f.Max, 64)
				ff.Extremes, ff.Min, ff.Max = err1 == nil && err2 == nil, lo, hi
			} else {
				lo, ok1 := fingerprint.ParseInt128(f.Min)
				hi, ok2 := fingerprint.ParseInt128(f.Max)
				ff.Extremes, ff.IntMin, ff.IntMax = ok1 && ok2, lo, hi
			}
		}
		r.Fields = append(r.Fields, ff)
	}
	return r
}
