package cnosdb

import (
	"strings"

	"github.com/tsload/tsload/pkg/load"
)

// Describe (load.Target.Describe) says where the load went: the URLs and the
// tenant's database. CnosDB stores a point with the series and timestamp
// of one it holds in its place: "dedup" is true whatever the load asked.
func (t *Target) Describe() *load.Setup {
	return &load.Setup{
		URL:      strings.Join(t.cfg.URLs, ","),
		Database: t.cfg.Tenant + "." + t.cfg.DBName,
		Settings: map[string]any{
			"gzip":            t.cfg.Gzip,
			"dedup":           true,
			"request-timeout": t.cfg.RequestTimeout.String(),
		},
	}
}
