package questdb

import (
	"sort"

	"github.com/tsload/tsload/pkg/results"
)

// Describe (load.Target.Describe) says where the load went and what each table
// is: DEDUP as found or created (false for a table QuestDB auto-created,
// whatever Config.Dedup asked), so the results record what was done.
func (t *Target) Describe() *results.Setup {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := results.Setup{URL: t.cfg.URL, API: "ilp/" + string(t.cfg.Transport)}
	if t.cfg.Transport == TCP {
		s.URL = "tcp://" + t.cfg.TCPAddr
	}
	names := make([]string, 0, len(t.done))
	for n := range t.done {
		names = append(names, n)
	}
	for n := range t.resumed {
		if _, ok := t.done[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	all := len(names) > 0
	for _, n := range names {
		d, ok := t.dedup[n]
		if !ok {
			d = t.resumed[n] // not written by this run
		}
		all = all && d
		s.Tables = append(s.Tables, results.TableSetup{Name: n, Dedup: &d})
	}
	s.Settings = map[string]any{
		"gzip":  t.cfg.Gzip,
		"dedup": all,
	}
	if t.cfg.Transport == HTTP {
		s.Settings["request-timeout"] = t.cfg.RequestTimeout.String()
	}
	if t.proto != 0 {
		s.Settings["protocol-version"] = t.proto
	}
	return &s
}
