package runner

import (
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/split"
)

// parquetConfig says what a Parquet input becomes: COPY tuples for a
// target that takes pgcopy (TimescaleDB), line protocol for the others
// (and without a target), with its columns mapped by cfg.Mapping and one
// row group read per worker at a time.
func (r *run) parquetConfig(c *split.Config) {
	c.Mapping = r.cfg.Mapping
	c.ParquetAs = format.ILP
	if r.target != nil && r.target.Accepts(format.PGCopy) == nil {
		c.ParquetAs = format.PGCopy
	}
	// Row groups are read in parallel as far as the writers can take
	// them: one reader per writer keeps them all fed without holding more
	// decoded row groups than they write at once.
	c.ParquetReaders = r.cfg.Workers
}
