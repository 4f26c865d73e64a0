package influx

import (
	"context"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/internal/querytest"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// TestV3Queries checks the InfluxDB 3 querier's answers against
// query.Eval on the real server: querytest.Suite's load and check, with
// the querier made directly (Hooks.NewQuerier picks it on InfluxDB 3).
func TestV3Queries(t *testing.T) {
	_, at := v3Real(t)
	for _, uc := range []string{"cpu-only", "iot"} {
		t.Run(uc, func(t *testing.T) {
			prefix := "q_" + map[string]string{"cpu-only": "cpuonly", "iot": "iot"}[uc] + "_"
			path, rows := querytest.Generate(t, uc)
			tg, err := New(Config{Conn: httpwrite.Conn{URLs: []string{at.url}, RequestTimeout: 30 * time.Second}, Precision: "n", Token: at.token})
			if err != nil {
				t.Fatal(err)
			}
			defer tg.Close()
			cfg := loadtest.FaultConfig(path, 1000, 2)
			cfg.TablePrefix = prefix
			cfg.Prepare = load.PrepareOptions{DBName: at.db, CreateDB: true, DropDB: uc == "cpu-only"}
			cfg.Loader, cfg.Target = "load_influx", "influx"
			if r := loadtest.RunLoad(t, cfg, tg); r.Err != nil {
				t.Fatalf("load of %d rows: %v\n%s", rows, r.Err, r.Log)
			}
			points, err := querytest.Points(path, prefix)
			if err != nil {
				t.Fatal(err)
			}
			qr := tg.newQuerier(apiV3{}, 0)
			defer qr.Close()
			for _, problem := range querytest.Check(context.Background(), qr, append(querytest.Queries(uc, prefix, points), querytest.More(uc, prefix, points)...), points, nil) {
				t.Error(problem)
			}
		})
	}
}

// TestV3OddNames: a table prefix and name, tag names and values and a
// field name that need quoting are queried right on InfluxDB 3.
func TestV3OddNames(t *testing.T) {
	_, at := v3Real(t)
	tg, err := New(Config{Conn: httpwrite.Conn{URLs: []string{at.url}, RequestTimeout: 30 * time.Second}, Precision: "n", Token: at.token})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	v3 := &v3Only{Target: tg}
	querytest.CheckOdd(t, v3, "load_influx", load.PrepareOptions{DBName: at.db, CreateDB: true, DropDB: true})
}

// v3Only is the target with its InfluxDB 3 querier as Hooks.NewQuerier.
type v3Only struct{ *Target }

func (v *v3Only) Hooks() load.Hooks {
	h := v.Target.Hooks()
	h.NewQuerier = func(context.Context, int) (load.Querier, error) { return v.newQuerier(apiV3{}, 0), nil }
	return h
}
