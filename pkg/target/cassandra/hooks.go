package cassandra

import (
	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/tsload/tsload/pkg/load"
)

// Hooks declares the target's optional behaviours (load.Hooks).
func (t *Target) Hooks() load.Hooks {
	// Overwrites: an INSERT is an upsert (a row of the same series and
	// time replaces the one held). NewQuerier: what CQL can say of a
	// query (query.go). AcksNotVisible: a read at the writes' consistency
	// may miss an acknowledged row unless the replicas a write reached
	// and those a read asks always overlap.
	return load.Hooks{Overwrites: true, NewQuerier: t.NewQuerier, AcksNotVisible: !t.readsSeeWrites()}
}

// readsSeeWrites reports whether a read at the consistency the writes use
// asks at least one replica every acknowledged write reached: W + R > RF
// with W = R, for the replication factor of the keyspace Prepare creates.
func (t *Target) readsSeeWrites() bool {
	rf, n := t.cfg.ReplicationFactor, 0
	switch t.cons {
	case gocql.One, gocql.LocalOne:
		n = 1
	case gocql.Two:
		n = 2
	case gocql.Three:
		n = 3
	case gocql.Quorum, gocql.LocalQuorum, gocql.EachQuorum:
		n = rf/2 + 1
	case gocql.All:
		n = rf
	}
	return 2*n > rf
}
