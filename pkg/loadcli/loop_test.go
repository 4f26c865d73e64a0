package loadcli

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/runner"
)

func TestLoopFlags(t *testing.T) {
	path := writeILP(t)
	var calls int
	var cfg runner.Config
	if err := Run(context.Background(), spec(&calls, &cfg), []string{"load_test", "--file", path, "--do-load=false", "--loop", "--duration", "90s", "--limit", "2468"}, nil, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !cfg.Loop || cfg.Duration != 90*time.Second {
		t.Errorf("loop %v, duration %s", cfg.Loop, cfg.Duration)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--loop"}, "--loop needs an end: --duration, --limit or --rate-steps with a MAX"},
		{[]string{"--loop", "--rate-steps", "1k,1k,1s"}, "--loop needs an end"},
		{[]string{"--duration", "-1s"}, "--duration must not be negative"},
	} {
		err := Run(context.Background(), spec(&calls, nil), append([]string{"load_test", "--file", path, "--do-load=false"}, tc.args...), nil, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want %q", tc.args, err, tc.want)
		}
	}
	err := Run(context.Background(), spec(&calls, nil), []string{"load_test", "--do-load=false", "--loop", "--duration", "1s"}, strings.NewReader("cpu v=1 1\n"), io.Discard)
	if err == nil || !strings.Contains(err.Error(), "--loop replays its input: give --file") {
		t.Errorf("stdin: %v", err)
	}
	// A loop ended by --limit: three passes of the file's 1234 rows.
	var stderr strings.Builder
	if err := Run(context.Background(), spec(&calls, nil), []string{"load_test", "--file", path, "--do-load=false", "--loop", "--limit", "3702"}, nil, &stderr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "loop: 3 passes, each shifted by 1000 ILP timestamp units") {
		t.Errorf("summary:\n%s", stderr.String())
	}
}
