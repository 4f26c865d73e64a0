package runner

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/redact"
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
			s.Tables = append(s.Tables, load.TableSetup{Name: n})
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

// writeWhere prints where the load went: the server's address, database
// and tables, and the server's version.
func writeWhere(w io.Writer, target string, s *load.Setup, server load.Server) {
	if s == nil {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "into %s", target)
	if s.URL != "" {
		fmt.Fprintf(&b, " at %s", s.URL)
	}
	if s.API != "" {
		fmt.Fprintf(&b, " (%s)", s.API)
	}
	if s.Database != "" {
		fmt.Fprintf(&b, ", database %s", s.Database)
	}
	if len(s.Tables) > 0 {
		names := make([]string, len(s.Tables))
		for i, t := range s.Tables {
			names[i] = t.Name
		}
		sort.Strings(names)
		fmt.Fprintf(&b, ", tables %s", strings.Join(names, ", "))
	}
	switch {
	case server.Version != "":
		fmt.Fprintf(&b, "; server %s", server.Version)
	case server.Error != "":
		fmt.Fprintf(&b, "; server version unknown (%s)", server.Error)
	}
	if len(s.Settings) > 0 {
		b.WriteString("; ")
		for i, k := range sortedKeys(s.Settings) {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s %v", k, s.Settings[k])
		}
	}
	fmt.Fprintln(w, b.String())
}
