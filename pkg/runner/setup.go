package runner

import (
	"github.com/tsload/tsload/pkg/redact"
	"github.com/tsload/tsload/pkg/results"
)

// redactFlags returns a copy of flags with every secret masked: a secret
// flag's text reads redact.Mask (an empty one stays empty, so the results
// show it was not set), credentials inside other text are masked
// (redact.Value); numbers and booleans are kept as they are.
func redactFlags(flags map[string]any) map[string]any {
	out := make(map[string]any, len(flags))
	for k, v := range flags {
		switch x := v.(type) {
		case string:
			if redact.IsSecret(k) && x != "" {
				x = redact.Mask
			} else {
				x = redact.Value(x)
			}
			out[k] = x
		case []string:
			y := make([]string, len(x))
			for i, s := range x {
				if redact.IsSecret(k) && s != "" {
					y[i] = redact.Mask
				} else {
					y[i] = redact.Value(s)
				}
			}
			out[k] = y
		default:
			out[k] = v
		}
	}
	return out
}

// describe records where the load went and what the target set up
// (load.Target.Describe) in the results; a setting the target applied replaces
// the recorded flag of that name. A target that lists no tables gets the
// tables the rows were acknowledged in.
func (r *run) describe(tables map[string]int64) {
	if r.target == nil || !r.cfg.DoLoad {
		return
	}
	d := r.target.Describe()
	if d == nil {
		return
	}
	s := *d
	if len(s.Tables) == 0 {
		for _, n := range sortedKeys(tables) {
			s.Tables = append(s.Tables, results.TableSetup{Name: n})
		}
	}
	s.URL = redact.Value(s.URL)
	r.res.Setup = &s
	for k, v := range s.Settings {
		if _, ok := r.res.Flags[k]; ok {
			r.res.Flags[k] = v
		}
	}
}
