package loadtest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/gen"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/results"
	"github.com/tsload/tsload/pkg/runner"
)

// TargetSuite is the conformance suite of a target: the promises of
// load.Target checked the same way for every database, through the whole
// path (runner.Run, the target, its real server). A new target gets every
// check by calling it once, with its FaultSuite and ResumeSuite set
// (docs/adding-a-target.md):
//
//   - face: Ping answers before anything is prepared, the server's
//     address is a host:port (an embedded database, Upstream "", says it
//     has none: ServerAddr is ""), the hooks agree with InDoubt (a target that re-sends batches in doubt
//     overwrites identical points; one that settles them has Settle and
//     OnTicket);
//   - load and verify: rows loaded by two writers are verified by content
//     where the target can compute fingerprints (else by count, saying
//     why), are exactly what the server holds, and are described, with
//     the server's version;
//   - footprint and cost: the footprint is a measurement of the loaded
//     data or says it is not one (never a bare 0), the loader's cost is
//     measured, the server's is or says why not;
//   - reload: the same rows loaded again into the table that holds them
//     verify, and the table holds what the declared face says (once when
//     the target declares Overwrites, twice otherwise);
//   - paced: an open-loop run at a rate loads and verifies every row;
//   - CSV timestamps: RFC 3339 with and without an offset load and verify
//     by content, with the instants read (a target that refuses CSV says
//     so in Accepts: skipped);
//   - values: each value class at its extremes (integers at and beyond
//     2^53, int64's, uint64's and float64's extremes, -0, NaN, infinities,
//     booleans, empty, non-ASCII, invalid and long strings, a long tag) is
//     stored as sent, verified by content, or refused with one line naming
//     the input line, as the target's column of the value table in
//     docs/formats.md declares (Values);
//   - the fault scenarios (Faults) and the loader kills with --resume
//     (Resume), when set.
type TargetSuite struct {
	// Loader and Upstream are as FaultSuite's; Upstream "" is an embedded
	// database (a file opened in the loader's process): no server to
	// address, its New is given "".
	Loader, Upstream string
	New              NewFunc  // as FaultSuite's; the suite gives the server's address
	Rows             RowsFunc // as FaultSuite's
	// Faults and Resume, when set, run as the subtests "faults" and
	// "resume". What they leave unset is the suite's: Faults' Loader,
	// Upstream, New and Rows; Resume's Command (the package of the command
	// Loader), Upstream, DB (the database of New's targets: its loads run
	// one after the other) and Rows (Rows on a target of New: right when
	// New's targets all write one database).
	Faults *FaultSuite
	Resume *ResumeSuite
	// Embedded: the database runs inside the loader (tonbo): there is no
	// server, and ServerAddr must be "".
	Embedded bool
	// Step is the time between the timestamps of the generated rows of
	// every load but the queries' (0: a millisecond); a target that stores
	// whole seconds sets time.Second. Faults and Resume take it unless
	// they set their own.
	Step time.Duration
	// Values is the target's column in the value table of docs/formats.md
	// ("What each target stores"): the declaration the values check holds
	// the target to. "": the check is skipped.
	Values string
}

// suiteRows is the size of the suite's loads: five batches per writer.
const suiteRows = 5000

// Run runs every check as a subtest; table names start with prefix.
func (s TargetSuite) Run(t *testing.T, prefix string) {
	t.Run("face", func(t *testing.T) { s.face(t, prefix+"_face") })
	t.Run("load verify reload", func(t *testing.T) { s.loadVerifyReload(t, prefix+"_load") })
	t.Run("paced", func(t *testing.T) { s.paced(t, prefix+"_paced") })
	t.Run("queries while loading", func(t *testing.T) { s.queries(t, prefix+"_q_") })
	t.Run("csv timestamps", func(t *testing.T) { s.csvTimes(t, prefix+"_csv") })
	t.Run("values", func(t *testing.T) { s.values(t, prefix+"_val") })
	// TODO(issue 35): default-flag verification of an input that repeats
	// a (series, time) key, the same way on every target.
	// TODO(issue 43): a CSV whose time column is not named "time",
	// verified by content.
	if s.Faults != nil {
		f := *s.Faults
		f.Loader = cmp.Or(f.Loader, s.Loader)
		f.Upstream = cmp.Or(f.Upstream, s.Upstream)
		if f.New == nil {
			f.New = s.New
		}
		if f.Rows == nil {
			f.Rows = s.Rows
		}
		f.Step = cmp.Or(f.Step, s.Step)
		t.Run("faults", func(t *testing.T) { f.Run(t, prefix+"_fault") })
	}
	if s.Resume != nil {
		r := *s.Resume
		r.Command = cmp.Or(r.Command, "github.com/tsload/tsload/cmd/"+s.Loader)
		r.Upstream = cmp.Or(r.Upstream, s.Upstream)
		r.Step = cmp.Or(r.Step, s.Step)
		if r.DB == nil {
			r.DB = func(t *testing.T) string {
				_, prep := s.Target(t)
				return prep.DBName
			}
		}
		if r.Rows == nil {
			r.Rows = func(t *testing.T, _, table string) (rows, keys int64) {
				tg, _ := s.Target(t)
				return s.Rows(t, tg, table)
			}
		}
		t.Run("resume", func(t *testing.T) { r.Run(t, prefix+"_resume") })
	}
}

// Target is a new target on the suite's server (not proxied), each
// request bounded by 30 s, and the lifecycle options of a fresh database
// or table (the suite's loads, and a target's tests beside the suite).
func (s TargetSuite) Target(t *testing.T) (load.Target, load.PrepareOptions) {
	t.Helper()
	addr := s.Upstream
	if strings.Contains(addr, "://") {
		u, err := url.Parse(addr)
		if err != nil {
			t.Fatal(err)
		}
		addr = u.Host
	}
	return s.New(t, addr, 30*time.Second)
}

// load runs cfg (Loader, Target and Prepare set here) into tg.
func (s TargetSuite) load(t *testing.T, tg load.Target, prep load.PrepareOptions, cfg runner.Config) Run {
	t.Helper()
	cfg.Prepare = prep
	cfg.Loader, cfg.Target = s.Loader, strings.TrimPrefix(s.Loader, "load_")
	return RunLoad(t, cfg, tg)
}

func (s TargetSuite) face(t *testing.T, table string) {
	tg, _ := s.Target(t)
	ctx := context.Background()
	if err := tg.Ping(ctx); err != nil {
		t.Errorf("Ping: %v", err)
	}
	switch addr := tg.ServerAddr(); {
	case (s.Embedded || s.Upstream == "") && addr != "":
		t.Errorf("an embedded target with a server address %q: ServerAddr is \"\" when there is no server to find", addr)
	case s.Embedded || s.Upstream == "":
	default:
		if _, port, err := net.SplitHostPort(addr); err != nil || port == "" {
			t.Errorf("ServerAddr %q is no host:port: %v", addr, err)
		}
	}
	h := tg.Hooks()
	if (h.Settle == nil) != (h.OnTicket == nil) {
		t.Errorf("Hooks: Settle and OnTicket go together (Settle set: %v)", h.Settle != nil)
	}
	mode, err := tg.InDoubt(ctx, []string{table})
	switch {
	case errors.Is(err, errors.ErrUnsupported):
		t.Logf("InDoubt: a load cannot be resumed (%v)", err)
	case err != nil:
		t.Logf("InDoubt: %v", err) // says why batches in doubt cannot be settled
	case mode == load.ResendInDoubt && !h.Overwrites:
		t.Errorf("InDoubt re-sends batches in doubt, but the hooks do not declare Overwrites: a re-sent batch would be stored twice")
	case mode == load.SettleInDoubt && h.Settle == nil:
		t.Errorf("InDoubt settles batches in doubt, but the hooks have no Settle")
	case mode != load.ResendInDoubt && mode != load.SettleInDoubt:
		t.Errorf("InDoubt: mode %d", mode)
	}
}

// loadVerifyReload loads rows, checks the results and what the server
// holds, then loads the same rows again into the same table.
func (s TargetSuite) loadVerifyReload(t *testing.T, table string) {
	tg, prep := s.Target(t)
	path := faultLines(t, table, suiteRows, s.Step, nil)
	cfg := FaultConfig(path, suiteRows/10, 2)
	cfg.VerifyContent = true
	r := s.load(t, tg, prep, cfg)
	r.Exact(t, suiteRows)
	res := ReadResults(t, r.Results)
	wantMode := "content"
	if _, err := tg.Content(context.Background(), nil); errors.Is(err, errors.ErrUnsupported) {
		wantMode = "count"
	}
	if res.Verify.Mode != wantMode {
		t.Errorf("verified by %q, want %q (%s)", res.Verify.Mode, wantMode, res.Verify.Note)
	}
	if n, keys := s.Rows(t, tg, table); n != suiteRows || keys != suiteRows {
		t.Fatalf("the database holds %d rows, %d distinct, want %d", n, keys, suiteRows)
	}
	if res.Setup == nil {
		t.Errorf("no setup: Describe said nothing about a load")
	}
	if res.Environment == nil || res.Environment.Server.Version == "" {
		t.Errorf("no server version in the results: %+v", res.Environment)
	}
	checkCost(t, res)

	// The same rows again, into the table that holds them.
	prep.DropDB = false
	r = s.load(t, tg, prep, cfg)
	r.Exact(t, suiteRows)
	want := int64(2 * suiteRows)
	if tg.Hooks().Overwrites {
		want = suiteRows
	}
	if n, _ := s.Rows(t, tg, table); n != want {
		t.Errorf("after loading the rows twice the database holds %d, want %d (Overwrites: %v)", n, want, tg.Hooks().Overwrites)
	}
}

// checkCost: the footprint is a measurement or says it is not one; the
// loader's cost is measured; the server's is, or says why not.
func checkCost(t *testing.T, res results.Results) {
	t.Helper()
	if res.Cost == nil || res.Cost.Footprint == nil || res.Cost.Server == nil {
		t.Fatalf("cost: %+v", res.Cost)
	}
	fp := res.Cost.Footprint
	switch {
	case fp.NotMeasured != "":
		t.Logf("footprint not measured: %s", fp.NotMeasured)
	case fp.Method == "":
		t.Errorf("footprint without a method: %+v", fp)
	case fp.AfterLoadBytes <= 0 && fp.SettledBytes <= 0:
		t.Errorf("footprint of %d bytes for %d rows by %s: a measurement of nothing, not a measurement that it is not (%s)", fp.SettledBytes, fp.Rows, fp.Method, fp.Note)
	}
	if l := res.Cost.Loader; l.NotMeasured == "" && l.CPUSeconds <= 0 {
		t.Errorf("loader cost: %+v", l)
	}
	if sc := res.Cost.Server; sc.NotMeasured == "" && sc.PID <= 0 {
		t.Errorf("server cost without a process or a reason: %+v", sc)
	}
}

func (s TargetSuite) paced(t *testing.T, table string) {
	tg, prep := s.Target(t)
	const rows = 2000
	cfg := FaultConfig(faultLines(t, table, rows, s.Step, nil), 200, 2)
	cfg.Pace.Rate = 10 * rows // a fifth of a second
	r := s.load(t, tg, prep, cfg)
	r.Exact(t, rows)
	if res := ReadResults(t, r.Results); res.Pace == nil {
		t.Errorf("a paced run without its pace in the results")
	}
	if n, _ := s.Rows(t, tg, table); n != rows {
		t.Errorf("the database holds %d rows, want %d", n, rows)
	}
}

// queries loads a generated cpu-only file at a rate with queries beside
// the writers (--query-rate): every query type is answered and every
// checked answer is right. A target without a querier must say so in its
// face (Hooks.NewQuerier nil), and the run is refused before loading.
func (s TargetSuite) queries(t *testing.T, tablePrefix string) {
	tg, prep := s.Target(t)
	path := filepath.Join(t.TempDir(), "cpu.ilp")
	st, err := gen.Generate(context.Background(), gen.Config{UseCase: "cpu-only", Format: format.ILP, Seed: 38, Scale: 10,
		Start: time.Date(2016, 1, 4, 0, 0, 0, 0, time.UTC), End: time.Date(2016, 1, 4, 1, 0, 0, 0, time.UTC), File: path, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	cfg := FaultConfig(path, 300, 2)
	cfg.TablePrefix = tablePrefix
	cfg.Pace.Rate = float64(st.Rows) // about a second
	cfg.QueryRate, cfg.QueryWorkers = 40, 2
	prep.DropDB = true // checks need tables emptied first
	r := s.load(t, tg, prep, cfg)
	if tg.Hooks().NewQuerier == nil {
		if r.Err == nil {
			t.Fatalf("the target declares no querier, yet a load with --query-rate ran")
		}
		t.Logf("no querier declared; the load was refused: %v", r.Err)
		return
	}
	r.Exact(t, st.Rows)
	q := ReadResults(t, r.Results).Queries
	switch {
	case q == nil:
		t.Fatalf("a load with --query-rate without queries in its results")
	case !q.Checked:
		t.Errorf("answers not checked: %s", q.Note)
	case q.All.Wrong > 0 || q.All.Errors > 0:
		t.Errorf("%d wrong answers, %d errors: %q %q", q.All.Wrong, q.All.Errors, q.Wrong, q.Errors)
	case q.All.Checked == 0:
		t.Errorf("no answer checked: %+v", q.All)
	}
	for _, ty := range q.Types {
		if ty.Count == 0 && ty.Unsupported == 0 {
			t.Errorf("query type %s: never answered", ty.Name)
		}
	}
}

// csvTimes loads CSV of one table whose timestamps are RFC 3339 text with
// and without an offset, each verified by content: the same instants in
// two spellings.
func (s TargetSuite) csvTimes(t *testing.T, table string) {
	tg, prep := s.Target(t)
	if err := runner.Accepts(tg, format.CSV); err != nil {
		t.Skipf("the target takes no CSV: %v", err)
	}
	const rows = 300
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	east := time.FixedZone("", 2*3600)
	for _, c := range []struct {
		name  string
		unit  time.Duration
		spell func(tm time.Time) string
	}{
		{"utc", 0, func(tm time.Time) string { return tm.Format(time.RFC3339Nano) }},
		{"offset", 0, func(tm time.Time) string { return tm.In(east).Format(time.RFC3339Nano) }},
		// TODO(issue 43): epoch milliseconds (--time-unit ms): load_timescale
		// makes a bigint time column that create_hypertable refuses.
		// {"epoch_ms", time.Millisecond, func(tm time.Time) string { return fmt.Sprint(tm.UnixMilli()) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			name := table + "_" + c.name
			var b strings.Builder
			b.WriteString("time,host,v\n")
			for i := 0; i < rows; i++ {
				fmt.Fprintf(&b, "%s,h%d,%d.5\n", c.spell(base.Add(time.Duration(i)*time.Second)), i%10, i)
			}
			cfg := FaultConfig(tempFile(t, name+".csv", b.String()), 100, 2)
			cfg.Format, cfg.Table, cfg.VerifyContent = format.CSV, name, true
			cfg.Mapping.TimeUnit = c.unit
			r := s.load(t, tg, prep, cfg)
			r.Exact(t, rows)
			if n, keys := s.Rows(t, tg, name); n != rows || keys != rows {
				t.Errorf("the database holds %d rows, %d distinct, want %d", n, keys, rows)
			}
			res := ReadResults(t, r.Results)
			if _, err := tg.Content(context.Background(), nil); errors.Is(err, errors.ErrUnsupported) {
				return // verified by count: the instants are not read back
			}
			if len(res.Verify.Content) != 1 {
				t.Fatalf("content checks %+v (%s)", res.Verify.Content, res.Verify.Note)
			}
			cc := res.Verify.Content[0]
			if cc.MinTime != base.UnixNano() || cc.MaxTime != base.Add((rows-1)*time.Second).UnixNano() {
				t.Errorf("time range read %d..%d, want %d..%d", cc.MinTime, cc.MaxTime, base.UnixNano(), base.Add((rows-1)*time.Second).UnixNano())
			}
		})
	}
}
