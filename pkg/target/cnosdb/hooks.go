package cnosdb

import "github.com/tsload/tsload/pkg/load"

// Hooks declares the target's optional behaviours (load.Hooks).
func (t *Target) Hooks() load.Hooks {
	return load.Hooks{
		Overwrites:   t.Overwrites(),
		Catalog:      t.Catalog,
		LineUnit:     t.unit,
		FlushStorage: t.FlushStorage,
		NewQuerier:   t.NewQuerier,
	}
}
