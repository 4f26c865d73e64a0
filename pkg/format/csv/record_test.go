package csv

import (
	"strings"
	"testing"
)

func TestParseRecord(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		n      int
		want   []string // "<NULL>" for nil
		errSub string
	}{
		{"plain", "a,b,c\n", 3, []string{"a", "b", "c"}, ""},
		{"null and empty", `a,,""` + "\n", 3, []string{"a", "<NULL>", ""}, ""},
		{"quoted comma quote", `"x,""y""",2` + "\n", 2, []string{`x,"y"`, "2"}, ""},
		{"quoted newline", "\"l1\nl2\",z\n", 2, []string{"l1\nl2", "z"}, ""},
		{"crlf", "a,b\r\n", 2, []string{"a", "b"}, ""},
		{"quoted crlf", "a,\"b\"\r\n", 2, []string{"a", "b"}, ""},
		{"too few", "a,b\n", 3, nil, "record has 2 fields"},
		{"too many", "a,b,c,d\n", 3, nil, "more than 3 fields"},
		{"no newline", "a,b", 2, nil, "does not end in a newline"},
		{"unterminated", `"abc,d` + "\n", 2, nil, "unterminated quoted field"},
		{"bare quote", `ab"c,d` + "\n", 2, nil, "quote inside an unquoted field"},
		{"junk after quote", `"ab"c,d` + "\n", 2, nil, "character after a closing quote"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := []byte(tc.in)
			fields := make([][]byte, tc.n)
			scratch := make([]byte, 0, len(data))
			next, _, err := ParseRecord(data, 0, fields, &scratch)
			if tc.errSub != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errSub) {
					t.Fatalf("err = %v, want %q", err, tc.errSub)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if next != len(data) {
				t.Errorf("next = %d, want %d", next, len(data))
			}
			for i, f := range fields {
				got := string(f)
				if f == nil {
					got = "<NULL>"
				}
				if got != tc.want[i] {
					t.Errorf("field %d = %q, want %q", i, got, tc.want[i])
				}
			}
		})
	}
}

func FuzzParseRecord(f *testing.F) {
	f.Add([]byte("a,b,c\n"), 3)
	f.Add([]byte(`"x,""y""",,z`+"\n"), 3)
	f.Add([]byte("\"l1\nl2\",z\r\n"), 2)
	f.Fuzz(func(t *testing.T, data []byte, n int) {
		if n < 1 || n > 64 {
			return
		}
		fields := make([][]byte, n)
		scratch := make([]byte, 0, len(data))
		next, _, err := ParseRecord(data, 0, fields, &scratch)
		if err != nil {
			return
		}
		if next <= 0 || next > len(data) || data[next-1] != '\n' {
			t.Fatalf("next = %d for %q", next, data)
		}
		if cap(scratch) < len(data) {
			t.Fatal("scratch grew")
		}
	})
}
