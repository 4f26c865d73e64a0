package victoriametrics

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/internal/querytest"
	"github.com/tsload/tsload/internal/vmtest"
)

// vmUnsupported are querytest.More's queries with a threshold and an
// aggregate that MetricsQL cannot state exactly (query.go): on another
// field, Min above, Last.
var vmUnsupported = []string{"max-filter-by-host-10m", "min-filter-same-field", "count-filter-by-region",
	"last-filter", "count-filter-iot", "last-filter-iot"}

// TestQuery loads querytest's cpu-only and iot files into the real
// VictoriaMetrics and checks every answer against query.Eval's.
func TestQuery(t *testing.T) {
	base, db := vmtest.RealDB(t)
	querytest.Suite{Loader: "load_victoriametrics", Upstream: base, New: suiteTarget(db)}.Run(t, "q")
}

// TestQueryMore checks querytest.More's queries: those with a threshold
// and an aggregate must be refused as unsupported, the rest answered.
func TestQueryMore(t *testing.T) {
	base, db := vmtest.RealDB(t)
	for _, uc := range []string{"cpu-only", "iot"} {
		t.Run(uc, func(t *testing.T) {
			p := "qm_" + strings.ReplaceAll(uc, "-", "") + "_"
			path, rows := querytest.Generate(t, uc)
			tg, prep := suiteTarget(db)(t, strings.TrimPrefix(base, "http://"), 30*time.Second)
			defer tg.Close()
			cfg := loadtest.FaultConfig(path, 1000, 2)
			cfg.TablePrefix, cfg.Prepare, cfg.Loader, cfg.Target = p, prep, "load_victoriametrics", "victoriametrics"
			if r := loadtest.RunLoad(t, cfg, tg); r.Err != nil {
				t.Fatalf("load of %d rows: %v\n%s", rows, r.Err, r.Log)
			}
			points, err := querytest.Points(path, p)
			if err != nil {
				t.Fatal(err)
			}
			qr, err := tg.Hooks().NewQuerier(context.Background(), 1)
			if err != nil {
				t.Fatal(err)
			}
			defer qr.Close()
			for _, problem := range querytest.Check(context.Background(), qr, querytest.More(uc, p, points), points, vmUnsupported) {
				t.Error(problem)
			}
		})
	}
}
