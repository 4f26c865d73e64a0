package runner

import "github.com/tsload/tsload/pkg/queryload"

// queryLoad is the run's query load (pkg/queryload): one of the batches'
// observers (job.go), and asked for its figures each period and at the end.
type queryLoad = queryload.Load

// newQueryLoad is the query load of the run's Config; nil when it has none.
func (r *run) newQueryLoad() (*queryLoad, error) {
	cfg := &r.cfg
	return queryload.New(queryload.Config{Rate: cfg.QueryRate, Workers: cfg.QueryWorkers, Mix: cfg.QueryMix, Target: cfg.Target,
		Inputs: cfg.Inputs, DoLoad: cfg.DoLoad, TablePrefix: cfg.TablePrefix, HashWorkers: cfg.HashWorkers,
		Loop: cfg.Loop, Resumed: cfg.Resume != nil, DropDB: cfg.Prepare.DropDB, Stderr: cfg.Stderr}, r.hooks)
}
