package runner

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tsload/tsload/pkg/results"
	"github.com/tsload/tsload/pkg/split"
)

// continueHint says, after the summary of a load that stopped before its
// end, how to continue it: the exact --resume command when the load was
// journaled, or why it cannot be resumed (issue 43.9). A failed load is
// told only when it can be resumed (its cause may be fixed first); a
// verification that failed is not a stopped load.
func (r *run) continueHint() {
	res := r.res
	if !r.cfg.DoLoad || res.Status == results.StatusOK || res.Status == "" {
		return
	}
	if res.Verify != nil && !res.Verify.OK {
		return // everything was sent; the counts differ
	}
	if res.Status == results.StatusFailed && split.IsMalformed(r.err) {
		return // the input itself: a resume reads it again (and a fixed file is another input)
	}
	w := r.cfg.Stderr
	if r.jr != nil {
		path := r.cfg.ResultsFile
		if abs, err := filepath.Abs(path); err == nil {
			path = abs
		}
		lead := "to continue this load from where it stopped"
		if res.Status == results.StatusFailed {
			lead = "once the cause is fixed, continue this load from where it stopped with"
		}
		fmt.Fprintf(w, "%s: %s --resume %s%s\n", lead, r.cfg.Loader, shellQuote(path), r.secretsNote())
		return
	}
	if res.Status != results.StatusInterrupted {
		return
	}
	var why string
	switch {
	case len(r.cfg.Inputs) == 0:
		why = "it read stdin, which cannot be read again; load from files (--file) to be able to resume"
	case r.cfg.Loop:
		why = "a looped run's passes are not journaled"
	case r.cfg.ResultsFile == "":
		why = "it ran without --results-file, beside which a load keeps the journal of what was acknowledged; give --results-file to be able to resume"
	default:
		return
	}
	fmt.Fprintf(w, "this load cannot be resumed: %s\n", why)
}

// secretsNote names the flags the journal holds masked, which a resume
// needs again (unless they come from the environment).
func (r *run) secretsNote() string {
	var masked []string
	for k, v := range r.cfg.Flags {
		if fmt.Sprint(v) != fmt.Sprint(r.res.Flags[k]) {
			masked = append(masked, "--"+k)
		}
	}
	if len(masked) == 0 {
		return ""
	}
	sort.Strings(masked)
	return fmt.Sprintf(" (secrets are not kept: give %s again unless set in the environment)", strings.Join(masked, ", "))
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_./,:=+@%", c))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
