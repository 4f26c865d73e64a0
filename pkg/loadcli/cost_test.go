package loadcli

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/runner"
)

func TestCostFlags(t *testing.T) {
	path := writeILP(t)
	var calls int
	var cfg runner.Config
	err := Run(context.Background(), spec(&calls, &cfg), []string{"load_test", "--file", path, "--do-load=false",
		"--server-pid", "4321", "--server-data-dir", "/srv/db", "--footprint-settle", "15s"}, nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := runner.CostConfig{ServerPID: 4321, ServerDataDir: "/srv/db", FootprintSettle: 15 * time.Second}
	if cfg.Cost != want {
		t.Errorf("cost config %+v, want %+v", cfg.Cost, want)
	}
	for _, bad := range [][]string{{"--server-pid", "-1"}, {"--footprint-settle", "-1s"}} {
		err := Run(context.Background(), spec(&calls, nil), append([]string{"load_test", "--file", path, "--do-load=false"}, bad...), nil, io.Discard)
		if err == nil || !strings.Contains(err.Error(), bad[0]+" must not be negative") {
			t.Errorf("%v: %v", bad, err)
		}
	}
}
