package timescale

import (
	"fmt"
	"sort"

	"github.com/tsload/tsload/pkg/load"
)

// Describe (load.Target.Describe) says where the load went (host, port and
// database; never the password) and whether each
// table is a hypertable. Rows are not deduplicated (plain inserts), and
// nothing compresses what goes over the wire.
func (t *Target) Describe() *load.Setup {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := load.Setup{Database: t.cfg.DBName}
	if cc, err := t.cfg.connConfig(""); err == nil {
		s.URL = fmt.Sprintf("postgres://%s@%s:%d", cc.User, cc.Host, cc.Port)
	}
	if t.opts.DBName != "" {
		s.Database = t.opts.DBName
	}
	names := make([]string, 0, len(t.tables))
	for n := range t.tables {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		h := t.hypertable
		s.Tables = append(s.Tables, load.TableSetup{Name: n, Hypertable: &h})
	}
	s.Settings = map[string]any{
		"gzip":            false,
		"dedup":           false,
		"request-timeout": t.cfg.RequestTimeout.String(),
	}
	return &s
}
