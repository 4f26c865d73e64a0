package runner

import "github.com/tsload/tsload/pkg/load"

// A rewrite changes a batch in place on a worker, before it is written,
// and returns what puts the batch back as the splitter made it (the
// splitter's memory is the batch's until it is released, and a batch may be
// written again: a retry, a resumed load's re-send).
type rewrite struct {
	name  string
	apply func(b *load.Batch, s *scratch) (undo func(), err error) // s: the job's memory for this rewrite
}

// maxRewrites bounds the list (workOne keeps the undos on its stack).
const maxRewrites = 3

// batchRewrites is the ordered list of the run's rewrites, built once in
// Run; a step the run does not need is left out. The order matters: CSV
// becomes lines before the prefix renames the lines' tables, and the loop
// shifts the timestamps of the lines as they will be written. Undone in
// reverse order.
func (r *run) batchRewrites() []rewrite {
	var steps []rewrite
	if r.own != nil {
		steps = append(steps, rewrite{"CSV as lines (tabular.go)", func(b *load.Batch, s *scratch) (func(), error) { return r.own.Apply(b, &s.data) }})
	}
	if r.prefix != nil {
		steps = append(steps, rewrite{"table prefix (prefix.go)", func(b *load.Batch, s *scratch) (func(), error) { return r.prefix.apply(b, s), nil }})
	}
	if r.loop != nil {
		steps = append(steps, rewrite{"loop passes' shifted timestamps (loop.go)", r.loop.apply})
	}
	return steps
}

// rewrite applies the run's rewrites to b in order, up to the first that
// fails, keeping what undoes each in undos; it returns how many to undo.
func (r *run) rewrite(j *job, undos *[maxRewrites]func()) (n int, err error) {
	for i, s := range r.steps.rewrites {
		undo, err := s.apply(&j.Batch, &j.scratch[i])
		if undo != nil {
			undos[n] = undo
			n++
		}
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// unrewrite undoes the first n rewrites, last first.
func unrewrite(undos *[maxRewrites]func(), n int) {
	for i := n - 1; i >= 0; i-- {
		undos[i]()
	}
}
