package procstat

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Usage is what a process tree has spent since its processes started
// (CPU time, I/O) and what it holds now (RSS).
type Usage struct {
	// Root is the pid the tree hangs from; Procs counts its live processes.
	Root, Procs int
	// User and System are CPU times summed over the tree (reaped
	// children included).
	User, System time.Duration
	// RSS is the tree's resident memory now: every process's own
	// (anonymous) pages summed, and shared pages (file-backed and shared
	// memory) counted once, as the most any one process has resident:
	// PostgreSQL's shared buffers and libraries are resident in every
	// backend that touched them.
	RSS int64
	// ReadBytes and WriteBytes are storage I/O summed over the tree; IO is
	// false when some process's io file was unreadable, and the sums then
	// leave it out.
	ReadBytes, WriteBytes int64
	IO                    bool
}

// CPU is User + System.
func (u Usage) CPU() time.Duration { return u.User + u.System }

// Tree sums the counters of pid and all its descendants. The process list
// is read afresh, so children started since the last call count.
func (fs FS) Tree(pid int) (Usage, error) {
	var r reader
	return fs.tree(pid, &r)
}

func (fs FS) tree(pid int, r *reader) (Usage, error) {
	u := Usage{Root: pid, IO: true}
	root, err := fs.process(pid, r)
	if err != nil {
		return u, err
	}
	members := []Proc{root}
	// Descendants from the children files (cheap: one read per process);
	// without them (a kernel built without CONFIG_PROC_CHILDREN), from a
	// scan of every process's stat.
	var scan map[int][]Proc
	for i := 0; i < len(members); i++ {
		if scan != nil {
			for _, k := range scan[members[i].PID] {
				if fs.rest(&k, r) == nil { // else exited since the scan: its parent counts it
					members = append(members, k)
				}
			}
			continue
		}
		pids, err := fs.childPIDs(members[i], r)
		if i == 0 && (errors.Is(err, os.ErrNotExist) || errors.Is(err, ErrNoProcess)) {
			if scan, err = fs.children(r); err != nil {
				return u, err
			}
			i-- // the root again, from the scan
			continue
		}
		if err != nil {
			continue // exited since it was listed
		}
		for _, c := range pids {
			if p, err := fs.process(c, r); err == nil {
				members = append(members, p)
			}
		}
	}
	for _, p := range members {
		u.Procs++
		u.User += p.User
		u.System += p.System
		u.RSS += p.RSS
		if p.IO {
			u.ReadBytes += p.ReadBytes
			u.WriteBytes += p.WriteBytes
		} else {
			u.IO = false
		}
	}
	var shared int64
	for _, p := range members {
		shared = max(shared, p.Shared)
	}
	u.RSS += shared
	return u, nil
}

// manyThreads is the thread count above which only the main thread's
// children file is read: a child belongs to the thread that forked it,
// and reading every thread's file costs a read per thread at every
// sample, for a JVM (QuestDB) a hundred; servers that fork do it from
// their main thread (PostgreSQL's postmaster is single-threaded).
const manyThreads = 32

// childPIDs lists the children of p from its threads' children files
// (/proc/<pid>/task/<tid>/children; the main thread's only when p has
// more than manyThreads threads).
func (fs FS) childPIDs(p Proc, r *reader) ([]int, error) {
	pid := strconv.Itoa(p.PID)
	tids := []string{pid}
	if p.Threads > 1 && p.Threads <= manyThreads {
		d, err := os.Open(fs.path(pid, "task"))
		if err != nil {
			return nil, ErrNoProcess // gone, or no task directory (a test tree)
		}
		tids, err = d.Readdirnames(-1)
		d.Close()
		if err != nil {
			return nil, err
		}
	}
	var out []int
	for _, tid := range tids {
		b, err := r.read(fs.path(pid, "task", tid, "children"))
		if err != nil {
			if _, serr := os.Stat(fs.path(pid, "task", tid)); serr != nil {
				if tid == pid {
					return nil, ErrNoProcess // gone, or no task directory (a test tree)
				}
				continue // the thread ended
			}
			return nil, err // no children files in this kernel
		}
		for _, f := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(f); err == nil {
				out = append(out, c)
			}
		}
	}
	return out, nil
}

// children reads every process's stat and returns them by parent pid.
func (fs FS) children(r *reader) (map[int][]Proc, error) {
	d, err := os.Open(fs.path())
	if err != nil {
		return nil, err
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil, err
	}
	kids := map[int][]Proc{}
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil || pid <= 0 {
			continue
		}
		b, err := r.read(fs.path(n, "stat"))
		if err != nil {
			continue // exited since the listing
		}
		p := Proc{PID: pid}
		if err := parseStat(b, &p); err != nil {
			return nil, fmt.Errorf("%s: %w", fs.path(n, "stat"), err)
		}
		kids[p.PPID] = append(kids[p.PPID], p)
	}
	return kids, nil
}

// Self is the calling process's CPU time (user + system) and peak resident
// memory (VmHWM). Read from the machine's /proc (the zero FS), the CPU time
// comes from getrusage in microseconds: /proc counts it in ticks of 10 ms,
// so a load of a few thousand rows into a fast target measured 0.
func (fs FS) Self() (cpu time.Duration, peakRSS int64, err error) {
	cpu, peakRSS, err = fs.selfProc()
	if err == nil && fs.Root == "" {
		if c, ok := selfRusage(); ok {
			cpu = c
		}
	}
	return cpu, peakRSS, err
}

// selfProc is Self as /proc/self tells it.
func (fs FS) selfProc() (cpu time.Duration, peakRSS int64, err error) {
	var r reader
	b, err := r.read(fs.path("self", "stat"))
	if err != nil {
		return 0, 0, err
	}
	var p Proc
	if err := parseStat(b, &p); err != nil {
		return 0, 0, err
	}
	b, err = r.read(fs.path("self", "status"))
	if err != nil {
		return 0, 0, err
	}
	for _, line := range splitLines(b) {
		if len(line) > 6 && string(line[:6]) == "VmHWM:" {
			if peakRSS, err = kB(line); err != nil {
				return 0, 0, err
			}
		}
	}
	return p.User + p.System, peakRSS, nil
}

func splitLines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := 0
		for i < len(b) && b[i] != '\n' {
			i++
		}
		out = append(out, b[:i])
		if i < len(b) {
			i++
		}
		b = b[i:]
	}
	return out
}
