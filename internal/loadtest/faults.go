package loadtest

import (
	"cmp"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/faultproxy"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/results"
)

// FaultSuite is the fault scenarios every target runs, the whole path
// (runner.Run, the target, a real server) with internal/faultproxy between
// the target and the server:
//
//   - cut mid-batch: connections cut after a few KiB of a request, then every
//     open connection, twice;
//   - stall: every connection stalls for 3 s, past a 1 s request timeout;
//   - refused: the server is unreachable four times (open connections
//     cut, new ones refused) for 300 ms or until a connection was refused;
//   - refusal: the server refuses one batch for good (its line 3457);
//   - killed: a private server (Private) is killed with SIGKILL mid-load
//     and started again on its data (see killed).
//
// All but the refusal must end with every row in the database exactly
// once, verified; the refusal with an error naming the cause, no retry, and a
// results file marked failed whose rows are exactly what the database
// holds (the batches before the refused one).
type FaultSuite struct {
	Loader string // "load_questdb", for the results file
	// Upstream is the server the proxy forwards to (host:port or a URL).
	Upstream string
	// New makes the targets, writing through the proxy; Rows reads a
	// table directly.
	New  NewFunc
	Rows RowsFunc
	// Refuse turns one ILP line into one the server refuses without
	// retry; RefuseErr are what the run's error must say about it.
	Refuse    func(line string) string
	RefuseErr []string
	// RefusedRows are the rows the refusal run acknowledges: by default
	// 3000, the batches before the refused one; a server that writes the
	// rest of a batch around a refused line (InfluxDB's partial write)
	// acknowledges every other row.
	RefusedRows int64
	// Timeouts returns how many batches the target resolved otherwise than
	// by a re-send after a request timeout (optional; see the stall).
	Timeouts func(tg load.Target) int64
	// Private starts a server of the test's own for the kill scenario
	// (nil: skipped).
	Private func(t *testing.T) Private
	// Step is the time between the timestamps of the generated rows
	// (0: a millisecond); a target that stores whole seconds sets
	// time.Second.
	Step time.Duration
}

// NewFunc returns a target writing to the server at addr (host:port: a
// fault proxy, or the server itself), each request bounded by
// requestTimeout, and the lifecycle options of a fresh database or table;
// cleaning up is its business.
type NewFunc func(t *testing.T, addr string, requestTimeout time.Duration) (load.Target, load.PrepareOptions)

// RowsFunc returns what the database holds in table: rows and distinct
// (timestamp, host) keys, read directly (not through the target).
type RowsFunc func(t *testing.T, tg load.Target, table string) (rows, keys int64)

// Run runs every scenario as a subtest; table names start with prefix.
func (s FaultSuite) Run(t *testing.T, prefix string) {
	t.Run("cut mid-batch", func(t *testing.T) { s.cut(t, prefix+"_cut") })
	t.Run("stall past the request timeout", func(t *testing.T) { s.stall(t, prefix+"_stall") })
	t.Run("refused connections", func(t *testing.T) { s.refused(t, prefix+"_refused") })
	t.Run("non-retryable refusal", func(t *testing.T) { s.refusal(t, prefix+"_refusal") })
	t.Run("server killed with SIGKILL and restarted", func(t *testing.T) { s.killed(t, prefix+"_killed") })
}

// faultLines writes rows of table: ten series (host), a unique timestamp
// per row, step apart (0: a millisecond); edit, when not nil, may change
// line i.
func faultLines(t testing.TB, table string, rows int, step time.Duration, edit func(i int, line string) string) string {
	t.Helper()
	step = cmp.Or(step, time.Millisecond)
	var b strings.Builder
	for i := 0; i < rows; i++ {
		line := fmt.Sprintf("%s,host=h%d v=%d.5,n=%di %d\n", table, i%10, i, i, int64(1704067200000000000)+int64(i)*int64(step))
		if edit != nil {
			line = edit(i, line)
		}
		b.WriteString(line)
	}
	return tempFile(t, table+".ilp", b.String())
}

// faultRun is one load of a scenario.
type faultRun struct {
	Run
	tg    load.Target
	table string
}

func (s FaultSuite) load(t *testing.T, p *faultproxy.Proxy, table, path string, timeout time.Duration, batch, workers int) faultRun {
	t.Helper()
	tg, prep := s.New(t, p.Addr(), timeout)
	cfg := FaultConfig(path, batch, workers)
	cfg.Prepare = prep
	cfg.Loader, cfg.Target = s.Loader, strings.TrimPrefix(s.Loader, "load_")
	return faultRun{Run: RunLoad(t, cfg, tg), tg: tg, table: table}
}

// exact fails the test unless the run verified rows rows and the database
// holds each once.
func (s FaultSuite) exact(t *testing.T, f faultRun, rows int64) {
	t.Helper()
	f.Exact(t, rows)
	if n, keys := s.Rows(t, f.tg, f.table); n != rows || keys != rows {
		t.Fatalf("the database holds %d rows, %d distinct, want %d", n, keys, rows)
	}
}

// faulted loads rows lines into table with 2 workers through a new proxy
// (latency per read when not 0) while fault works the proxy beside the
// load; stop is closed when the load has ended.
func (s FaultSuite) faulted(t *testing.T, table string, rows int, latency, timeout time.Duration, batch int,
	fault func(p *faultproxy.Proxy, stop chan struct{})) (faultRun, *faultproxy.Proxy) {
	t.Helper()
	p := Proxy(t, s.Upstream)
	path := faultLines(t, table, rows, s.Step, nil)
	if latency > 0 {
		p.SetLatency(latency)
	}
	stop := make(chan struct{})
	defer close(stop)
	go fault(p, stop)
	return s.load(t, p, table, path, timeout, batch, 2), p
}

func (s FaultSuite) cut(t *testing.T, table string) {
	f, p := s.faulted(t, table, 40000, 0, 10*time.Second, 1000, func(p *faultproxy.Proxy, stop chan struct{}) {
		if !AfterBytes(p, 256<<10, stop) {
			return
		}
		p.CutAfter(4<<10, 5)
		p.CutAll()
		if AfterBytes(p, 1<<20, stop) {
			p.CutAll()
		}
	})
	s.exact(t, f, 40000)
	// CutAll cuts the connections open then (an idle one costs no
	// re-send); of the five new connections CutAfter arms, those the load
	// opens before it ends are cut 4 KiB into a request: how many depends
	// on timing (4 cuts and 2 re-sends on a fresh CI machine, TimescaleDB).
	// How many of the connections CutAll finds open is timing too (a
	// worker between batches may hold none): a cut and a re-send show the
	// load was cut mid-batch, which is what is asserted.
	if st := p.Stats(); st.Cuts == 0 || f.Res.Retries == 0 {
		t.Errorf("cuts %d, retries %d", st.Cuts, f.Res.Retries)
	}
	t.Logf("proxy %+v, %d re-sends", p.Stats(), f.Res.Retries)
}

func (s FaultSuite) stall(t *testing.T, table string) {
	f, _ := s.faulted(t, table, 30000, time.Millisecond, time.Second, 500, func(p *faultproxy.Proxy, stop chan struct{}) {
		if !AfterBytes(p, 256<<10, stop) {
			return
		}
		p.Stall(true)
		time.Sleep(3 * time.Second)
		p.Stall(false)
	})
	s.exact(t, f, 30000)
	var other int64
	if s.Timeouts != nil {
		other = s.Timeouts(f.tg)
	}
	if f.Res.Retries+other == 0 {
		t.Errorf("no batch timed out (retries %d, resolved otherwise %d):\n%s", f.Res.Retries, other, f.Log)
	}
	t.Logf("%d re-sends, %d resolved otherwise", f.Res.Retries, other)
}

func (s FaultSuite) refused(t *testing.T, table string) {
	f, p := s.faulted(t, table, 40000, time.Millisecond, 10*time.Second, 500, func(p *faultproxy.Proxy, stop chan struct{}) {
		for i := int64(1); i <= 4; i++ {
			if !AfterBytes(p, i*300<<10, stop) {
				return
			}
			// Refused until a connection was refused (at least 300 ms, at
			// most 10 s: within the 60 s retry budget), so that the scenario
			// does not depend on a worker reconnecting within a fixed time.
			before := p.Stats().Refused
			p.Refuse(true)
			p.CutAll()
			time.Sleep(300 * time.Millisecond)
			for deadline := time.Now().Add(10 * time.Second); p.Stats().Refused == before && time.Now().Before(deadline); {
				select {
				case <-stop:
					p.Refuse(false)
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
			p.Refuse(false)
		}
	})
	s.exact(t, f, 40000)
	if st := p.Stats(); st.Refused == 0 || f.Res.Retries == 0 {
		t.Errorf("refused %d, retries %d", st.Refused, f.Res.Retries)
	}
	t.Logf("proxy %+v, %d re-sends", p.Stats(), f.Res.Retries)
}

func (s FaultSuite) refusal(t *testing.T, table string) {
	p := Proxy(t, s.Upstream)
	path := faultLines(t, table, 5000, s.Step, func(i int, line string) string {
		if i == 3456 {
			return s.Refuse(line)
		}
		return line
	})
	f := s.load(t, p, table, path, 10*time.Second, 500, 1)
	for _, want := range s.RefuseErr {
		if f.Err == nil || !strings.Contains(f.Err.Error(), want) {
			t.Fatalf("err = %v, want it to say %q\n%s", f.Err, want, f.Log)
		}
	}
	want := s.RefusedRows
	if want == 0 {
		want = 3000
	}
	r := ReadResults(t, f.Results)
	n, keys := s.Rows(t, f.tg, table)
	if r.Status != results.StatusFailed || r.Rows != want || n != r.Rows || keys != n || r.Retries != 0 {
		t.Fatalf("status %s rows %d retries %d; the database holds %d (%d distinct), want %d", r.Status, r.Rows, r.Retries, n, keys, want)
	}
}
