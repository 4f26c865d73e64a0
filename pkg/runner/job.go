package runner

import (
	"time"

	"github.com/tsload/tsload/pkg/load"
)

// job is one batch of the free-list with what the run keeps of it while it
// is out: its rewrites' buffers and its due time. The state of a batch
// travels with it, reused batch after batch, so no concern keeps a table
// keyed by batch behind a lock of its own.
type job struct {
	load.Batch
	scratch [maxRewrites]scratch // the rewrites' buffers, by the rewrite's place in the run's list
	due     time.Time            // a paced run: when the batch fell due (pkg/pace)
	worker  int                  // the worker that took it
}

// scratch is the memory one rewrite keeps per job: a rewritten batch's
// bytes and table counts point into it until the batch is put back.
type scratch struct {
	data   []byte
	tables []load.TableRows
}

// An observer watches batches go by on the workers; a nil func is an event
// it does not watch. taken: a worker took the batch, before its checks;
// sending: checked and rewritten, about to be written (the first attempt);
// acked: a write was acknowledged (lat: the send's latency); unwritten:
// the server answered the batch's one attempt that nothing of it was
// written (load.NotWritten); done: the batch is given back, err nil when it
// was written.
type observer struct {
	name      string
	taken     func(j *job)
	sending   func(j *job)
	acked     func(j *job, ack load.Ack, lat time.Duration)
	unwritten func(j *job)
	done      func(j *job, err error)
}

// A batchWatcher is a concern beside the engine that watches the batches
// through their load.Batch alone (pkg/queryload): it knows no job.
type batchWatcher interface {
	Acked(b *load.Batch, ack load.Ack) // a write of b was acknowledged
	Done(b *load.Batch, err error)     // b is given back: err nil when written
}

// watching is the observer that tells w.
func watching(name string, w batchWatcher) observer {
	return observer{name: name,
		acked: func(j *job, ack load.Ack, _ time.Duration) { w.Acked(&j.Batch, ack) },
		done:  func(j *job, err error) { w.Done(&j.Batch, err) }}
}

// observers are the run's observers by event, in the order of the list.
type observers struct {
	taken     []func(j *job)
	sending   []func(j *job)
	acked     []func(j *job, ack load.Ack, lat time.Duration)
	unwritten []func(j *job)
	done      []func(j *job, err error)
}

// batchObservers is the ordered list of what watches the run's batches,
// built once when the run starts; a concern the run does not have is left
// out. The order is that of the acknowledgement's consequences: the pace
// (latency from due), the journal (the batch is settled), the queries
// (their watermark), the errors file (the refused rows).
func (r *run) batchObservers() observers {
	var list []observer
	if r.pace != nil {
		list = append(list, observer{name: "pace (pkg/pace)",
			taken: func(j *job) { r.pace.Taken(j.Rows) },
			acked: func(j *job, _ load.Ack, lat time.Duration) { r.pace.Acked(j.worker, j.due, lat) }})
	}
	if r.jr != nil {
		list = append(list, observer{name: "journal (resume.go)",
			sending:   func(j *job) { r.jr.Sending(&j.Batch) },
			acked:     func(j *job, ack load.Ack, _ time.Duration) { r.jr.Acked(&j.Batch, ack) },
			unwritten: func(j *job) { r.jr.NotWritten(&j.Batch) }})
	}
	if r.queries != nil {
		list = append(list, watching("queries' watermark (pkg/queryload)", r.queries))
	}
	list = append(list, observer{name: "refused rows (errors.go)",
		acked: func(j *job, ack load.Ack, _ time.Duration) { r.onRefused(&j.Batch, ack) }})
	var o observers
	for _, ob := range list {
		if ob.taken != nil {
			o.taken = append(o.taken, ob.taken)
		}
		if ob.sending != nil {
			o.sending = append(o.sending, ob.sending)
		}
		if ob.acked != nil {
			o.acked = append(o.acked, ob.acked)
		}
		if ob.unwritten != nil {
			o.unwritten = append(o.unwritten, ob.unwritten)
		}
		if ob.done != nil {
			o.done = append(o.done, ob.done)
		}
	}
	return o
}

// batchRoutine are what each batch goes through on a worker, each list
// built once when the writers start: its rewrites in order (rewrite.go),
// and the observers of its events.
type batchRoutine struct {
	rewrites []rewrite
	observers
}

// started reports whether the writers started (the load's clock runs).
func (r *run) started() bool { return !r.start.IsZero() }
