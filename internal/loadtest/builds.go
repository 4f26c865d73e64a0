package loadtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// Builds compiles commands once per test binary, for the tests that run
// the loaders as processes many times: the first Command of a package
// builds it, the later ones reuse the binary. Clean (from TestMain, after
// m.Run) removes them. The zero Builds is ready; it is safe for
// concurrent use.
type Builds struct {
	mu   sync.Mutex
	dir  string
	bins map[string]string
}

// Command returns the binary of the command package pkg (an import path,
// or "." for the test's own package), built with the build tags tags.
func (b *Builds) Command(t testing.TB, pkg string, tags ...string) string {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	key := fmt.Sprint(pkg, tags)
	if bin := b.bins[key]; bin != "" {
		return bin
	}
	if b.dir == "" {
		d, err := os.MkdirTemp("", "loadtest-bin")
		if err != nil {
			t.Fatal(err)
		}
		b.dir, b.bins = d, map[string]string{}
	}
	name := filepath.Base(pkg)
	if pkg == "." {
		wd, err := os.Getwd()
		if err != nil {
			t.Fatal(err)
		}
		name = filepath.Base(wd)
	}
	bin := filepath.Join(b.dir, fmt.Sprintf("%d-%s", len(b.bins), name))
	args := []string{"build", "-o", bin}
	for _, tag := range tags {
		args = append(args, "-tags", tag)
	}
	if out, err := exec.Command("go", append(args, pkg)...).CombinedOutput(); err != nil {
		t.Fatalf("go build %v %s: %v\n%s", tags, pkg, err, out)
	}
	b.bins[key] = bin
	return bin
}

// Clean removes the binaries.
func (b *Builds) Clean() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dir != "" {
		os.RemoveAll(b.dir)
	}
	b.dir, b.bins = "", nil
}
