package influx

import "github.com/tsload/tsload/pkg/load"

// Hooks declares the target's optional behaviours (load.Hooks).
func (t *Target) Hooks() load.Hooks {
	return load.Hooks{
		Await:      t.Await,
		Overwrites: t.Overwrites(),
		LineUnit:   t.unit,
		NewQuerier: t.NewQuerier,
		// InfluxDB 3 acknowledges rows before they are all queryable: with
		// no_sync before its write-ahead log is persisted, and 3.6.0
		// counted 2,400 of 2,880 rows written with sync right after a
		// load (Await). Until Prepare learns the API, only no_sync says so.
		AcksNotVisible: t.cfg.NoSync || t.isV3(),
	}
}

// isV3 reports whether the server is known to be InfluxDB 3 (its API
// given or detected).
func (t *Target) isV3() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.api != nil && t.api.name() == APIv3
}
