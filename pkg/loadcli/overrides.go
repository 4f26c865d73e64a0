package loadcli

import (
	"time"

	"github.com/tsload/tsload/pkg/runner"
)

// Overrides are what a loader's own flags decide about the common
// settings: Spec.New returns them (a zero field changes nothing), and
// apply sets them in the runner's Config and in the flags the results
// record, in this one place, so that the results say what was done.
type Overrides struct {
	// BatchSize and RetryTimeout given another way than their flags
	// (load_questdb's --conf: auto_flush_rows, retry_timeout).
	BatchSize    int
	RetryTimeout time.Duration
	// ServerPID is the server's process when the loader knows it (an
	// embedded database: the loader's own), unless --server-pid names one.
	ServerPID int
	// SerializationPass asks the runner for its read-only pass first.
	SerializationPass bool
	// Flags are target flags' values as used, recorded instead of as
	// given; a nil value drops a flag that does not apply.
	Flags map[string]any
}

// apply sets o in cfg and in the flags it records.
func (o Overrides) apply(cfg *runner.Config) {
	record := func(flag string, v any) {
		if cfg.Flags == nil {
			return
		}
		if v == nil {
			delete(cfg.Flags, flag)
			return
		}
		cfg.Flags[flag] = v
	}
	if o.BatchSize > 0 {
		cfg.BatchSize = o.BatchSize
		record(FlagBatchSize, o.BatchSize)
	}
	if o.RetryTimeout > 0 {
		cfg.RetryTimeout = o.RetryTimeout
		record(FlagRetryTimeout, o.RetryTimeout.String())
	}
	if o.ServerPID > 0 && cfg.Cost.ServerPID == 0 {
		cfg.Cost.ServerPID = o.ServerPID
	}
	cfg.SerializationPass = cfg.SerializationPass || o.SerializationPass
	for flag, v := range o.Flags {
		record(flag, v)
	}
}
