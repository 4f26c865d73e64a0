package gen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func TestParseShard(t *testing.T) {
	checkParse(t, "ParseShard", ParseShard, func(a, b Shard) bool { return a == b }, []parseCase[Shard]{
		{"0/1", Shard{0, 1}, ""},
		{"3/4", Shard{3, 4}, ""},
		{"4/4", Shard{}, "0 <= i < M"},
		{"3/2", Shard{}, "0 <= i < M"},
		{"-1/2", Shard{}, "0 <= i < M"},
		{"0/0", Shard{}, "0 <= i < M"},
		{"1", Shard{}, "want i/M"},
		{"a/b", Shard{}, "integers"},
		{"", Shard{}, "want i/M"},
	})
}

func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"0/1", "3/4", "4/4", "x", "1/-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := ParseShard(s)
		if err != nil {
			return
		}
		if sh.Index < 0 || sh.Index >= sh.Count {
			t.Fatalf("ParseShard(%q) = %v: out of range", s, sh)
		}
		if again, err := ParseShard(sh.String()); err != nil || again != sh {
			t.Fatalf("round trip of %v: %v %v", sh, again, err)
		}
	})
}

func TestParseInterval(t *testing.T) {
	checkParse(t, "ParseInterval", ParseInterval, func(a, b time.Duration) bool { return a == b }, []parseCase[time.Duration]{
		{"10s", 10 * time.Second, ""},
		{"1h30m", 90 * time.Minute, ""},
		{"250ms", 250 * time.Millisecond, ""},
		{"1us", time.Microsecond, ""},
		{"0s", 0, "positive"},
		{"-1s", 0, "positive"},
		{"1500ns", 0, "microseconds"},
		{"10", 0, "missing unit"},
		{"ten seconds", 0, "invalid"},
	})
}

func FuzzParseInterval(f *testing.F) {
	for _, s := range []string{"10s", "1h", "0", "-5m", "1.5us"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseInterval(s)
		if err != nil {
			return
		}
		if d <= 0 || d%time.Microsecond != 0 {
			t.Fatalf("ParseInterval(%q) = %v", s, d)
		}
	})
}

func TestParseTimestamp(t *testing.T) {
	checkParse(t, "ParseTimestamp", ParseTimestamp, func(a, b time.Time) bool { return a.Equal(b) && a.Location() == time.UTC }, []parseCase[time.Time]{
		{"2016-01-01T00:00:00Z", DefaultStart, ""},
		{"2016-01-01", DefaultStart, ""},
		{"2016-01-01T01:00:00+01:00", DefaultStart, ""},
		{"2016-01-01T00:00:00.5Z", DefaultStart.Add(500 * time.Millisecond), ""},
		{"2016-01-01T00:00:00.0000001Z", time.Time{}, "microseconds"},
		{"1600-01-01", time.Time{}, "out of range"},
		{"2300-01-01", time.Time{}, "out of range"},
		{"yesterday", time.Time{}, "RFC 3339"},
		{"2016-13-01", time.Time{}, "RFC 3339"},
	})
}

func FuzzParseTimestamp(f *testing.F) {
	for _, s := range []string{"2016-01-01T00:00:00Z", "2016-01-01", "2016-01-01T00:00:00.123456+05:30", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ts, err := ParseTimestamp(s)
		if err != nil {
			return
		}
		if ts.Before(Earliest) || !ts.Before(Latest) || ts.Nanosecond()%1000 != 0 {
			t.Fatalf("ParseTimestamp(%q) = %v", s, ts)
		}
		if again, err := ParseTimestamp(ts.Format(time.RFC3339Nano)); err != nil || !again.Equal(ts) {
			t.Fatalf("round trip of %v: %v %v", ts, again, err)
		}
	})
}

func ExampleParseShard() {
	s, err := ParseShard("2/8")
	fmt.Println(s.Index, s.Count, err)
	_, err = ParseShard("8/8")
	fmt.Println(err)
	// Output:
	// 2 8 <nil>
	// shard "8/8": want 0 <= i < M (shards are 0-based)
}

func TestRoundHalfAway(t *testing.T) {
	vals := []float64{0, 0.5, -0.5, 1.5, -1.5, 2.5, 0.49999999999999994, -0.49999999999999994, 1e300, -1e300,
		4503599627370495.5, 4503599627370497, math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0.1, -0.1}
	for i := 0; i < 100000; i++ {
		vals = append(vals, (rand.Float64()-0.5)*math.Pow(10, float64(rand.IntN(20))))
	}
	for _, v := range vals {
		if got, want := roundHalfAway(v), math.Round(v); got != want || math.Signbit(got) != math.Signbit(want) && got != 0 {
			t.Fatalf("roundHalfAway(%v) = %v, want %v", v, got, want)
		}
	}
}

// parseCase is one input of a parser's table test: the value read, or a
// part of the error it is refused with.
type parseCase[T any] struct {
	in      string
	want    T
	wantErr string
}

// checkParse runs parse, named name in the messages, over tests; equal
// says whether a result is the one wanted.
func checkParse[T any](t *testing.T, name string, parse func(string) (T, error), equal func(got, want T) bool, tests []parseCase[T]) {
	t.Helper()
	for _, tt := range tests {
		got, err := parse(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s(%q) err = %v, want %q", name, tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !equal(got, tt.want) {
			t.Errorf("%s(%q) = %v, %v; want %v", name, tt.in, got, err, tt.want)
		}
	}
}
