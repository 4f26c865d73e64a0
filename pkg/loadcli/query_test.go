package loadcli

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/tsload/tsload/pkg/queryload"
	"github.com/tsload/tsload/pkg/runner"
)

func TestQueryFlags(t *testing.T) {
	path := writeILP(t)
	var calls int
	var cfg runner.Config
	args := []string{"load_test", "--file", path, "--do-load=false", "--query-rate", "2.5", "--query-workers", "3", "--query-mix", "lastpoint=2,high-cpu-1"}
	// The runner refuses a query load without a database, with the flag's name.
	if err := Run(context.Background(), spec(&calls, &cfg), args, nil, io.Discard); err == nil || !strings.Contains(err.Error(), "--query-rate queries a load") {
		t.Fatal(err)
	}
	if cfg.QueryRate != 2.5 || cfg.QueryWorkers != 3 || cfg.QueryMix.String() != "lastpoint=2,high-cpu-1=1" {
		t.Errorf("query rate %v, workers %d, mix %s", cfg.QueryRate, cfg.QueryWorkers, cfg.QueryMix)
	}
	cfg = runner.Config{}
	if err := Run(context.Background(), spec(&calls, &cfg), []string{"load_test", "--file", path, "--do-load=false"}, nil, io.Discard); err != nil {
		t.Fatal(err)
	}
	if cfg.QueryRate != 0 || cfg.QueryWorkers != queryload.DefaultWorkers || cfg.QueryMix != nil {
		t.Errorf("defaults: query rate %v, workers %d, mix %v", cfg.QueryRate, cfg.QueryWorkers, cfg.QueryMix)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--query-rate", "-1"}, "--query-rate must be a finite number"},
		{[]string{"--query-rate", "1", "--query-workers", "-2"}, "--query-workers must not be negative"},
		{[]string{"--query-rate", "1", "--query-mix", "lastpoint=x"}, "the weight \"x\""},
	} {
		err := Run(context.Background(), spec(&calls, nil), append([]string{"load_test", "--file", path, "--do-load=false"}, tc.args...), nil, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want %q", tc.args, err, tc.want)
		}
	}
}
