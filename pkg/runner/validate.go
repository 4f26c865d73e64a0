package runner

import (
	"math"
	"time"

	"github.com/tsload/tsload/pkg/load"
)

// Defaults of settings that both the library and the commands' flags
// (pkg/loadcli) default: one value each. A zero Config field takes it.
const (
	// DefaultWorkers is the writers (Workers, --workers): parallel
	// connections to the database, each writing one batch at a time. Two
	// keep a server busy while one batch is in flight on the network.
	DefaultWorkers         = 2
	DefaultReportingPeriod = 10 * time.Second
	DefaultRetryTimeout    = 60 * time.Second
	DefaultGrace           = 5 * time.Second
)

// Validate reports the first of c's settings that is out of range, named
// as its field ({BatchSize}: a command renders its flag). It takes the
// settings as given, before Run's defaults: a zero BatchSize, Workers or
// ReportingPeriod is refused here, where Run would default it.
func (c *Config) Validate() error {
	switch {
	case c.BatchSize <= 0:
		return load.Settingf("{BatchSize} must be positive")
	case c.Workers <= 0:
		return load.Settingf("{Workers} must be positive")
	case c.Limit < 0:
		return load.Settingf("{Limit} must not be negative")
	case c.ReportingPeriod <= 0:
		return load.Settingf("{ReportingPeriod} must be positive")
	case c.RetryTimeout < 0:
		return load.Settingf("{RetryTimeout} must not be negative")
	case c.QueryRate < 0 || math.IsNaN(c.QueryRate) || math.IsInf(c.QueryRate, 0):
		return load.Settingf("{QueryRate} must be a finite number of queries per second, 0 for none")
	case c.Grace < 0:
		return load.Settingf("{Grace} must not be negative")
	case c.QueryWorkers < 0:
		return load.Settingf("{QueryWorkers} must not be negative")
	}
	return nil
}
