package cassandra

import "github.com/tsload/tsload/pkg/load"

// Hooks declares the target's optional behaviours (load.Hooks).
func (t *Target) Hooks() load.Hooks {
	// Overwrites: an INSERT is an upsert (a row of the same series and
	// time replaces the one held). NewQuerier: what CQL can say of a
	// query (query.go).
	return load.Hooks{Overwrites: true, NewQuerier: t.NewQuerier}
}
