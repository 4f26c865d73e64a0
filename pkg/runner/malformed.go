package runner

import (
	"sync"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/split"
)

// With deferred checks (split.Checker on the workers) two workers may each
// find a malformed record, and the first to say so stopped the run: which
// one was named depended on which worker was quicker, not on where the
// records are. Users fix the first bad line first, so the run names the
// malformed record of the earliest batch: each malformed batch is noted
// with its sequence number, and once the run stops, the batches cut before
// the one that stopped it are still checked (they are in memory, in the
// queues or taken but not started) before they are given back.
type firstMalformed struct {
	mu  sync.Mutex
	seq int64 // the batch of err
	err error
}

// note keeps err when it is a malformed record of a batch earlier than the
// one kept so far.
func (f *firstMalformed) note(seq int64, err error) {
	if !split.IsMalformed(err) {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err == nil || seq < f.seq {
		f.seq, f.err = seq, err
	}
}

// before reports whether a malformed record was found in a batch after seq
// (so batch seq may hold an earlier one).
func (f *firstMalformed) before(seq int64) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err != nil && seq < f.seq
}

// pick returns the earliest malformed record in place of err when err
// reports a malformed record.
func (f *firstMalformed) pick(err error) error {
	if !split.IsMalformed(err) {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return f.err
	}
	return err
}

// checkAbandoned checks an unchecked batch the stopping run will not write,
// when a later batch held a malformed record, so that an earlier one is
// named.
func (r *run) checkAbandoned(chk *split.Checker, b *load.Batch) {
	if !b.Unchecked || r.cfg.SkipInvalid || !r.bad.before(b.Seq) {
		return
	}
	_, err := chk.Check(b, false)
	r.bad.note(b.Seq, err)
}

// drainAbandoned checks (checkAbandoned) and gives back the batches left in
// q once the run stopped. It does not wait: every batch cut before the one
// that stopped the run is in a queue already.
func (r *run) drainAbandoned(chk *split.Checker, q, free chan *job) {
	for {
		select {
		case j, ok := <-q:
			if !ok {
				return
			}
			r.checkAbandoned(chk, &j.Batch)
			j.Release()
			free <- j
		default:
			return
		}
	}
}

// recordProblems is what the run keeps of the records it could not load: the
// earliest malformed one (it ends the run) and the errors file
// (Config.ErrorsFile, nil when not asked) where skipped and refused ones
// are written.
type recordProblems struct {
	firstMalformed
	file *errorsFile
}
