package envinfo

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

func fixture(t *testing.T, name, text string) string {
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestMachineFromProcFiles(t *testing.T) {
	old := []string{cpuinfoPath, meminfoPath, osReleasePath, kernelPath}
	t.Cleanup(func() { cpuinfoPath, meminfoPath, osReleasePath, kernelPath = old[0], old[1], old[2], old[3] })
	cpuinfoPath = fixture(t, "cpuinfo", "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13 64-Core Processor\nprocessor\t: 1\nmodel name\t: AMD EPYC 7B13 64-Core Processor\n")
	meminfoPath = fixture(t, "meminfo", "MemTotal:       24683584 kB\nMemFree:        20091980 kB\n")
	osReleasePath = fixture(t, "os-release", "NAME=\"Debian GNU/Linux\"\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n")
	kernelPath = fixture(t, "osrelease", "6.1.0-18-amd64\n")
	m := LocalMachine()
	if m.CPUModel != "AMD EPYC 7B13 64-Core Processor" || m.MemoryBytes != 24683584*1024 || m.Cores < 1 {
		t.Errorf("machine %+v", m)
	}
	if !strings.HasPrefix(m.OS, "Debian GNU/Linux 12 (bookworm), ") || !strings.Contains(m.OS, " 6.1.0-18-amd64, ") {
		t.Errorf("os %q", m.OS)
	}

	// ARM boards name the hardware instead; missing files leave fields empty.
	cpuinfoPath = fixture(t, "cpuinfo-arm", "processor\t: 0\nBogoMIPS\t: 108.00\nHardware\t: BCM2835\nModel\t: Raspberry Pi 4 Model B Rev 1.4\n")
	meminfoPath = filepath.Join(t.TempDir(), "missing")
	if m := LocalMachine(); m.CPUModel != "BCM2835" || m.MemoryBytes != 0 {
		t.Errorf("arm machine %+v", m)
	}
}

func TestBuildString(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/tsload/tsload", Version: "(devel)"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "5b2d98c0123456789abcdef"}, {Key: "vcs.time", Value: "2026-12-01T02:20:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	if got, want := buildString(bi), "github.com/tsload/tsload (devel) 5b2d98c01234 2026-12-01T02:20:00Z+dirty go1.26.8"; got != want {
		t.Errorf("build %q, want %q", got, want)
	}
	bi.Settings = nil
	bi.Main.Version = "v1.2.0"
	if got, want := buildString(bi), "github.com/tsload/tsload v1.2.0 go1.26.8"; got != want {
		t.Errorf("build %q, want %q", got, want)
	}
}

func TestDatasetSidecar(t *testing.T) {
	data := fixture(t, "data.ilp.gz", "0123456789")
	if d, err := ReadDataset(data); d != nil || err != nil {
		t.Fatalf("no description: %+v, %v", d, err)
	}
	seed := uint64(0) // seed 0 is a seed, not "unknown"
	in := Dataset{UseCase: "iot", Scale: 200, Seed: &seed, Start: "2016-01-01T00:00:00Z", End: "2016-01-01T04:00:00Z", Rows: 513400, Bytes: 9e7, Compression: "gzip level 1"}
	if err := WriteDataset(data, in); err != nil {
		t.Fatal(err)
	}
	d, err := ReadDataset(data)
	if err != nil || d == nil {
		t.Fatalf("read: %+v, %v", d, err)
	}
	if d.Source != "generate_data" || d.FileBytes != 10 || d.Seed == nil || *d.Seed != 0 || d.Rows != 513400 || d.UseCase != "iot" {
		t.Errorf("read back %+v", d)
	}
	// Another program rewrote the file: the description no longer holds.
	if err := os.WriteFile(data, []byte("other"), 0o644); err != nil {
		t.Fatal(err)
	}
	if d, err := ReadDataset(data); d != nil || err == nil || !strings.Contains(err.Error(), "ignored") {
		t.Errorf("stale description: %+v, %v", d, err)
	}
	if err := os.WriteFile(data+SidecarSuffix, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadDataset(data); err == nil || !strings.Contains(err.Error(), SidecarSuffix) {
		t.Errorf("bad description: %v", err)
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1536: "1.5 KiB", 24683584 * 1024: "23.5 GiB"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
