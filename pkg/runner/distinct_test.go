package runner

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tsload/tsload/pkg/journal"
	"github.com/tsload/tsload/pkg/load"
)

// keyed is an overwriting database: it keeps one point per (series,
// timestamp) key of the ILP lines it is given (measurement and tags as
// written, the last word as the time), as InfluxDB and CnosDB do; lose
// drops that many points of the first batch.
type keyed struct {
	*fakeTarget
	mu     sync.Mutex
	points map[string]map[string]bool // table -> key
	lose   int
}

func newKeyed() *keyed { return &keyed{fakeTarget: newFake(), points: map[string]map[string]bool{}} }

func (*keyed) Hooks() load.Hooks { return load.Hooks{Overwrites: true} }

func (k *keyed) NewWriter(context.Context, int) (load.Writer, error) { return keyWriter{k}, nil }

func (k *keyed) Count(_ context.Context, tables []string) (map[string]int64, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := map[string]int64{}
	for _, t := range tables {
		out[t] = int64(len(k.points[t]))
	}
	return out, nil
}

type keyWriter struct{ k *keyed }

func (w keyWriter) Write(_ context.Context, b *load.Batch) (load.Ack, error) {
	w.k.mu.Lock()
	defer w.k.mu.Unlock()
	for _, l := range strings.Split(strings.TrimSpace(string(b.Data)), "\n") {
		if w.k.lose > 0 {
			w.k.lose--
			continue
		}
		series := l[:strings.IndexByte(l, ' ')]
		table := series
		if i := strings.IndexByte(series, ','); i >= 0 {
			table = series[:i]
		}
		if w.k.points[table] == nil {
			w.k.points[table] = map[string]bool{}
		}
		w.k.points[table][series+" "+l[strings.LastIndexByte(l, ' ')+1:]] = true
	}
	return load.Ack{Rows: b.Rows}, nil
}

func (keyWriter) Close() error { return nil }

// repeatInput writes n lines of cpu over 7 hosts, then the lines
// numbered in again (other field values, the same keys): n+len(again)
// rows, n distinct keys.
func repeatInput(t *testing.T, n int, again ...int) string {
	t.Helper()
	var b bytes.Buffer
	line := func(i, v int) { fmt.Fprintf(&b, "cpu,host=h%d u=%di %d\n", i%7, v, 1_000_000_000*int64(i/7)) }
	for i := range n {
		line(i, i)
	}
	for _, i := range again {
		line(i, -i)
	}
	return writeFile(t, "repeat.ilp", b.String())
}

// TestVerifyRepeatedKeys: with the default count verification, a load
// into an overwriting target of an input that repeats (series, time) keys
// passes when the database holds exactly the distinct keys, saying how
// many rows repeated and what finding that cost; it still fails when a
// point is missing; reading the keys in a store smaller than the input
// (spilled to temporary files) counts the same.
func TestVerifyRepeatedKeys(t *testing.T) {
	in := repeatInput(t, 3000, 5, 17, 2999)
	for _, memKeys := range []int{8 << 20, 100} {
		old := distinctMemKeys
		distinctMemKeys = memKeys
		var stderr bytes.Buffer
		cfg := baseConfig(in)
		cfg.BatchSize, cfg.Stderr = 250, &stderr
		res, err := Run(context.Background(), cfg, newKeyed())
		distinctMemKeys = old
		if err != nil || !res.Verify.OK || res.Verify.Expected["cpu"] != 3000 || res.Verify.Actual["cpu"] != 3000 ||
			!strings.Contains(res.Verify.Note, "cpu: 3003 rows acknowledged, 3000 distinct (series, time) keys, 3 rows repeat one") {
			t.Fatalf("memory %d keys: err %v verify %+v\n%s", memKeys, err, res.Verify, stderr.String())
		}
		if spilled := strings.Contains(res.Verify.Note, "in temporary files"); spilled != (memKeys == 100) {
			t.Fatalf("memory %d keys: spilled %v: %s", memKeys, spilled, res.Verify.Note)
		}
	}

	lossy := newKeyed()
	lossy.lose = 2
	res, err := Run(context.Background(), baseConfig(in), lossy)
	if err == nil || res.Verify.OK || !strings.Contains(err.Error(), "cpu: 0 rows before + 3003 acknowledged = 3003 expected, database has 2998 (the input holds 3000 distinct (series, time) keys: 2 points missing)") {
		t.Fatalf("a lost point: err %v verify %+v", err, res.Verify)
	}
}

// TestVerifyRepeatedKeysAppend: into a table that held points, a load
// whose input repeats keys passes when before + distinct = after, and
// fails when the table holds fewer than its distinct keys.
func TestVerifyRepeatedKeysAppend(t *testing.T) {
	old := repeatInput(t, 500)
	in := repeatInput(t, 1000, 3, 4, 999)
	k := newKeyed()
	if _, err := Run(context.Background(), baseConfig(old), k); err != nil {
		t.Fatal(err)
	}
	// The second input's first 500 keys are the first's: 500 before,
	// 1003 acknowledged, 1000 distinct, 1000 after.
	res, err := Run(context.Background(), baseConfig(in), k)
	if err != nil || !res.Verify.OK || !strings.Contains(res.Verify.Note, "cpu: 500 rows before, 1003 acknowledged (1000 distinct keys), 1000 after") {
		t.Fatalf("err %v verify %+v", err, res.Verify)
	}
	// Keys of their own (timestamps moved past the table's): before +
	// distinct = after.
	var b bytes.Buffer
	for i := range 300 {
		fmt.Fprintf(&b, "cpu,host=h%d u=1i %d\n", i%3, 1e15+int64(i/6)*1e9) // every key twice
	}
	res, err = Run(context.Background(), baseConfig(writeFile(t, "more.ilp", b.String())), k)
	if err != nil || !res.Verify.OK || res.Verify.Expected["cpu"] != 1150 || !strings.Contains(res.Verify.Note, "cpu: 300 rows acknowledged, 150 distinct (series, time) keys, 150 rows repeat one") {
		t.Fatalf("new keys: err %v verify %+v", err, res.Verify)
	}

	lossy := newKeyed()
	if _, err := Run(context.Background(), baseConfig(repeatInput(t, 10)), lossy); err != nil {
		t.Fatal(err)
	}
	lossy.lose = 20 // 10 keys it holds already, 10 lost: fewer than the distinct keys
	if res, err := Run(context.Background(), baseConfig(in), lossy); err == nil || res.Verify.OK || !strings.Contains(err.Error(), "distinct (series, time) keys") {
		t.Fatalf("a loss after appending: err %v verify %+v", err, res.Verify)
	}
}

// TestVerifyRepeatedKeysResume: a resumed load is proven as a whole:
// rows before its first run + the input's distinct keys = after.
func TestVerifyRepeatedKeysResume(t *testing.T) {
	in := repeatInput(t, 5000, 1, 2, 4000, 4001)
	dir := t.TempDir()
	k := newKeyed()
	cfg := resumeConfig(dir, in)
	cfg.BatchSize = 500
	k.fail = failAt(6)
	if _, err := Run(context.Background(), cfg, failing{k}); err == nil {
		t.Fatal("the first run did not stop")
	}
	j, _, err := journal.Read(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Resume = j
	res, err := Run(context.Background(), cfg, k)
	if err != nil || !res.Verify.OK || !strings.Contains(res.Verify.Note, "cpu: 5004 rows acknowledged, 5000 distinct (series, time) keys, 4 rows repeat one") {
		t.Fatalf("err %v verify %+v", err, res.Verify)
	}
}

// failing is a keyed target whose writers refuse what its fail says.
type failing struct{ *keyed }

func (f failing) NewWriter(ctx context.Context, id int) (load.Writer, error) {
	return failWriter{keyWriter{f.keyed}, f.keyed}, nil
}

type failWriter struct {
	keyWriter
	k *keyed
}

func (w failWriter) Write(ctx context.Context, b *load.Batch) (load.Ack, error) {
	if ack, err := w.k.fail(b, 1); err != nil {
		return ack, err
	}
	return w.keyWriter.Write(ctx, b)
}
