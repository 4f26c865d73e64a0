// Package envinfo records what a result was measured on: the machine (CPU
// model, cores, memory, operating system), this program's build, and the
// description of a generated dataset that generate_data writes beside its
// output file (FILE.dataset.json) and the loaders read back into their
// results files.
//
// Everything here is best effort: a field that cannot be read is left
// empty, never guessed, and never fails a load.
package envinfo

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
)

// Files read on Linux (variables so tests can point them at fixtures).
var (
	cpuinfoPath   = "/proc/cpuinfo"
	meminfoPath   = "/proc/meminfo"
	osReleasePath = "/etc/os-release"
	kernelPath    = "/proc/sys/kernel/osrelease"
)

// LocalMachine describes the computer this process runs on.
func LocalMachine() Machine {
	return Machine{
		CPUModel:    cpuModel(),
		Cores:       runtime.NumCPU(),
		MemoryBytes: memTotal(),
		OS:          osName(),
	}
}

// cpuModel is the first "model name" of /proc/cpuinfo (x86), else its
// "Hardware" or "CPU part" line (ARM), else empty.
func cpuModel() string {
	b, err := os.ReadFile(cpuinfoPath)
	if err != nil {
		return ""
	}
	var fallback string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch k {
		case "model name":
			return v
		case "Hardware", "Model":
			if fallback == "" {
				fallback = v
			}
		}
	}
	return fallback
}

// memTotal is MemTotal of /proc/meminfo in bytes (0 when unknown).
func memTotal() int64 {
	b, err := os.ReadFile(meminfoPath)
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "MemTotal:" {
			n, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				return 0
			}
			if len(f) >= 3 && strings.EqualFold(f[2], "kB") {
				n *= 1024
			}
			return n
		}
	}
	return 0
}

// osName is the distribution's PRETTY_NAME, the kernel release and the
// architecture, e.g. "Debian GNU/Linux 12 (bookworm), Linux 6.1.0, amd64".
func osName() string {
	var parts []string
	if b, err := os.ReadFile(osReleasePath); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "PRETTY_NAME="); ok {
				if u, err := strconv.Unquote(v); err == nil {
					v = u
				}
				parts = append(parts, v)
				break
			}
		}
	}
	kernel := runtime.GOOS
	if b, err := os.ReadFile(kernelPath); err == nil {
		kernel = strings.ToUpper(runtime.GOOS[:1]) + runtime.GOOS[1:] + " " + strings.TrimSpace(string(b))
	}
	parts = append(parts, kernel, runtime.GOARCH)
	return strings.Join(parts, ", ")
}

// Build is this program's version from its build information, e.g.
// "github.com/tsload/tsload (devel) 5b2d98c1a2b3 2026-12-01T02:20:00Z+dirty go1.26.8":
// the main module and its version, the VCS revision (12 digits), commit
// time and "+dirty" when built with uncommitted changes, and the Go version.
// Builds without VCS stamping (go test, go run) give what is known.
func Build() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown build, " + runtime.Version()
	}
	return buildString(bi)
}

func buildString(bi *debug.BuildInfo) string {
	parts := []string{}
	if bi.Main.Path != "" {
		parts = append(parts, bi.Main.Path)
	}
	if bi.Main.Version != "" {
		parts = append(parts, bi.Main.Version)
	}
	var rev, at string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
			if len(rev) > 12 {
				rev = rev[:12]
			}
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" {
		v := rev
		if at != "" {
			v += " " + at
		}
		if dirty {
			v += "+dirty"
		}
		parts = append(parts, v)
	}
	goVersion := bi.GoVersion
	if goVersion == "" {
		goVersion = runtime.Version()
	}
	parts = append(parts, goVersion)
	return strings.Join(parts, " ")
}

// FormatBytes writes n bytes as B, KiB, MiB or GiB with one decimal.
func FormatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n), -1
	for v >= unit && i < 3 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.1f %ciB", v, "KMGT"[i])
}
