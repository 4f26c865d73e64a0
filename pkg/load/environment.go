package load

import (
	"github.com/tsload/tsload/pkg/envinfo"
)

// Environment is what a run was measured on, so that a result read later,
// or beside another, says which server, machine, data and build produced it.
// The runner fills it in every results file.
type Environment struct {
	Server  Server          `json:"server"`
	Machine envinfo.Machine `json:"machine"`
	Dataset envinfo.Dataset `json:"dataset"`
	// Tsload is this program's version from its build information: module
	// version, VCS revision and time (with "+dirty" for uncommitted
	// changes), and the Go version.
	Tsload string `json:"tsload"`
}

// Server is the database server's own account of itself.
type Server struct {
	// Version is what the server reports, e.g. "PostgreSQL 15.8 (Debian
	// 15.8-0+deb12u1), TimescaleDB 2.28.3" or "InfluxDB 1.6.7".
	Version string `json:"version,omitempty"`
	// Error says why Version is empty: the target cannot tell, the query
	// failed, or nothing was loaded (--do-load=false).
	Error string `json:"error,omitempty"`
}
