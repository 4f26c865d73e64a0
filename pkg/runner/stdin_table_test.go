package runner

import (
	"bytes"
	"context"
	"io"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/gen"
	"github.com/tsload/tsload/pkg/usecase"
)

// TestStdinSingleTableNeedsNoTable is `generate_data --format pgcopy|csv |
// load_x` without --table: the pgcopy stream declares its table in the
// header's tsload chunk, the CSV header is the cpu table's columns.
func TestStdinSingleTableNeedsNoTable(t *testing.T) {
	for _, f := range []format.Format{format.PGCopy, format.CSV} {
		t.Run(f.String(), func(t *testing.T) {
			var data bytes.Buffer
			st, err := gen.Generate(context.Background(), gen.Config{UseCase: usecase.CPUOnly, Format: f, Seed: 1, Scale: 3, Workers: 1,
				Start: gen.DefaultStart, End: gen.DefaultStart.Add(time.Hour), Stdout: &data, Stderr: io.Discard})
			if err != nil {
				t.Fatal(err)
			}
			fk := newFake()
			cfg := baseConfig()
			cfg.Stdin = &data
			cfg.Workers = 2
			res, err := Run(context.Background(), cfg, fk)
			if err != nil {
				t.Fatal(err)
			}
			if len(fk.prepared.Tables) != 1 || fk.prepared.Tables[0] != usecase.LookupTable("cpu") {
				t.Fatalf("prepared tables %v", fk.prepared.Tables)
			}
			if res.Rows != st.Rows || res.Verify == nil || !res.Verify.OK || res.Verify.Actual["cpu"] != st.Rows {
				t.Fatalf("rows %d of %d, verify %+v", res.Rows, st.Rows, res.Verify)
			}
		})
	}
}
