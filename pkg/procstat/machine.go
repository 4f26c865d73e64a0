package procstat

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"
)

// Machine is the whole machine's CPU time since boot, summed over its
// processors (the "cpu" line of /proc/stat), and its load averages
// (/proc/loadavg). Two samples taken around a load say how much CPU every
// process on the machine spent in between, the loader's and the server's
// included: what is left is interference.
type Machine struct {
	// Busy is ticks (TicksPerSecond) spent running anything: user (guest
	// time included, the kernel counts it there), nice, system, irq and
	// softirq. The counters are kept in ticks because a many-core machine's
	// sums since boot overflow a Duration; Since turns two samples into
	// durations.
	Busy uint64
	// Idle is idle and iowait (a processor waiting for I/O runs nothing).
	Idle uint64
	// Steal is time a virtual machine's processors were ready to run and
	// the hypervisor ran someone else: a neighbour's load, not ours.
	Steal uint64
	// CPUs is the number of per-processor lines (cpu0, cpu1, ...).
	CPUs int
	// Load1, Load5 and Load15 are the load averages over 1, 5 and 15
	// minutes (runnable and uninterruptible tasks).
	Load1, Load5, Load15 float64
}

// MachineDelta is the processor time that passed between two samples.
type MachineDelta struct {
	Busy, Idle, Steal time.Duration
}

// Total is Busy + Idle + Steal: all the processor time that passed.
func (d MachineDelta) Total() time.Duration { return d.Busy + d.Idle + d.Steal }

// Since is what passed from the earlier sample to m. A counter that went
// back (a sample from another boot) gives 0 for it.
func (m Machine) Since(earlier Machine) MachineDelta {
	sub := func(a, b uint64) time.Duration {
		const most = uint64(math.MaxInt64 / int64(time.Second/TicksPerSecond))
		if a < b {
			return 0
		}
		return ticks(min(a-b, most))
	}
	return MachineDelta{Busy: sub(m.Busy, earlier.Busy), Idle: sub(m.Idle, earlier.Idle), Steal: sub(m.Steal, earlier.Steal)}
}

// Machine reads /proc/stat and /proc/loadavg.
func (fs FS) Machine() (Machine, error) {
	var r reader
	var m Machine
	b, err := r.read(fs.path("stat"))
	if err != nil {
		return m, err
	}
	if err := parseMachineStat(b, &m); err != nil {
		return m, fmt.Errorf("%s: %w", fs.path("stat"), err)
	}
	b, err = r.read(fs.path("loadavg"))
	if err != nil {
		return m, err
	}
	if err := parseLoadavg(b, &m); err != nil {
		return m, fmt.Errorf("%s: %w", fs.path("loadavg"), err)
	}
	return m, nil
}

// parseMachineStat reads the aggregate "cpu  user nice system idle iowait
// irq softirq steal guest guest_nice" line and counts the "cpuN" lines.
// Kernels before 2.6.11 end the line before steal: it is then 0.
func parseMachineStat(b []byte, m *Machine) error {
	found := false
	for line := range bytes.Lines(b) {
		f := bytes.Fields(line)
		if len(f) == 0 || !bytes.HasPrefix(f[0], []byte("cpu")) {
			continue
		}
		if len(f[0]) > 3 {
			m.CPUs++
			continue
		}
		if len(f) < 8 {
			return fmt.Errorf("cpu line has %d fields, want at least 8", len(f))
		}
		var v [8]uint64
		for i := range v {
			if i+1 >= len(f) {
				break
			}
			n, err := strconv.ParseUint(string(f[i+1]), 10, 64)
			if err != nil {
				return fmt.Errorf("cpu field %d: %w", i+1, err)
			}
			if n > maxMachineTicks {
				return fmt.Errorf("cpu field %d: %d ticks is out of range", i+1, n)
			}
			v[i] = n
		}
		user, nice, system, idle, iowait, irq, softirq, steal := v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]
		m.Busy = user + nice + system + irq + softirq
		m.Idle = idle + iowait
		m.Steal = steal
		found = true
	}
	if !found {
		return errors.New("no cpu line")
	}
	if m.CPUs == 0 {
		m.CPUs = 1
	}
	return nil
}

// maxMachineTicks keeps the sums of parseMachineStat from overflowing: no
// machine has counted 2^60 ticks since boot.
const maxMachineTicks = uint64(1) << 60

// parseLoadavg reads the first three fields of "0.52 0.58 0.59 2/345 6789".
func parseLoadavg(b []byte, m *Machine) error {
	f := bytes.Fields(b)
	if len(f) < 3 {
		return fmt.Errorf("%d fields, want at least 3", len(f))
	}
	dst := [3]*float64{&m.Load1, &m.Load5, &m.Load15}
	for i, d := range dst {
		v, err := strconv.ParseFloat(string(f[i]), 64)
		if err != nil || !(v >= 0) || math.IsInf(v, 1) {
			return fmt.Errorf("load average %q is not a number >= 0", f[i])
		}
		*d = v
	}
	return nil
}
