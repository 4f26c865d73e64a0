package questdb

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/fingerprint"
	"github.com/tsload/tsload/pkg/format/ilp"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/results"
	"github.com/tsload/tsload/pkg/runner"
	"github.com/tsload/tsload/pkg/split"
	"github.com/tsload/tsload/pkg/usecase"
)

// readFingerprint is what the loader's reading makes of the file.
func readFingerprint(t *testing.T, path string) map[string]*fingerprint.Read {
	t.Helper()
	in, err := split.Open(path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	sp, err := split.New(in, split.Config{BatchSize: 1000, DeferChecks: true, Lookup: usecase.LookupTable})
	if err != nil {
		t.Fatal(err)
	}
	chk := split.Checker{FP: fingerprint.NewAcc(fingerprint.Options{})}
	var b load.Batch
	for {
		if _, err := sp.Next(&b); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if _, err := chk.Check(&b, false); err != nil {
			t.Fatal(err)
		}
		b.Release()
	}
	return chk.FP.Result()
}

func contentQuery(name string, r *fingerprint.Read) fingerprint.Query {
	q := fingerprint.Query{Table: name, Tags: r.Tags}
	for _, f := range r.Fields {
		q.Fields = append(q.Fields, fingerprint.FieldQuery{Name: f.Name, Kind: f.Kind})
	}
	return q
}

// contentTarget is a target on s with deduplication (content
// verification wants one row per key), closed when the test ends.
func contentTarget(t *testing.T, s qdb) *Target {
	t.Helper()
	tg, err := New(Config{URL: s.http, Dedup: true, WALTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg
}

func loadContent(t *testing.T, tg load.Target, file, prefix string) (*results.Results, string, error) {
	t.Helper()
	var stderr bytes.Buffer
	res, err := runner.Run(context.Background(), runner.Config{
		Inputs: []string{file}, BatchSize: 700, Workers: 2,
		DoLoad: true, Verify: true, VerifyContent: true, ReportingPeriod: time.Minute, RetryTimeout: 30 * time.Second,
		Prepare: load.PrepareOptions{CreateDB: true, DropDB: true}, TablePrefix: prefix,
		Stderr: &stderr, Loader: "load_questdb", Target: "questdb",
	}, tg)
	return res, stderr.String(), err
}

// TestContentVerifies: cpu-only (float8) and weather (float4 columns, an
// integer tag) load and verify with content on; then a value changed
// behind the loader's back, the count kept, fails naming that field.
func TestContentVerifies(t *testing.T) {
	s := server(t)
	dir := t.TempDir()
	prefix := uniqueName(t, "fp") + "_"
	tg := contentTarget(t, s)
	for _, uc := range []string{usecase.CPUOnly, usecase.Weather} {
		file, rows := genILP(t, dir, uc, 5, 2*time.Hour)
		res, stderr, err := loadContent(t, tg, file, prefix)
		if err != nil || res.Verify == nil || !res.Verify.OK || res.Verify.Mode != "content" || res.Rows != rows {
			t.Fatalf("%s: err %v verify %+v\n%s", uc, err, res.Verify, stderr)
		}
		if !strings.Contains(stderr, "verify content OK") {
			t.Fatalf("%s: the summary does not say content was verified:\n%s", uc, stderr)
		}
	}
	// A value changed behind the loader's back.
	q, err := tg.withQuerier(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	table := prefix + "cpu"
	if _, err := q.query(context.Background(), "UPDATE "+quote(table)+" SET usage_nice = usage_nice + 1 WHERE hostname = 'host_1' AND timestamp = '2016-01-01T00:00:00.000000Z'"); err != nil {
		t.Fatal(err)
	}
	read := readFingerprint(t, filepathOf(dir, "cpu-only.ilp"))["cpu"]
	// The UPDATE is applied through the WAL: Content waits for it.
	found, err := tg.Content(context.Background(), []fingerprint.Query{contentQuery(table, read)})
	if err != nil {
		t.Fatal(err)
	}
	exp := fingerprint.ExpectRead(read, false)
	exp.Name = table
	r := fingerprint.Compare(exp, found[table])
	if r.OK() || len(r.Mismatches) != 1 || r.Mismatches[0].Field != "usage_nice" || r.Mismatches[0].What != "sum" {
		t.Fatalf("a changed usage_nice: %v", r.Mismatches)
	}
	t.Logf("found: %s", r.Mismatches[0])
}

func filepathOf(dir, name string) string { return dir + "/" + name }

// shifter is the QuestDB target with every line's timestamp moved by one
// second on the way (a server or proxy that misreads the precision: the
// count and every value are right, the time is not).
type shifter struct{ *Target }

func (s shifter) NewWriter(ctx context.Context, worker int) (load.Writer, error) {
	w, err := s.Target.NewWriter(ctx, worker)
	return shiftWriter{w}, err
}

type shiftWriter struct{ load.Writer }

func (w shiftWriter) Write(ctx context.Context, b *load.Batch) (load.Ack, error) {
	data, err := ilp.AppendShifted(nil, b.Data, int64(time.Second))
	if err != nil {
		return load.Ack{}, err
	}
	c := *b
	c.Data, c.Hold = data, nil
	return w.Writer.Write(ctx, &c)
}

// TestContentShiftedTime: rows stored with shifted timestamps fail on
// the time range, where the count passes.
func TestContentShiftedTime(t *testing.T) {
	s := server(t)
	dir := t.TempDir()
	prefix := uniqueName(t, "fpshift") + "_"
	tg := contentTarget(t, s)
	file, _ := genILP(t, dir, usecase.CPUOnly, 3, time.Hour)
	res, stderr, err := loadContent(t, shifter{tg}, file, prefix)
	if err == nil || res.Verify == nil || res.Verify.OK || !strings.Contains(err.Error(), "min time expected") || !strings.Contains(err.Error(), "max time expected") {
		t.Fatalf("shifted times: err %v verify %+v\n%s", err, res.Verify, stderr)
	}
	if res.Verify.Actual[prefix+"cpu"] != res.Verify.Expected[prefix+"cpu"] {
		t.Fatalf("the count differs too: %+v", res.Verify)
	}
}

// TestContentRepeatedKeys: an input that repeats a (series, time) key,
// loaded into DEDUP tables (which store the two rows as one point, as
// CnosDB and InfluxDB do): the count check calls the correct load a
// loss; content verification finds the repeat in the input and passes,
// saying what it could not prove.
func TestContentRepeatedKeys(t *testing.T) {
	s := server(t)
	dir := t.TempDir()
	prefix := uniqueName(t, "fprep") + "_"
	var b strings.Builder
	for i := 0; i < 50; i++ {
		fmt.Fprintf(&b, "cpu,hostname=h%d usage_user=%d.5 %d\n", i%5, i, 1704067200000000000+int64(i/5)*1e9)
	}
	b.WriteString("cpu,hostname=h1 usage_user=99.5 1704067200000000000\n") // h1's first key again
	file := filepath.Join(dir, "rep.ilp")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	tg := contentTarget(t, s)
	res, stderr, err := loadContent(t, tg, file, prefix)
	if err != nil || !res.Verify.OK || res.Verify.Actual[prefix+"cpu"] != 50 || len(res.Verify.Content) != 1 || len(res.Verify.Content[0].Notes) == 0 {
		t.Fatalf("err %v verify %+v\n%s", err, res.Verify, stderr)
	}
	if !strings.Contains(stderr, "repeats 1 (series, time) keys") {
		t.Fatalf("the summary does not say the input repeats a key:\n%s", stderr)
	}
}

// TestContentAppends: a second file loaded into the tables the first
// filled (no --drop-db): the fingerprint taken before the second load
// plus what it read must be what the table holds. Without DEDUP every
// aggregate is compared; with DEDUP the rows are bounded and the fields
// noted as unproven (the second load could have replaced points).
func TestContentAppends(t *testing.T) {
	s := server(t)
	dir := t.TempDir()
	for _, dedup := range []bool{false, true} {
		prefix := uniqueName(t, "fpapp") + "_"
		tg, err := New(Config{URL: s.http, Dedup: dedup, WALTimeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		first, _ := genILP(t, dir, usecase.CPUOnly, 3, time.Hour)
		if res, stderr, err := loadContent(t, tg, first, prefix); err != nil || !res.Verify.OK {
			t.Fatalf("first load: %v\n%s", err, stderr)
		}
		second := filepath.Join(dir, "later.ilp")
		data, _ := os.ReadFile(first)
		later, err := ilp.AppendShifted(nil, data, int64(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(second, later, 0o644)
		var stderr bytes.Buffer
		res, err := runner.Run(context.Background(), runner.Config{
			Inputs: []string{second}, BatchSize: 500, Workers: 2,
			DoLoad: true, Verify: true, VerifyContent: true, ReportingPeriod: time.Minute, RetryTimeout: 30 * time.Second,
			Prepare: load.PrepareOptions{CreateDB: true}, TablePrefix: prefix, Stderr: &stderr,
		}, tg)
		tg.Close()
		if err != nil || !res.Verify.OK || res.Verify.Mode != "content" || res.Verify.Before[prefix+"cpu"] == 0 {
			t.Fatalf("dedup %v: second load: %v verify %+v\n%s", dedup, err, res.Verify, stderr.String())
		}
		notes := len(res.Verify.Content[0].Notes)
		if dedup != (notes > 0) {
			t.Fatalf("dedup %v: notes %v", dedup, res.Verify.Content[0].Notes)
		}
	}
}
