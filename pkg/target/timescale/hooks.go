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
		OnTicket: func(w load.Writer, note func(*load.Batch, string) error) {
			if w, ok := w.(*Writer); ok {
				w.OnTicket(note)
			}
		},
		OnDurable: func(w load.Writer, durable func(*load.Batch)) {
			if w, ok := w.(*Writer); ok {
				w.onDurable = durable
			}
		},
	}
}
