package runner

import (
	"context"
	"fmt"
	"strings"

	"github.com/tsload/tsload/pkg/fingerprint"
	"github.com/tsload/tsload/pkg/results"
	"github.com/tsload/tsload/pkg/verify"
)

// newContent sets up content verification (Config.VerifyContent,
// verify.Content) for r: nil when not asked; it says loudly when it falls
// back to counts.
func (r *run) newContent() *verify.Content {
	cfg := &r.cfg
	if !cfg.VerifyContent || !cfg.Verify {
		return nil
	}
	c := verify.NewContent(cfg.Workers, r.hooks.Overwrites && cfg.DoLoad)
	c.Verifier, c.Policy, c.Stderr, c.Query = r.verifier, r.retryPolicy(), cfg.Stderr, r.query
	c.FoldName, c.Await = r.hooks.FoldName, r.hooks.Await
	if !cfg.DoLoad {
		// Nothing to compare with: the fingerprint is read (what it costs,
		// and the dataset file's check) and summarised.
		return c
	}
	switch {
	case !verify.CanContent(r.target):
		c.Fallback = fmt.Sprintf("the %s target cannot compute content fingerprints", cfg.Target)
	case cfg.Resume != nil:
		c.Fallback = "a resumed load: the rows the earlier run sent were not read by this one"
	case cfg.Loop:
		c.Fallback = "a looped load: each pass's timestamps are shifted after reading"
	}
	if c.Fallback != "" {
		fmt.Fprintf(cfg.Stderr, "verify: content verification is not possible (%s): verifying row counts only\n", c.Fallback)
		return c
	}
	c.Target = r.target
	r.verifier.OnBefore = c.FingerprintBefore
	return c
}

// query is what the database is asked about table name (prefixed, as
// loaded): the fields and tags the run read, or else the table's schema.
func (r *run) query(name string, read *fingerprint.Read) fingerprint.Query {
	plain := strings.TrimPrefix(name, r.cfg.TablePrefix)
	tb := r.cfg.Lookup(plain)
	for _, t := range r.in.tables {
		if t.Name == plain {
			tb = t
		}
	}
	return verify.QueryFor(name, tb, r.cfg.Mapping.TimeColumn, read)
}

// verifyAll verifies the load: content fingerprints when asked for and
// possible, the row counts otherwise.
func (r *run) verifyAll(ctx context.Context, tot totals) (*results.Verification, error) {
	if c := r.verifier.Content; c != nil {
		return c.Verify(ctx, tot.acked(), r.cfg.TablePrefix, r.checkDataset)
	}
	v, err := r.verifier.Verify(ctx, tot.acked())
	if v != nil {
		v.Mode = "count"
	}
	return v, err
}

// writeRead prints what the workers fingerprinted of a run without a
// database (--do-load=false with content verification).
func (r *run) writeRead() error {
	if r.verifier.Content == nil || r.cfg.DoLoad {
		return nil
	}
	if a := r.verifier.Content.WriteRead(r.cfg.TablePrefix); a != nil {
		return r.checkDataset(a)
	}
	return nil
}

// checkDataset compares what the workers read of a single whole input
// with the fingerprint its dataset description carries.
func (r *run) checkDataset(a *fingerprint.Acc) error {
	if len(r.cfg.Inputs) != 1 || r.cfg.Limit > 0 || r.hooks.LineUnit > 1 {
		return nil
	}
	return verify.CheckDataset(r.cfg.Inputs[0], a, r.cfg.Stderr)
}
