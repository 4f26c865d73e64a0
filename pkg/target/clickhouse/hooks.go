package clickhouse

import "github.com/tsload/tsload/pkg/load"

var _ load.Target = (*Target)(nil)

// Hooks declares the target's optional behaviours (load.Hooks).
func (t *Target) Hooks() load.Hooks {
	return load.Hooks{
		Overwrites: t.cfg.Dedup,
		Catalog:    t.Catalog,
		NewQuerier: t.NewQuerier,
	}
}
