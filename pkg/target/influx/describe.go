package influx

import (
	"strings"

	"github.com/tsload/tsload/pkg/results"
)

// Describe (load.Target.Describe) says where the load went: the URLs, the
// database (the bucket on 2.x) and the API spoken, as detected. InfluxDB
// always stores a point with the series and timestamp of one it holds in
// its place: "dedup" is true whatever the load asked.
func (t *Target) Describe() *results.Setup {
	t.mu.Lock()
	a := t.api
	t.mu.Unlock()
	s := results.Setup{URL: strings.Join(t.cfg.URLs, ","), Database: t.cfg.DBName}
	if a != nil {
		s.API = string(a.name())
		if a.name() == APIv2 && t.cfg.Bucket != "" {
			s.Database = t.cfg.Bucket
		}
	}
	s.Settings = map[string]any{
		"gzip":            t.cfg.Gzip,
		"dedup":           true,
		"request-timeout": t.cfg.RequestTimeout.String(),
	}
	return &s
}
