package influx

import "github.com/tsload/tsload/pkg/load"

// Hooks declares the target's optional behaviours (load.Hooks).
func (t *Target) Hooks() load.Hooks {
	return load.Hooks{
		Await:      t.Await,
		Overwrites: t.Overwrites(),
		LineUnit:   t.unit,
		NewQuerier: t.NewQuerier,
		// InfluxDB 3 with no_sync acknowledges before its write-ahead log
		// is persisted, and rows become queryable only after.
		AcksNotVisible: t.cfg.NoSync,
	}
}
