package loadtest

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/format"
)

// valueTable is the file and heading of the table that declares, per
// target, which value classes it stores as sent and which it refuses.
const (
	valueTableFile    = "docs/formats.md"
	valueTableHeading = "### What each target stores"
)

// valueClass is one row of the value table: a value at an extreme of its
// class, loaded as three rows "<table>,host=h<i> v=<Field>,w=<i>i" (or,
// with Tag set, as the value of the tag host).
type valueClass struct {
	Label string // the row's first cell in the table
	Field string // the ILP field value
	Tag   string // a tag value instead (Field is then 1i)
}

var valueClasses = []valueClass{
	{Label: "int64 max `9223372036854775807i`", Field: "9223372036854775807i"},
	{Label: "int64 min `-9223372036854775808i`", Field: "-9223372036854775808i"},
	{Label: "2^53 `9007199254740992i`", Field: "9007199254740992i"},
	{Label: "integer above 2^53 `9007199254740993i`", Field: "9007199254740993i"},
	{Label: "uint64 max `18446744073709551615u`", Field: "18446744073709551615u"},
	{Label: "float64 max `1.7976931348623157e308`", Field: "1.7976931348623157e308"},
	{Label: "least normal `2.2250738585072014e-308`", Field: "2.2250738585072014e-308"},
	{Label: "least subnormal `5e-324`", Field: "5e-324"},
	{Label: "`-0.0`", Field: "-0.0"},
	{Label: "`NaN`", Field: "NaN"},
	{Label: "`+Inf`", Field: "+Inf"},
	{Label: "`-Inf`", Field: "-Inf"},
	{Label: "boolean `t`", Field: "t"},
	{Label: "boolean `false`", Field: "false"},
	{Label: "empty string `\"\"`", Field: `""`},
	{Label: "non-ASCII string `\"é ✓ 日本\"`", Field: `"é ✓ 日本"`},
	{Label: "invalid UTF-8 string (byte 0xff)", Field: "\"a\xffb\""},
	{Label: "1 MB string", Field: `"` + strings.Repeat("a", 1<<20) + `"`},
	{Label: "64 KB tag value", Tag: strings.Repeat("t", 64<<10)},
}

// Outcome is what a target declares it does with a value class.
type Outcome string

// The outcomes: the first word of a cell of the value table.
const (
	Stored  Outcome = "stored"
	Refused Outcome = "refused"
	// Fails is a known defect, said in the cell: the value is neither
	// stored as sent nor refused (or a correct load fails verification),
	// and the load fails. The check holds the target to it, so that a fix
	// shows as a failure until the table says what is true.
	Fails Outcome = "fails:"
)

// ValueTable reads the value table of docs/formats.md: per column (a
// target's name in its header) the outcome of each class, by label. It
// fails t unless the table has a row for every class the suite loads and
// no other, and every cell starts with an outcome.
func ValueTable(t testing.TB) map[string]map[string]Outcome {
	t.Helper()
	path := filepath.Join(repoRoot(t), valueTableFile)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	var cols []string
	table := map[string]map[string]Outcome{}
	in, line := false, 0
	rows := map[string]bool{}
	for sc.Scan() {
		line++
		l := sc.Text()
		switch {
		case l == valueTableHeading:
			in = true
			continue
		case !in:
			continue
		case strings.HasPrefix(l, "#"):
			in = false
			continue
		case !strings.HasPrefix(l, "|"):
			if cols != nil {
				in = false
			}
			continue
		}
		cells := strings.Split(strings.Trim(l, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		switch {
		case cols == nil:
			cols = cells
			for _, c := range cols[1:] {
				table[c] = map[string]Outcome{}
			}
		case strings.HasPrefix(cells[0], "---"):
		case len(cells) != len(cols):
			t.Fatalf("%s:%d: %d cells, the header has %d", valueTableFile, line, len(cells), len(cols))
		default:
			rows[cells[0]] = true
			for i, c := range cells[1:] {
				o := Outcome(strings.Fields(c + " ?")[0])
				if o != Stored && o != Refused && o != Fails {
					t.Errorf("%s:%d: %s, %s: %q starts with none of %q, %q, %q", valueTableFile, line, cells[0], cols[i+1], c, Stored, Refused, Fails)
				}
				table[cols[i+1]][cells[0]] = o
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cols == nil {
		t.Fatalf("%s: no table under %q", valueTableFile, valueTableHeading)
	}
	for _, c := range valueClasses {
		if !rows[c.Label] {
			t.Errorf("%s: the value table has no row %q", valueTableFile, c.Label)
		}
		delete(rows, c.Label)
	}
	for r := range rows {
		t.Errorf("%s: the value table's row %q is no value class the suite loads", valueTableFile, r)
	}
	return table
}

// repoRoot is the directory of go.mod above the test's directory.
func repoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = up
	}
}

// refusalLine is how a refusal names one of the three lines of a class's
// file (an input line, or a line of the batch, which is the same here).
var refusalLine = regexp.MustCompile(`\bline [123]\b`)

// values loads each value class into a table of its own and checks the
// outcome the value table declares in column s.Values: stored, the load
// passes verification (by content where the target computes content) and
// the table holds the three rows; refused, the load fails with one line
// that names an input line, and nothing is counted.
func (s TargetSuite) values(t *testing.T, prefix string) {
	if s.Values == "" {
		t.Skip("the target names no column of the value table (TargetSuite.Values)")
	}
	decl, ok := ValueTable(t)[s.Values]
	if !ok {
		t.Fatalf("%s: the value table has no column %q", valueTableFile, s.Values)
	}
	tg, prep := s.Target(t)
	step := s.Step
	if step == 0 {
		step = time.Second
	}
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	for i, c := range valueClasses {
		t.Run(c.Label, func(t *testing.T) {
			table := fmt.Sprintf("%s_%02d", prefix, i)
			var b strings.Builder
			for j := range 3 {
				host, field := fmt.Sprintf("h%d", j), c.Field
				if c.Tag != "" {
					host, field = c.Tag+fmt.Sprint(j), "1i"
				}
				fmt.Fprintf(&b, "%s,host=%s v=%s,w=%di %d\n", table, host, field, j, base+int64(j)*int64(step))
			}
			cfg := FaultConfig(tempFile(t, table+".ilp", b.String()), 1000, 1)
			// A first line of 64 KB is longer than format detection reads.
			cfg.Format, cfg.VerifyContent = format.ILP, true
			r := s.load(t, tg, prep, cfg)
			prep.DropDB = false // only the first load drops what was there
			switch want := decl[c.Label]; want {
			case Stored:
				if r.Err != nil {
					t.Fatalf("declared stored, refused: %v", r.Err)
				}
				r.Exact(t, 3)
				res := ReadResults(t, r.Results)
				for _, cc := range res.Verify.Content {
					for _, n := range cc.Notes {
						t.Logf("stored; content verification notes: %s", n)
					}
				}
				if n, _ := s.Rows(t, tg, table); n != 3 {
					t.Errorf("the database holds %d rows, want 3", n)
				}
			case Fails:
				if r.Err == nil {
					t.Fatalf("declared a known defect (the load fails), stored and verified: the table is out of date")
				}
				t.Logf("fails, as declared: %.300s", r.Err)
			case Refused:
				switch {
				case r.Err == nil:
					t.Fatalf("declared refused, stored and verified (%d rows)", r.Res.Rows)
				case strings.Contains(r.Err.Error(), "\n"):
					t.Errorf("refused in more than one line: %q", r.Err)
				case !refusalLine.MatchString(r.Err.Error()):
					t.Errorf("refused without naming the line: %v", r.Err)
				}
				if r.Res != nil && r.Res.Rows != 0 {
					t.Errorf("refused, yet %d rows counted", r.Res.Rows)
				}
				if msg := r.Err.Error(); len(msg) > 300 {
					t.Logf("refused: %s...", msg[:300])
				} else {
					t.Logf("refused: %s", msg)
				}
			}
		})
	}
}
