package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/results"
)

// TestRefusedFormatPreparesNothing: an input the target cannot load is
// refused before Prepare (which may drop the database), whether the format
// was detected or given, and whichever input it is.
func TestRefusedFormatPreparesNothing(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "cpu.csv")
	os.WriteFile(csv, []byte("#tsload-csv v1\n#table cpu time:timestamptz,hostname:text,usage_user:float8\n#data cpu\n2016-01-01T00:00:00Z,a,1\n"), 0o644)
	ilp, _ := ilpInput(t, 10)
	for _, c := range []struct {
		inputs []string
		refuse format.Format
		bad    string
	}{
		{[]string{csv}, format.CSV, csv},      // the fake takes no line protocol either (refuseILP)
		{[]string{csv, ilp}, format.ILP, ilp}, // the second input
	} {
		inputs := c.inputs
		f := newFake()
		f.refuse, f.refuseILP = c.refuse, true
		cfg := baseConfig(inputs...)
		cfg.Prepare = load.PrepareOptions{DBName: "bench", DropDB: true}
		res, err := Run(context.Background(), cfg, f)
		if err == nil || !strings.Contains(err.Error(), c.bad+": "+c.refuse.String()+" input: the fake takes no") {
			t.Fatalf("%v: err = %v", inputs, err)
		}
		if f.prepared != nil || f.writers.Load() != 0 || res.Status != results.StatusFailed || res.Rows != 0 {
			t.Fatalf("%v: prepared %v, %d writers, results %+v", inputs, f.prepared, f.writers.Load(), res)
		}
	}
}
