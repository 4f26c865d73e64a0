package queryload_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/pace"
	"github.com/tsload/tsload/pkg/runner"
)

// TestQueriesAcksNotVisible: on a target whose acknowledged rows become
// visible some time later, and which says only that acknowledged does not
// mean visible (load.Hooks.AcksNotVisible), every answer checked is right
// and every type is checked: the rows are counted visible first. The same
// target that does not say so gets wrong answers (the race, when it shows).
// A target that says so only once Prepare ran (InfluxDB, when it has
// learned that its server is InfluxDB 3) is heard: the rows are counted.
func TestQueriesAcksNotVisible(t *testing.T) {
	for _, name := range []string{"said", "said after Prepare", "unsaid"} {
		said := name != "unsaid"
		t.Run(name, func(t *testing.T) {
			path, rows := generated(t, "cpu-only", 4, 3*time.Hour)
			f := newQueryFake()
			f.lag, f.unseen, f.unsaid, f.late = 150*time.Millisecond, true, !said, name == "said after Prepare"
			cfg := queryConfig(path)
			cfg.Pace = pace.Pace{Rate: 4000}
			cfg.QueryRate = 200
			res, err := runner.Run(context.Background(), cfg, f)
			if !said {
				switch {
				case err == nil:
					t.Skip("the race did not show this time") // no test fails on timing
				case !strings.Contains(err.Error(), "wrong query answers"):
					t.Fatalf("undeclared lag: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v\n%s", err, cfg.Stderr)
			}
			if res.Rows != rows || !res.Queries.Checked || res.Queries.Note != "" {
				t.Fatalf("rows %d of %d, queries %+v", res.Rows, rows, res.Queries)
			}
			for _, qt := range res.Queries.Types {
				if qt.Checked == 0 || qt.Wrong != 0 {
					t.Errorf("%+v", qt)
				}
			}
			if all := res.Queries.All; all.Checked <= int64(len(res.Queries.Types)) {
				t.Errorf("only the final round was checked: %+v\n%s", all, cfg.Stderr)
			}
			if n := f.opened.Load(); n != 4 { // 2 workers, the final round's and the counting's
				t.Errorf("%d queriers opened, want 4 (the rows not counted?)", n)
			}
			t.Logf("%d of %d answers checked", res.Queries.All.Checked, res.Queries.All.Count)
		})
	}
}
