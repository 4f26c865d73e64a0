package runner

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/tsload/tsload/pkg/envinfo"
	"github.com/tsload/tsload/pkg/results"
)

// serverVersionTimeout bounds the target's ServerVersion call.
const serverVersionTimeout = 5 * time.Second

// askServerVersion records the server's version when the target can tell
// it (load.Target.ServerVersion). It never fails the run.
func (r *run) askServerVersion(ctx context.Context) {
	if r.target == nil {
		r.setServer(results.Server{Error: "the " + r.cfg.Target + " target does not report the server version"})
		return
	}
	ctx, cancel := context.WithTimeout(ctx, serverVersionTimeout)
	defer cancel()
	s, err := r.target.ServerVersion(ctx)
	if errors.Is(err, errors.ErrUnsupported) {
		r.setServer(results.Server{Error: "the " + r.cfg.Target + " target does not report the server version"})
		return
	}
	if err != nil {
		r.setServer(results.Server{Error: "asking the server its version: " + err.Error()})
		return
	}
	r.setServer(results.Server{Version: strings.TrimSpace(s)})
}

// setServer records what the server said of its version (in the
// results' Environment, filled at the end by environment).
func (r *run) setServer(s results.Server) { r.res.Environment = &results.Environment{Server: s} }

// serverAsked is what the server said of its version (zero: not asked).
func (r *run) serverAsked() results.Server {
	if r.res.Environment == nil {
		return results.Server{}
	}
	return r.res.Environment.Server
}

// environment is the results' Environment: the server version asked after
// Prepare, this machine and build, and the dataset as generate_data
// described it (a single generated input) or as loading saw it.
func (r *run) environment() *results.Environment {
	env := &results.Environment{
		Server:  r.serverAsked(),
		Machine: envinfo.LocalMachine(),
		Tsload:  envinfo.Build(),
	}
	if !r.cfg.DoLoad {
		env.Server = results.Server{Error: "not connected (--do-load=false)"}
	} else if env.Server == (results.Server{}) {
		env.Server = results.Server{Error: "not asked: the run stopped before the server was prepared"}
	}
	env.Dataset = r.datasetSeen()
	if len(r.cfg.Inputs) == 1 && r.cfg.Inputs[0] != "-" {
		d, err := envinfo.ReadDataset(r.cfg.Inputs[0])
		if err != nil {
			env.Dataset.Note = err.Error()
		} else if d != nil {
			env.Dataset = *d
		}
	}
	if r.cfg.Limit > 0 {
		env.Dataset.Note = strings.TrimPrefix(env.Dataset.Note+"; --limit: only the first rows were loaded", "; ")
	}
	return env
}

// datasetSeen is what loading saw of the inputs.
func (r *run) datasetSeen() envinfo.Dataset {
	d := envinfo.Dataset{Source: "input", Rows: r.n.rowsRead.Load(), Bytes: r.n.bytesRead.Load()}
	if r.in.first != nil {
		d.Format = r.in.first.Format().String()
	}
	if r.in.totalSize > 0 {
		d.FileBytes = r.in.totalSize
	}
	gz, plain := 0, 0
	for _, g := range r.in.inputGzip {
		if g {
			gz++
		} else {
			plain++
		}
	}
	switch {
	case gz > 0 && plain == 0:
		d.Compression = "gzip"
	case gz == 0 && plain > 0:
		d.Compression = "none"
	case gz > 0:
		d.Compression = "gzip and none"
	}
	return d
}
