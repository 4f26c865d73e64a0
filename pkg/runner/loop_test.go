package runner

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/gentest"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/format/csv"
	"github.com/tsload/tsload/pkg/format/pgcopy"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/pace"
)

// loopInput writes an hour of cpu-only data (3 hosts every 10 s) in f.
func loopInput(t *testing.T, f format.Format) (string, int64) {
	data, rows := gentest.CPUHour(t, f)
	path := filepath.Join(t.TempDir(), "cpu."+f.String())
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, rows
}

// rowKeys records "host timestamp" of every row written (an independent
// reading of each format: the timestamps as the target gets them).
type rowKeys struct {
	mu   sync.Mutex
	keys map[string]int
	ts   map[int64]int
}

func (k *rowKeys) add(t *testing.T, b *load.Batch) {
	k.mu.Lock()
	defer k.mu.Unlock()
	put := func(host string, ts int64) {
		k.keys[host+" "+strconv.FormatInt(ts, 10)]++
		k.ts[ts]++
	}
	switch b.Format {
	case format.ILP:
		for _, l := range strings.Split(strings.TrimSuffix(string(b.Data), "\n"), "\n") {
			i := strings.LastIndexByte(l, ' ')
			ts, err := strconv.ParseInt(l[i+1:], 10, 64)
			if err != nil {
				t.Errorf("line %q: %v", l, err)
			}
			_, h, _ := strings.Cut(l, "hostname=")
			h, _, _ = strings.Cut(h, ",")
			put(h, ts)
		}
	case format.CSV:
		for _, l := range strings.Split(strings.TrimSuffix(string(b.Data), "\n"), "\n") {
			v := csv.Values([]byte(l))
			tm, err := time.Parse(time.RFC3339Nano, v[0])
			if err != nil {
				t.Errorf("record %q: %v", l, err)
			}
			put(v[1], tm.UnixMicro())
		}
	default:
		for off := 0; off < len(b.Data); {
			f, n, err := pgcopy.Tuple(nil, b.Data[off:], 0)
			if err != nil {
				t.Fatal(err)
			}
			put(string(f[1]), int64(binary.BigEndian.Uint64(f[0])))
			off += n
		}
	}
}

// Three passes of an ILP, CSV and pgcopy input: 3x the rows, verified,
// every (host, timestamp) distinct, pass p's timestamps those of pass 1
// moved by p-1 spans (the hour's last timestamp minus its first plus one
// unit), and the input file unchanged (ILP batches are zero-copy).
func TestLoopPasses(t *testing.T) {
	for _, c := range []struct {
		f    format.Format
		span int64
		unit string
	}{
		{format.ILP, 3590e9 + 1000, "ILP timestamp units"}, // a whole 1000 units (1 µs) more: loopSpan
		{format.CSV, 3590e6 + 1, "µs"},
		{format.PGCopy, 3590e6 + 1, "µs"},
	} {
		t.Run(c.f.String(), func(t *testing.T) {
			path, n := loopInput(t, c.f)
			orig, _ := os.ReadFile(path)
			k := &rowKeys{keys: map[string]int{}, ts: map[int64]int{}}
			fk := newFake()
			fk.fail = func(b *load.Batch, _ int) (load.Ack, error) {
				k.add(t, b)
				return load.Ack{Rows: b.Rows}, nil
			}
			cfg := baseConfig(path)
			cfg.BatchSize, cfg.Workers = 100, 3
			cfg.Loop, cfg.Limit = true, 3*n
			res, err := Run(context.Background(), cfg, fk)
			if err != nil {
				t.Fatal(err)
			}
			if res.Rows != 3*n || !res.Verify.OK || res.Verify.Actual["cpu"] != 3*n {
				t.Fatalf("rows %d, want %d; verify %+v", res.Rows, 3*n, res.Verify)
			}
			if lp := res.Loop; lp == nil || lp.Passes != 3 || lp.Span != c.span || lp.Unit != c.unit || lp.Stopped {
				t.Fatalf("loop %+v", res.Loop)
			}
			if int64(len(k.keys)) != 3*n {
				t.Fatalf("%d distinct (host, timestamp) of %d rows", len(k.keys), 3*n)
			}
			for ts, m := range k.ts {
				if ts < k.min() || ts >= k.min()+c.span {
					continue
				}
				if k.ts[ts+c.span] != m || k.ts[ts+2*c.span] != m {
					t.Fatalf("timestamp %d: %d rows, %d one span on, %d two", ts, m, k.ts[ts+c.span], k.ts[ts+2*c.span])
				}
			}
			if now, _ := os.ReadFile(path); !bytes.Equal(now, orig) {
				t.Error("the input file changed")
			}
			if !strings.Contains(cfg.Stderr.(*bytes.Buffer).String(), fmt.Sprintf("loop: 3 passes, each shifted by %d %s", c.span, c.unit)) {
				t.Errorf("summary:\n%s", cfg.Stderr)
			}
		})
	}
}

func (k *rowKeys) min() int64 {
	m := int64(1) << 62
	for ts := range k.ts {
		m = min(m, ts)
	}
	return m
}

// --duration stops a loop: reading stops at the duration, what was sent
// is verified, and the periods say which pass they read.
func TestLoopDuration(t *testing.T) {
	path, n := ilpInput(t, 2000)
	_ = n
	fk := newFake()
	fk.delay = 2 * time.Millisecond
	cfg := baseConfig(path)
	cfg.BatchSize, cfg.Workers = 100, 2
	cfg.Loop, cfg.Duration = true, 400*time.Millisecond
	cfg.ReportingPeriod = 100 * time.Millisecond
	t0 := time.Now()
	res, err := Run(context.Background(), cfg, fk)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(t0); d < cfg.Duration {
		t.Errorf("ended after %s", d)
	}
	lp := res.Loop
	if lp == nil || !lp.Stopped || lp.Passes < 2 || !res.Verify.OK || res.Rows != res.RowsRead || res.Rows <= 2000 {
		t.Fatalf("loop %+v, rows %d (read %d), verify %+v", lp, res.Rows, res.RowsRead, res.Verify)
	}
	last := 0
	for _, p := range res.Periods {
		if p.Pass < last || p.Pass < 1 {
			t.Errorf("period passes go %d then %d", last, p.Pass)
		}
		last = p.Pass
	}
	// Without --loop the duration ends the run too, and the end of the
	// input ends it first.
	cfg.Loop = false
	cfg.Stderr = &bytes.Buffer{}
	res, err = Run(context.Background(), cfg, newFake())
	if err != nil || res.Rows != 2000 || res.Loop == nil || res.Loop.Stopped || res.Loop.Passes != 0 {
		t.Fatalf("err %v, rows %d, loop %+v", err, res.Rows, res.Loop)
	}
}

// What cannot be looped is refused, naming why (and where).
func TestLoopRefused(t *testing.T) {
	cfg := baseConfig()
	cfg.Loop, cfg.Duration, cfg.Stdin = true, time.Second, strings.NewReader("m f=1 1\n")
	if _, err := Run(context.Background(), cfg, newFake()); err == nil || !strings.Contains(err.Error(), "stdin cannot be read twice") {
		t.Errorf("stdin: %v", err)
	}
	path := filepath.Join(t.TempDir(), "in.ilp")
	os.WriteFile(path, []byte("m f=1 1\nm f=2\n"), 0o644)
	cfg = baseConfig(path)
	cfg.Loop = true
	if _, err := Run(context.Background(), cfg, newFake()); err == nil || !strings.Contains(err.Error(), "needs an end") {
		t.Errorf("no end: %v", err)
	}
	cfg.Duration = time.Minute
	if _, err := Run(context.Background(), cfg, newFake()); err == nil || !strings.Contains(err.Error(), "in.ilp: line 2: no timestamp") {
		t.Errorf("no timestamp: %v", err)
	}
}

// A paced loop with hash workers: each series stays on one worker in
// input order across passes, the pace holds, everything sent is verified.
func TestLoopComposes(t *testing.T) {
	path, _ := ilpInput(t, 2000)
	fk := newFake()
	cfg := baseConfig(path)
	cfg.BatchSize, cfg.Workers, cfg.HashWorkers = 200, 3, true
	cfg.Pace = pace.Pace{Rate: 50000}
	cfg.Loop, cfg.Duration = true, time.Second // a pass is 40 ms: ample on a loaded machine
	res, err := Run(context.Background(), cfg, fk)
	if err != nil {
		t.Fatal(err)
	}
	if fk.orderErr != nil {
		t.Fatal(fk.orderErr)
	}
	if lp := res.Loop; lp == nil || lp.Passes < 2 || !lp.Stopped || !res.Verify.OK || res.Rows != res.RowsRead || res.Pace == nil {
		t.Fatalf("loop %+v rows %d read %d verify %+v", res.Loop, res.Rows, res.RowsRead, res.Verify)
	}
	// The schedule made 50,000 rows due by 1 s at 50k rows/s: never
	// more are sent (how many fewer depends on the machine's load: no
	// lower bound).
	if res.Rows > 50000 {
		t.Errorf("%d rows sent in 1 s at 50k rows/s (%d passes)", res.Rows, res.Loop.Passes)
	}
}

// A loop's progress bar: the time towards --duration and the pass, not
// the fraction of a file read many times.
func TestLoopProgressBar(t *testing.T) {
	var out strings.Builder
	st := &workerStats{tables: map[string]int64{}, hist: newHistogram(), rows: 5000}
	r := &run{cfg: Config{Stderr: &out, Loop: true, Duration: 40 * time.Second}, in: inputs{totalSize: 100}, workers: []*workerStats{st}}
	r.in.doneSize.Store(300) // three passes of the file
	r.start = time.Unix(100, 0)
	r.loop = r.newLooper()
	r.loop.starts = []int64{1, 10, 20}
	r.drawBar(time.Unix(110, 0))
	if want := "[=======                       ]  25% 5,000 rows of ~20,000, 500 rows/s, pass 3, ETA 30s"; !strings.HasSuffix(out.String(), want) {
		t.Fatalf("bar %q, want it to end in %q", out.String(), want)
	}
}
