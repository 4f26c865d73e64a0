package questdb

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/runner"
)

// loadValues loads lines "m,host=h<i> v=<value>,w=<i>i <ts>" on the real
// server with content verification: one line per value.
func loadValues(t *testing.T, name string, values []string) (int64, error) {
	t.Helper()
	s := server(t)
	var b strings.Builder
	for i, v := range values {
		fmt.Fprintf(&b, "m,host=h%d v=%s,w=%di %d\n", i, v, i, int64(1451606400000000000)+int64(i)*1e9)
	}
	file := filepath.Join(t.TempDir(), name+".ilp")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	tg, err := New(Config{URL: s.http, PG: s.pg, WALTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	var stderr bytes.Buffer
	res, err := runner.Run(context.Background(), runner.Config{
		Inputs: []string{file}, BatchSize: 1000, Workers: 1, DoLoad: true, Verify: true, VerifyContent: true,
		ReportingPeriod: time.Minute, RetryTimeout: 10 * time.Second,
		Prepare: load.PrepareOptions{CreateDB: true, DropDB: true}, TablePrefix: uniqueName(t, name) + "_",
		Stderr: &stderr,
	}, tg)
	t.Logf("%s", stderr.String())
	return res.Rows, err
}

// TestNullValuesRefused: int64's least integer and NaN are QuestDB's NULLs;
// sent, they would load and read back as NULL. The loader refuses the line
// before sending, naming it.
func TestNullValuesRefused(t *testing.T) {
	for _, c := range []struct{ value, want string }{
		{"-9223372036854775808i", `input line 2: field v: integer -9223372036854775808 is QuestDB's NULL of a LONG column`},
		{"NaN", `input line 2: field v: NaN is QuestDB's NULL of a DOUBLE column`},
	} {
		ok := "1i"
		if c.value == "NaN" {
			ok = "1.5"
		}
		rows, err := loadValues(t, "null", []string{ok, c.value, ok})
		if err == nil || !regexp.MustCompile(regexp.QuoteMeta(c.want)).MatchString(err.Error()) {
			t.Fatalf("%s: err = %v, want %q", c.value, err, c.want)
		}
		if rows != 0 {
			t.Fatalf("%s: %d rows counted", c.value, rows)
		}
	}
}

// TestValueExtremes: the values QuestDB stores as sent load and verify by
// content.
func TestValueExtremes(t *testing.T) {
	for _, vs := range [][]string{
		{"9223372036854775807i", "-9223372036854775807i", "9007199254740993i"},
		{"1.7976931348623157e308", "2.2250738585072014e-308", "5e-324", "-0.0"},
		{`""`, `"` + strings.Repeat("a", 1<<20) + `"`},
	} {
		if rows, err := loadValues(t, "extremes", vs); err != nil || rows != int64(len(vs)) {
			t.Fatalf("%v: rows %d, err %v", vs[0], rows, err)
		}
	}
}

func TestNullValue(t *testing.T) {
	for _, c := range []struct {
		data string
		line int64
	}{
		{"m v=1i 1\nm v=-9223372036854775808i 2\n", 2},
		{"m v=1i 1\n# c\nm s=\"nan\",v=nan 2\n", 3},
		{"m s=\"NaN -9223372036854775808i\" 1\n", 0},
		{"m v=-9223372036854775807i,w=1.5 1\n", 0},
	} {
		if n, _ := nullValue([]byte(c.data)); n != c.line {
			t.Errorf("%q: line %d, want %d", c.data, n, c.line)
		}
	}
}

// FuzzNullValue: nullValue never panics, and the line it names holds the
// text of a NULL value.
func FuzzNullValue(f *testing.F) {
	f.Add([]byte("m v=1i 1\nm v=-9223372036854775808i 2\n"))
	f.Add([]byte("m,t=a s=\"nan\",v=NaN 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		n, reason := nullValue(data)
		if n == 0 {
			return
		}
		lines := bytes.Split(data, []byte{'\n'})
		if n > int64(len(lines)) || reason == "" {
			t.Fatalf("line %d of %d, reason %q", n, len(lines), reason)
		}
		if l := lines[n-1]; !bytes.Contains(l, longNull) && !mayHoldNaN(l) {
			t.Fatalf("line %d %q holds no NULL value", n, l)
		}
	})
}

// BenchmarkNullValue: the check on a batch of cpu rows, which hold neither
// value (the common case: one pass over the bytes, no parsing).
func BenchmarkNullValue(b *testing.B) {
	var sb strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&sb, "cpu,hostname=host_%d,region=eu-west-1 usage_user=%d.5,usage_system=12i %d\n", i, i%100, int64(1451606400000000000)+int64(i))
	}
	data := []byte(sb.String())
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if n, _ := nullValue(data); n != 0 {
			b.Fatal(n)
		}
	}
}
