package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestWithoutBridge builds load_tonbo without the tonbo tag (what go build
// ./... makes): it exits non-zero saying how to build it with the bridge,
// and makes no directory.
func TestWithoutBridge(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the loader")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "load_tonbo")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	in := filepath.Join(dir, "x.ilp")
	writeFile(t, in, "cpu,host=a v=1 1\n")
	cmd := exec.Command(bin, "--file", in, "--db-path", filepath.Join(dir, "db"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if err == nil || !strings.Contains(stderr.String(), "built without the tonbo bridge: run scripts/build_tonbo.sh, then go build -tags tonbo ./cmd/load_tonbo") {
		t.Fatalf("err %v, stderr:\n%s", err, stderr.String())
	}
	if strings.Contains(stderr.String(), "goroutine") {
		t.Errorf("a crash:\n%s", stderr.String())
	}
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
