package timescale

import "github.com/tsload/tsload/pkg/load"

var _ load.Target = (*Target)(nil)

// Hooks declares the target's optional behaviours (load.Hooks).
func (t *Target) Hooks() load.Hooks {
	return load.Hooks{
		Finish:     t.Finish,
		Report:     t.Report,
		Catalog:    t.Catalog,
		Settle:     t.Settle,
		NewQuerier: t.NewQuerier,
		OnTicket:   func(note func(*load.Batch, string) error) { t.onTicket = note },
		OnDurable:  func(durable func(*load.Batch)) { t.onDurable = durable },
	}
}
