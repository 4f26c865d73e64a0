package loadcli

import (
	"os"

	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/runner"
)

// The flags of a database that runs inside the loader's process (Embedded).
const (
	FlagDBPath = "db-path"
	FlagCommit = "commit"
)

// Embedded is the part of a loader's command line that every database
// running inside the loader's process shares (load_duckdb, load_sqlite,
// load_tonbo): --db-path, the file or directory it opens, by default
// <db-name><Ext> in the current directory; --commit, how rows are
// committed; and the server's process, which is the loader's own.
type Embedded struct {
	PathUsage   string // --db-path's usage
	Ext         string // the default path's ending: ".sqlite"
	Commit      string // --commit's default
	CommitUsage string // --commit's usage
}

// Flags are --db-path, --commit and then more, the database's own.
func (e Embedded) Flags(more ...cli.Flag) []cli.Flag {
	return append([]cli.Flag{
		&cli.StringFlag{Name: FlagDBPath, Usage: e.PathUsage},
		&cli.StringFlag{Name: FlagCommit, Value: e.Commit, Usage: e.CommitUsage},
	}, more...)
}

// Settings maps the target Config's Path and Commit to their flags, and
// more besides (Spec.Settings).
func (e Embedded) Settings(more map[string]string) map[string]string {
	s := map[string]string{"Path": FlagDBPath, "Commit": FlagCommit}
	for k, v := range more {
		s[k] = v
	}
	return s
}

// New builds the target with open, given the database's path and
// --commit's value (Spec.New). The database runs in this process: its CPU
// and memory are the loader's, so the server's figures are this
// process's (both are reported).
func (e Embedded) New(c *cli.Context, cfg runner.Config, open func(path, commit string) (load.Target, error)) (load.Target, Overrides, error) {
	path := c.String(FlagDBPath)
	if path == "" {
		path = cfg.Prepare.DBName + e.Ext
	}
	tg, err := open(path, c.String(FlagCommit))
	return tg, Overrides{ServerPID: os.Getpid()}, err
}
