package loadcli

import (
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/runner"
)

// TestOverridesApply: what a command's flags decide is set and recorded;
// a nil flag value drops a recorded flag; a --server-pid given stays.
func TestOverridesApply(t *testing.T) {
	cfg := runner.Config{BatchSize: 5000, RetryTimeout: time.Minute, Flags: map[string]any{FlagBatchSize: 5000, "tcp-addr": "x:9009", "dedup": true}}
	cfg.Cost.ServerPID = 42
	Overrides{BatchSize: 700, RetryTimeout: 3 * time.Second, ServerPID: 7, SerializationPass: true,
		Flags: map[string]any{"tcp-addr": nil, "dedup": false}}.apply(&cfg)
	if cfg.BatchSize != 700 || cfg.RetryTimeout != 3*time.Second || cfg.Cost.ServerPID != 42 || !cfg.SerializationPass {
		t.Errorf("config %+v", cfg)
	}
	want := map[string]any{FlagBatchSize: 700, FlagRetryTimeout: "3s", "dedup": false}
	if len(cfg.Flags) != len(want) {
		t.Errorf("recorded flags %v, want %v", cfg.Flags, want)
	}
	for k, v := range want {
		if cfg.Flags[k] != v {
			t.Errorf("recorded %s = %v, want %v", k, cfg.Flags[k], v)
		}
	}
	var zero runner.Config
	Overrides{ServerPID: 7}.apply(&zero) // no recorded flags: nothing to record
	if zero.Cost.ServerPID != 7 || zero.BatchSize != 0 {
		t.Errorf("zero config %+v", zero)
	}
}
