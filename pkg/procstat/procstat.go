// Package procstat measures what a process and its descendants spend,
// from the Linux /proc file system: CPU time (user and system), resident
// memory, and bytes read from and written to storage. It also finds the
// process that listens on a local TCP port (/proc/net/tcp and tcp6 name
// the listening socket's inode, /proc/<pid>/fd links name the sockets a
// process holds), so that a loader can watch the database server it
// writes to without being told its pid.
//
// A server is often many processes (PostgreSQL forks a backend per
// connection), so Tree sums the whole tree under a pid, found again at each
// sample because backends come and go. CPU times include those of reaped
// children (cutime and cstime), and the kernel adds a reaped child's I/O
// to its parent's, so the sums only grow while the tree lives.
//
// Everything is read through an FS rooted at /proc by default; tests root
// it at a fixed tree in testdata. On systems without /proc every call
// returns an error, which callers report as "not measured".
package procstat

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// TicksPerSecond is the unit of the CPU times in /proc/<pid>/stat
// (USER_HZ). Linux fixes it at 100 on every architecture Go supports; the
// C library's sysconf(_SC_CLK_TCK) reports the same constant.
const TicksPerSecond = 100

// FS reads a proc file system. The zero FS reads /proc.
type FS struct {
	// Root is the mount point ("" means /proc).
	Root string
	// PageSize is the unit of statm (0: this machine's page size).
	PageSize int64
}

func (fs FS) pageSize() int64 {
	if fs.PageSize > 0 {
		return fs.PageSize
	}
	return int64(os.Getpagesize())
}

func (fs FS) path(elem ...string) string {
	root := fs.Root
	if root == "" {
		root = "/proc"
	}
	return filepath.Join(append([]string{root}, elem...)...)
}

// Proc is one process's counters.
type Proc struct {
	PID, PPID int
	// Threads is the number of threads (num_threads).
	Threads int
	// Comm is the command name (at most 15 bytes, from stat).
	Comm string
	// User and System are the CPU times of the process and of its reaped
	// children.
	User, System time.Duration
	// RSS is the resident memory that belongs to this process alone
	// (anonymous pages); Shared is its resident file-backed and shared
	// memory pages, which other processes may map too (counted once per
	// tree: see Usage.RSS).
	RSS, Shared int64
	// ReadBytes and WriteBytes are bytes the process (and its reaped
	// children) caused to be fetched from or sent to storage; IO is false
	// when /proc/<pid>/io could not be read (another user's process).
	ReadBytes, WriteBytes int64
	IO                    bool
}

// ErrNoProcess is returned (wrapped) for a pid that does not exist.
var ErrNoProcess = errors.New("no such process")

// Process reads the counters of one process.
func (fs FS) Process(pid int) (Proc, error) {
	var r reader
	return fs.process(pid, &r)
}

func (fs FS) process(pid int, r *reader) (Proc, error) {
	p := Proc{PID: pid}
	dir := strconv.Itoa(pid)
	stat, err := r.read(fs.path(dir, "stat"))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return p, fmt.Errorf("pid %d: %w", pid, ErrNoProcess)
		}
		return p, err
	}
	if err := parseStat(stat, &p); err != nil {
		return p, fmt.Errorf("%s: %w", fs.path(dir, "stat"), err)
	}
	return p, fs.rest(&p, r)
}

// rest reads statm and io for p, whose stat was read. (statm, not
// status: the kernel makes it several times faster.)
func (fs FS) rest(p *Proc, r *reader) error {
	dir := strconv.Itoa(p.PID)
	statm, err := r.read(fs.path(dir, "statm"))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("pid %d: %w", p.PID, ErrNoProcess)
		}
		return err
	}
	if err := parseStatm(statm, fs.pageSize(), p); err != nil {
		return fmt.Errorf("%s: %w", fs.path(dir, "statm"), err)
	}
	if iob, err := r.read(fs.path(dir, "io")); err == nil {
		if err := parseIO(iob, p); err != nil {
			return fmt.Errorf("%s: %w", fs.path(dir, "io"), err)
		}
		p.IO = true
	}
	return nil
}

// reader reads small files into one reused buffer: a sample reads a few
// files per process, and proc files are generated on read (their size is
// unknown until read).
type reader struct{ buf []byte }

// read returns the file's content, valid until the next read.
func (r *reader) read(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if r.buf == nil {
		r.buf = make([]byte, 4096)
	}
	n := 0
	for {
		m, err := f.Read(r.buf[n:])
		n += m
		if err != nil {
			if errors.Is(err, io.EOF) {
				return r.buf[:n], nil
			}
			return nil, err
		}
		if m == 0 {
			return r.buf[:n], nil
		}
		if n == len(r.buf) {
			r.buf = append(r.buf, make([]byte, len(r.buf))...)
		}
	}
}

// parseStat reads ppid, utime, stime, cutime and cstime from a stat line:
// "pid (comm) state ppid ... utime stime cutime cstime ...". The command
// name may hold spaces and parentheses, so the fields start after the last
// ')'.
func parseStat(b []byte, p *Proc) error {
	open := bytes.IndexByte(b, '(')
	end := bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return errors.New("no (comm) field")
	}
	p.Comm = string(b[open+1 : end])
	f := bytes.Fields(b[end+1:])
	// f[0] is field 3 (state); field n is f[n-3].
	if len(f) < 18 {
		return fmt.Errorf("%d fields after the command name, want at least 18", len(f))
	}
	ppid, err := strconv.Atoi(string(f[1]))
	if err != nil {
		return fmt.Errorf("ppid: %w", err)
	}
	p.PPID = ppid
	if p.Threads, err = strconv.Atoi(string(f[17])); err != nil {
		return fmt.Errorf("num_threads: %w", err)
	}
	var t [4]uint64
	for i := range t {
		if t[i], err = strconv.ParseUint(string(f[11+i]), 10, 64); err != nil {
			return fmt.Errorf("field %d: %w", 14+i, err)
		}
	}
	// A Duration holds 2^63 ns, 29 years of CPU in ticks: a larger count
	// is no stat line of a real process.
	const maxTicks = uint64(math.MaxInt64/int64(time.Second/TicksPerSecond)) / 2
	for i, v := range t {
		if v > maxTicks {
			return fmt.Errorf("field %d: %d ticks is out of range", 14+i, v)
		}
	}
	p.User = ticks(t[0] + t[2])
	p.System = ticks(t[1] + t[3])
	return nil
}

func ticks(n uint64) time.Duration {
	return time.Duration(n) * (time.Second / TicksPerSecond)
}

// parseStatm reads resident and shared (pages) from a statm line: "size
// resident shared text lib data dt".
func parseStatm(b []byte, pageSize int64, p *Proc) error {
	f := bytes.Fields(b)
	if len(f) < 3 {
		return fmt.Errorf("%d fields, want 7", len(f))
	}
	res, err := strconv.ParseInt(string(f[1]), 10, 64)
	if err != nil {
		return fmt.Errorf("resident: %w", err)
	}
	shared, err := strconv.ParseInt(string(f[2]), 10, 64)
	if err != nil {
		return fmt.Errorf("shared: %w", err)
	}
	shared = min(shared, res)
	p.RSS, p.Shared = (res-shared)*pageSize, shared*pageSize
	return nil
}

// kB parses "Name:   1234 kB" into bytes.
func kB(line []byte) (int64, error) {
	f := bytes.Fields(line)
	if len(f) != 3 || string(f[2]) != "kB" {
		return 0, fmt.Errorf("%q: want \"Name: N kB\"", line)
	}
	v, err := strconv.ParseInt(string(f[1]), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q: %w", line, err)
	}
	return v * 1024, nil
}

// parseIO reads read_bytes and write_bytes from an io file.
func parseIO(b []byte, p *Proc) error {
	var got int
	for _, line := range bytes.Split(b, []byte("\n")) {
		name, val, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			continue
		}
		var dst *int64
		switch string(name) {
		case "read_bytes":
			dst = &p.ReadBytes
		case "write_bytes":
			dst = &p.WriteBytes
		default:
			continue
		}
		v, err := strconv.ParseInt(string(bytes.TrimSpace(val)), 10, 64)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		*dst = v
		got++
	}
	if got != 2 {
		return errors.New("no read_bytes and write_bytes lines")
	}
	return nil
}
