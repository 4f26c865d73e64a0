package runner

import (
	"bytes"
	"context"
	"testing"

	"github.com/tsload/tsload/internal/gentest"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/usecase"
)

// TestStdinSingleTableNeedsNoTable is `generate_data --format pgcopy|csv |
// load_x` without --table: the pgcopy stream declares its table in the
// header's tsload chunk, the CSV header is the cpu table's columns.
func TestStdinSingleTableNeedsNoTable(t *testing.T) {
	gentest.CPUHourEach(t, func(t *testing.T, _ format.Format, data []byte, rows int64) {
		fk := newFake()
		cfg := baseConfig()
		cfg.Stdin = bytes.NewReader(data)
		cfg.Workers = 2
		res, err := Run(context.Background(), cfg, fk)
		if err != nil {
			t.Fatal(err)
		}
		if len(fk.prepared.Tables) != 1 || fk.prepared.Tables[0] != usecase.LookupTable("cpu") {
			t.Fatalf("prepared tables %v", fk.prepared.Tables)
		}
		if res.Rows != rows || res.Verify == nil || !res.Verify.OK || res.Verify.Actual["cpu"] != rows {
			t.Fatalf("rows %d of %d, verify %+v", res.Rows, rows, res.Verify)
		}
	})
}
