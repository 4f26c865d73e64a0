// Package interference judges whether a load's figures are the
// database's alone: it measures the whole machine's CPU over the load's
// window (/proc/stat) and takes away what the loader and the local server
// spent; what is left ran beside them. A busy laptop, a CI runner, a
// neighbour on a cloud host (steal) all show here, and a run that crossed
// the threshold is marked disturbed in its summary, results file and
// reports.
//
// The threshold is half a core, or a tenth of the processors' time
// stolen: a busy loop on one core is a whole core (TestBusyLoopDisturbs),
// while the idle servers of scripts/start_*.sh stay far under it
// (docs/benchmarks.md gives what they measured).
package interference

import (
	"fmt"
	"time"

	"github.com/tsload/tsload/pkg/procstat"
	"github.com/tsload/tsload/pkg/results"
)

// Thresholds over which a run is disturbed.
const (
	// Cores is the other processes' CPU, in cores, over which a run is
	// disturbed.
	Cores = 0.5
	// Steal is the share of processor time stolen by the hypervisor over
	// which a run is disturbed.
	Steal = 0.10
)

// Sample is the machine at one end of the load's window.
type Sample struct {
	Machine procstat.Machine
	Err     error
}

// Take reads the machine now.
func Take(fs procstat.FS) Sample {
	m, err := fs.Machine()
	return Sample{Machine: m, Err: err}
}

// Window is what the loader and the server spent from the first sample to
// the second, and what could not be observed.
type Window struct {
	Start, End Sample
	Wall       time.Duration
	// Loader is the loader process's CPU over the window.
	Loader time.Duration
	// Server is the local server's process tree's CPU over the window;
	// ServerUnobserved says why it is not known for a server on this
	// machine (then its CPU is in the figure, which is not judged against
	// the threshold, and the results say so).
	Server           time.Duration
	ServerUnobserved string
	// ServerIsLoader says the database runs inside the loader (DuckDB,
	// SQLite, tonbo, chDB): Server and Loader are the same CPU, taken
	// away once.
	ServerIsLoader bool
}

// Judge computes the interference of w.
func Judge(w Window) *results.Interference {
	if w.Start.Err != nil || w.End.Err != nil {
		err := w.Start.Err
		if err == nil {
			err = w.End.Err
		}
		return &results.Interference{NotMeasured: fmt.Sprintf("the machine's CPU is not readable: %v", err)}
	}
	in := &results.Interference{
		CPUs:           w.End.Machine.CPUs,
		Seconds:        w.Wall.Seconds(),
		LoadAvgStart:   w.Start.Machine.Load1,
		LoadAvgEnd:     w.End.Machine.Load1,
		ThresholdCores: Cores,
		ThresholdSteal: Steal,
		Unobserved:     w.ServerUnobserved,
	}
	if w.Wall <= 0 {
		in.NotMeasured = "the load lasted no time"
		return in
	}
	d := w.End.Machine.Since(w.Start.Machine)
	sec := w.Wall.Seconds()
	in.MachineCores = d.Busy.Seconds() / sec
	in.LoaderCores = w.Loader.Seconds() / sec
	in.ServerCores = w.Server.Seconds() / sec
	own := in.LoaderCores + in.ServerCores
	if w.ServerIsLoader {
		own = max(in.LoaderCores, in.ServerCores)
	}
	in.Cores = max(0, in.MachineCores-own)
	if t := d.Total(); t > 0 {
		in.StealFraction = d.Steal.Seconds() / t.Seconds()
	}
	switch {
	case in.Cores > Cores && w.ServerUnobserved != "":
		// The server's own CPU is in Cores: judging it would cry wolf on
		// every busy server.
		in.Unobserved = w.ServerUnobserved + ": its CPU is in the interference figure, which is therefore not judged"
	case in.Cores > Cores:
		in.Disturbed = true
		in.Reason = fmt.Sprintf("interference %.2f cores > %.2f", in.Cores, Cores)
	case in.StealFraction > Steal:
		in.Disturbed = true
		in.Reason = fmt.Sprintf("steal %.0f%% > %.0f%%", 100*in.StealFraction, 100*Steal)
	}
	return in
}
