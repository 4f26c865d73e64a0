package split

import (
	"io"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/schema"
)

// trickled is an input that sends parts, one write each, then holds the
// stream open (as a terminal does while the user types) until the test
// ends.
func trickled(t *testing.T, parts ...string) *Input {
	t.Helper()
	r, w := io.Pipe()
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold); r.Close() })
	go func() {
		for _, p := range parts {
			if _, err := w.Write([]byte(p)); err != nil {
				return
			}
		}
		<-hold
		w.Close()
	}()
	in, err := NewInput("stdin", r, -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close() })
	return in
}

// within runs f and fails the test if it has not returned by the test's
// own deadline (go test -timeout): f must not wait for input that is not
// coming.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	deadline, ok := t.Deadline()
	if !ok {
		<-done
		return
	}
	select {
	case <-done:
	case <-time.After(time.Until(deadline) - 5*time.Second):
		t.Fatalf("%s waited for more input than had arrived", what)
	}
}

// TestDetectOnWhatArrived: a stream typed line by line (stdin on a
// terminal) is detected from its first whole line, not after 64 KiB or
// its end; a CSV's column types are inferred from its first record as
// soon as that is whole.
func TestDetectOnWhatArrived(t *testing.T) {
	for _, tc := range []struct {
		name  string
		parts []string
		want  format.Format
	}{
		{"ilp line", []string{"cpu,host=a usage=1 1451606400000000000\n"}, format.ILP},
		{"ilp in pieces", []string{"# a comment\n", "cpu,host=a us", "age=1 1451606400000000000\n"}, format.ILP},
		{"csv header then a record", []string{"time,host,v\n", "2016-01-01T00:00:00Z,a,1.5\n"}, format.CSV},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := trickled(t, tc.parts...)
			var s *Splitter
			var err error
			within(t, "split.New", func() { s, err = New(in, Config{Table: "m"}) })
			if err != nil {
				t.Fatal(err)
			}
			if s.format != tc.want {
				t.Fatalf("format %v, want %v", s.format, tc.want)
			}
			if tc.want == format.CSV && s.tables[0].Columns[2].Type != schema.Float8 {
				t.Errorf("column v inferred as %v, want float (from the first record)", s.tables[0].Columns[2].Type)
			}
		})
	}
}

// A first line cut short by the end of the input is detected as it is.
func TestDetectPrefixFinal(t *testing.T) {
	for _, tc := range []struct {
		head  string
		final bool
		want  format.Format
		ok    bool
	}{
		{"cpu,host=a v=1", false, format.Unknown, false},
		{"cpu,host=a v=1", true, format.ILP, true},
		{"PGCO", false, format.Unknown, false},
		{"PGCOPY\n\xff\r\n\x00", false, format.PGCopy, true},
		{"# c\n", false, format.Unknown, false},
		{"# c\n", true, format.ILP, true},
		{"a,b\n", false, format.CSV, true},
	} {
		if f, ok := detectPrefix([]byte(tc.head), tc.final); f != tc.want || ok != tc.ok {
			t.Errorf("%q final %v: %v %v, want %v %v", tc.head, tc.final, f, ok, tc.want, tc.ok)
		}
	}
}

// FuzzDetectPrefix: whatever has arrived, a decision Detect takes before
// the end of the input is the one it takes on the whole input.
func FuzzDetectPrefix(f *testing.F) {
	f.Add([]byte("# c\ncpu,host=a v=1 1\n"), 5)
	f.Add([]byte("PGCOPY\n\xff\r\n\x00rest"), 3)
	f.Add([]byte("#tsload-csv v1\nx"), 9)
	f.Add([]byte("time,host\n1,a\n"), 4)
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		if cut < 0 || cut > len(data) {
			return
		}
		whole := DetectBytes(data)
		if got, ok := detectPrefix(data[:cut], false); ok && got != whole {
			t.Fatalf("%q: %v after %d bytes, %v on the whole", data, got, cut, whole)
		}
	})
}
