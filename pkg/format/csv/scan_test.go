package csv

import (
	"bytes"
	stdcsv "encoding/csv"
	"errors"
	"io"
	"strings"
	"testing"
)

// scanAll reads data as the splitter does: records one after another
// (a last one without '\n' gets one), blank lines skipped. It returns the
// records' unquoted fields, or the first refusal.
func scanAll(data []byte) ([][]string, string) {
	if len(data) > 0 && data[len(data)-1] != '\n' {
		data = append(data[:len(data):len(data)], '\n')
	}
	var out [][]string
	sc := Scanner{Spans: true}
	for len(data) > 0 {
		if data[0] == '\n' || len(data) > 1 && data[0] == '\r' && data[1] == '\n' {
			data = data[bytes.IndexByte(data, '\n')+1:]
			continue
		}
		sc.Reset()
		if !sc.Scan(data) {
			return out, "unterminated quoted field"
		}
		if sc.Reason != "" {
			return out, sc.Reason
		}
		var rec []string
		for _, f := range sc.Fields {
			rec = append(rec, f.Value(data))
		}
		out = append(out, rec)
		data = data[sc.pos:]
	}
	return out, ""
}

// FuzzScannerAgainstEncodingCSV: what the Scanner accepts, encoding/csv
// reads to the same records and fields; what it refuses for its quoting,
// encoding/csv refuses too. The exceptions (docs/formats.md): a bare CR
// and a NUL byte, which encoding/csv keeps and the Scanner refuses, and a
// CR before LF inside quotes, which encoding/csv drops and the Scanner keeps
// (the bytes go to the server as they are).
func FuzzScannerAgainstEncodingCSV(f *testing.F) {
	for _, s := range []string{
		"a,b,c\n", `"x,""y""",,z` + "\n", "\"l1\nl2\",z\r\n", "a,\"b\"\r\n", "\n\na\n", "a\r\nb", `ab"c` + "\n",
		`"ab"c` + "\n", `"abc`, "a\rb\n", "a\x00b\n", "\"a\r\nb\"\n", "time,v\n2016-01-01T00:00:00Z,1.5\n", ` "a"` + "\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, reason := scanAll(data)
		r := stdcsv.NewReader(bytes.NewReader(data))
		r.FieldsPerRecord = -1
		var want [][]string
		var werr error
		for {
			rec, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				werr = err
				break
			}
			want = append(want, rec)
		}
		switch reason {
		case "":
			if werr != nil {
				t.Fatalf("Scanner accepts %q, encoding/csv: %v", data, werr)
			}
		case "carriage return in an unquoted field", "NUL byte":
			return // the Scanner's own refusals
		default:
			if werr == nil || !(errors.Is(werr, stdcsv.ErrBareQuote) || errors.Is(werr, stdcsv.ErrQuote)) {
				t.Fatalf("Scanner refuses %q (%s), encoding/csv: %v", data, reason, werr)
			}
			return
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %d records, encoding/csv %d\n%q\n%q", data, len(got), len(want), got, want)
		}
		for i := range got {
			if len(got[i]) != len(want[i]) {
				t.Fatalf("%q: record %d: %q, encoding/csv %q", data, i, got[i], want[i])
			}
			for j := range got[i] {
				if strings.ReplaceAll(got[i][j], "\r\n", "\n") != want[i][j] {
					t.Fatalf("%q: record %d field %d: %q, encoding/csv %q", data, i, j, got[i][j], want[i][j])
				}
			}
		}
	})
}
