package questdb

import "github.com/tsload/tsload/pkg/load"

var _ load.Target = (*Target)(nil)

// Hooks declares the target's optional behaviours (load.Hooks).
func (t *Target) Hooks() load.Hooks {
	return load.Hooks{
		Await:      t.Await,
		Overwrites: t.Overwrites(),
		FoldName:   t.FoldName,
		Catalog:    t.Catalog,
		Drops:      t.Drops,
		Report:     t.Report,
		NewQuerier: t.NewQuerier,
		// ILP/TCP acknowledges nothing: the server commits what it took in
		// on a timer of its own.
		AcksNotVisible: t.cfg.Transport == TCP,
	}
}
