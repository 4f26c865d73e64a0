package questdb

import (
	"bytes"
	"testing"
)

func TestCleanAndInputLine(t *testing.T) {
	tests := []struct {
		name  string
		data  string
		clean string // "" means needsClean is false
		// server line -> physical line of data
		lines map[int64]int64
	}{
		{name: "plain", data: "a v=1\nb v=2\n", lines: map[int64]int64{1: 1, 2: 2, 3: 0}},
		{name: "empty lines are skipped by the server", data: "\na v=1\n\n\nb v=2\n", lines: map[int64]int64{1: 2, 2: 5}},
		{name: "comments", data: "# head\na v=1\n# mid\nb v=2\n", clean: "a v=1\nb v=2\n", lines: map[int64]int64{1: 2, 2: 4}},
		{name: "blank-only line", data: "a v=1\n  \t\nb v=2\n", clean: "a v=1\nb v=2\n", lines: map[int64]int64{1: 1, 2: 3}},
		{name: "crlf blank", data: "a v=1\n\r\nb v=2\n", clean: "a v=1\nb v=2\n", lines: map[int64]int64{2: 3}},
		{name: "indented comment", data: "  # x\na v=1\n", clean: "a v=1\n", lines: map[int64]int64{1: 2}},
		{name: "no final newline", data: "a v=1\n#c", clean: "a v=1\n", lines: map[int64]int64{1: 1, 2: 0}},
		{name: "hash inside a line is data", data: "a,t=#1 v=1\n", lines: map[int64]int64{1: 1}},
		{name: "zero", data: "a v=1\n", lines: map[int64]int64{0: 0, -1: 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(tt.data)
			if got := needsClean(data); got != (tt.clean != "") {
				t.Fatalf("needsClean = %v", got)
			}
			if tt.clean != "" {
				if got := appendClean(nil, data); string(got) != tt.clean {
					t.Errorf("appendClean = %q, want %q", got, tt.clean)
				}
			}
			for n, want := range tt.lines {
				if got := inputLine(data, n); got != want {
					t.Errorf("inputLine(%d) = %d, want %d", n, got, want)
				}
			}
		})
	}
}

func TestLineText(t *testing.T) {
	data := []byte("one\ntwo\nthree")
	for n, want := range map[int64]string{1: "one", 2: "two", 3: "three", 4: ""} {
		if got := string(lineText(data, n)); got != want {
			t.Errorf("lineText(%d) = %q, want %q", n, got, want)
		}
	}
}

// FuzzInputLine checks that the server's n-th line of the cleaned body is
// the physical line inputLine names.
func FuzzInputLine(f *testing.F) {
	f.Add([]byte("# c\n\na v=1\n  \nb v=2\n"), int64(2))
	f.Add([]byte("a\r\n\r\nb\n"), int64(1))
	f.Fuzz(func(t *testing.T, data []byte, n int64) {
		sent := data
		if needsClean(data) {
			sent = appendClean(nil, data)
		}
		// The server's numbering: non-empty lines of what was sent.
		var server [][]byte
		for _, l := range bytes.Split(sent, []byte{'\n'}) {
			if len(l) > 0 {
				server = append(server, l)
			}
		}
		phys := inputLine(data, n)
		if n < 1 || n > int64(len(server)) {
			if phys != 0 && (n < 1 || !bytes.Equal(lineText(data, phys), server[n-1])) {
				t.Fatalf("inputLine(%q, %d) = %d, server has %d lines", data, n, phys, len(server))
			}
			return
		}
		if phys == 0 {
			t.Fatalf("inputLine(%q, %d) = 0, server line is %q", data, n, server[n-1])
		}
		if got := lineText(data, phys); !bytes.Equal(got, server[n-1]) {
			t.Fatalf("inputLine(%q, %d) = %d (%q), server line is %q", data, n, phys, got, server[n-1])
		}
	})
}

func BenchmarkNeedsClean(b *testing.B) {
	line := []byte("cpu,hostname=host_1,region=eu-west-1,datacenter=eu-west-1a usage_user=58.1,usage_system=2.2,usage_idle=24.5 1451606400000000000\n")
	data := bytes.Repeat(line, 5000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if needsClean(data) {
			b.Fatal("clean data reported dirty")
		}
	}
	b.ReportMetric(float64(5000*b.N)/b.Elapsed().Seconds(), "rows/s")
}
