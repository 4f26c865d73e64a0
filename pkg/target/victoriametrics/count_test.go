package victoriametrics

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

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/internal/vmtest"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// Verification against the real VictoriaMetrics: a pass when the server
// holds every row (dense, sparse, re-sent), a failure when it does not.

func writeFile(t *testing.T, name, data string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// load1 loads path into db label db through the runner (batches of 7
// rows, 2 workers), dropping the label's series first when drop, verifying
// by content when content, and sending each batch as edit makes it (nil:
// as read).
func load1(t *testing.T, base, db, path string, drop, content bool, edit func(b *load.Batch) []byte) loadtest.Run {
	t.Helper()
	tg, err := New(Config{Conn: httpwrite.Conn{URLs: []string{base}, Gzip: true, GzipLevel: 1, RequestTimeout: 30 * time.Second}, Precision: "ns", DBName: db})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	cfg := loadtest.FaultConfig(path, 7, 2)
	cfg.VerifyContent = content
	cfg.Prepare = load.PrepareOptions{DBName: db, CreateDB: true, DropDB: drop}
	cfg.Loader, cfg.Target = "load_victoriametrics", "victoriametrics"
	var target load.Target = tg
	if edit != nil {
		target = editor{tg, edit}
	}
	return loadtest.RunLoad(t, cfg, target)
}

// editor is a target whose writer sends each batch's data as edit makes
// it, acknowledging the batch's rows as read: a loss or a change
// verification must see.
type editor struct {
	*Target
	edit func(b *load.Batch) []byte
}

func (e editor) NewWriter(ctx context.Context, worker int) (load.Writer, error) {
	w, err := e.Target.NewWriter(ctx, worker)
	return editWriter{w, e.edit}, err
}

type editWriter struct {
	load.Writer
	edit func(b *load.Batch) []byte
}

func (w editWriter) Write(ctx context.Context, b *load.Batch) (load.Ack, error) {
	c := *b
	c.Data = w.edit(b)
	return w.Writer.Write(ctx, &c)
}

// sparseFile writes name: three fields, each missing from one row (a
// different one), so that every field of the series has the same count,
// and a second series with all fields; and one row of a second
// measurement. It returns the path and the rows.
func sparseFile(t *testing.T, name string) (string, int64) {
	var b strings.Builder
	const ts = int64(1451606400000000000)
	rows := int64(0)
	for i := 0; i < 30; i++ {
		fields := []string{fmt.Sprintf("a=%d", i), fmt.Sprintf("b=%di", i), fmt.Sprintf("c=%d.25", i)}
		if i < 3 {
			fields = append(fields[:i:i], fields[i+1:]...)
		}
		fmt.Fprintf(&b, "m,host=x %s %d\n", strings.Join(fields, ","), ts+int64(i)*10e9)
		fmt.Fprintf(&b, "m,host=y a=1,b=2i,c=3 %d\n", ts+int64(i)*10e9)
		rows += 2
	}
	b.WriteString("n,host=x v=1 1451606400000000000\n")
	return writeFile(t, name, b.String()), rows + 1
}

// TestCountSparse: rows with fields missing count as rows (distinct
// timestamps), not as the samples of any one field.
func TestCountSparse(t *testing.T) {
	base, db := vmtest.RealDB(t)
	path, rows := sparseFile(t, "sparse.ilp")
	f := load1(t, base, db, path, true, false, nil)
	f.Exact(t, rows)
	if got := f.Res.Verify.Actual["m"]; got != rows-1 {
		t.Fatalf("m counted %d rows, want %d", got, rows-1)
	}
}

// TestCountResent: loading the same rows again into the db label (not
// dropped) adds no sample: each overwrites itself (dedup 1ms), which
// verification reports as rows written again, not as a loss.
func TestCountResent(t *testing.T) {
	base, db := vmtest.RealDB(t)
	path, rows := sparseFile(t, "again.ilp")
	load1(t, base, db, path, true, false, nil).Exact(t, rows)
	f := load1(t, base, db, path, false, false, nil)
	f.Exact(t, rows)
	if f.Res.Verify.Before["m"] != rows-1 || f.Res.Verify.Actual["m"] != rows-1 {
		t.Fatalf("before %v after %v", f.Res.Verify.Before, f.Res.Verify.Actual)
	}
	for _, s := range vmtest.Export(t, base, db, "m_a") {
		if len(s.Timestamps) > 30 {
			t.Fatalf("%v holds %d samples of 30 rows", s.Metric, len(s.Timestamps))
		}
	}
}

// TestCountMissingRowFails: a row acknowledged but never sent (a sparse
// row of a series whose other rows are there) fails verification.
func TestCountMissingRowFails(t *testing.T) {
	base, db := vmtest.RealDB(t)
	path, _ := sparseFile(t, "lost.ilp")
	// Each batch's last line is not sent, but for the first batch: the
	// loss is one row of a series whose other rows are there.
	f := load1(t, base, db, path, true, false, func(b *load.Batch) []byte {
		if b.FirstRecord == 1 {
			return b.Data
		}
		data := bytes.TrimSuffix(b.Data, []byte("\n"))
		return append([]byte(nil), data[:bytes.LastIndexByte(data, '\n')+1]...)
	})
	if f.Err == nil || f.Res.Verify == nil || f.Res.Verify.OK {
		t.Fatalf("a lost row passed verification: %v\n%s", f.Err, f.Log)
	}
}

// TestRefusedSubMillisecond: a timestamp with a part finer than a
// millisecond is refused before it is sent, naming its line.
func TestRefusedSubMillisecond(t *testing.T) {
	base, db := vmtest.RealDB(t)
	f := load1(t, base, db, writeFile(t, "fine.ilp", "m v=1 1451606400000000000\nm v=2 1451606400000000500\n"), true, false, nil)
	if f.Err == nil || !strings.Contains(f.Err.Error(), "line 2: timestamp 1451606400000000500 has a part finer than a millisecond") {
		t.Fatalf("err = %v\n%s", f.Err, f.Log)
	}
	if f.Res.Rows != 0 {
		t.Fatalf("%d rows counted", f.Res.Rows)
	}
}

// TestContentChangedValueFails: --verify content fails on a changed value
// that the count cannot see, and passes on the same rows sent as read.
func TestContentChangedValueFails(t *testing.T) {
	base, db := vmtest.RealDB(t)
	path, rows := sparseFile(t, "content.ilp")
	f := load1(t, base, db, path, true, true, nil)
	f.Exact(t, rows)
	if !strings.Contains(f.Log, "verify content OK") {
		t.Fatalf("content not verified:\n%s", f.Log)
	}
	// One value changed: the row is there, with another value.
	f = load1(t, base, db, path, true, true, func(b *load.Batch) []byte { return bytes.Replace(b.Data, []byte("c=3 "), []byte("c=3.5 "), 1) })
	if f.Err == nil || !strings.Contains(f.Log, "m_c") && !strings.Contains(f.Log, `field "c"`) && !strings.Contains(f.Log, "c:") {
		t.Fatalf("a changed value passed content verification: %v\n%s", f.Err, f.Log)
	}
}

// TestRefusedInexactInteger: integers a float64 store cannot hold as sent
// are refused naming the line, with nothing counted; before, 1,000 such
// rows loaded and verified by content (their +-1 roundings cancelled in
// the sums) while every stored value differed from the one sent.
func TestRefusedInexactInteger(t *testing.T) {
	base, db := vmtest.RealDB(t)
	var b strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&b, "m,host=h%d cnt=%di,x=%d.5 %d\n", i%5, int64(9007199254740993)+2*int64(i), i, int64(1451606400000000000)+int64(i)*1e9)
	}
	f := load1(t, base, db, writeFile(t, "big.ilp", b.String()), true, true, nil)
	// Either worker's first batch may be refused first: the line is the one
	// that batch starts with.
	if f.Err == nil || !regexp.MustCompile(`line (\d+): field cnt: integer 90071992547\d+ has no exact float64 \(VictoriaMetrics stores float64`).MatchString(f.Err.Error()) {
		t.Fatalf("err = %v\n%s", f.Err, f.Log)
	}
	if f.Res.Rows != 0 {
		t.Fatalf("%d rows counted", f.Res.Rows)
	}
}

// TestValueExtremes: the values VictoriaMetrics does store as sent load
// and verify by content: integers at 2^53 and at int64's least, float64's
// largest, least normal and least subnormal, booleans.
func TestValueExtremes(t *testing.T) {
	base, db := vmtest.RealDB(t)
	const ts = int64(1451606400000000000)
	var b strings.Builder
	for i, v := range []string{"9007199254740992i", "-9007199254740992i", "-9223372036854775808i", "4611686018427387904i", "9007199254740992u",
		"1.7976931348623157e308", "-1.7976931348623157e308", "2.2250738585072014e-308", "5e-324", "0.1", "t", "f"} {
		fmt.Fprintf(&b, "m,host=x v=%s %d\n", v, ts+int64(i)*1e9)
	}
	f := load1(t, base, db, writeFile(t, "extremes.ilp", b.String()), true, true, nil)
	if f.Err != nil {
		t.Fatalf("err = %v\n%s", f.Err, f.Log)
	}
	if f.Res.Rows != 12 || f.Res.Verify == nil || !f.Res.Verify.OK {
		t.Fatalf("rows %d, verify %+v\n%s", f.Res.Rows, f.Res.Verify, f.Log)
	}
}
