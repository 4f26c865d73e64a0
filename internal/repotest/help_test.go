package repotest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHelpShowsEachDefaultOnce: in every command's --help, a flag states its
// default once (a usage text that says its own default beside the one the
// flag library prints reads as two, one of them misleading).
func TestHelpShowsEachDefaultOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every command")
	}
	dirs, err := os.ReadDir(filepath.Join(root, "cmd"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		cmd := exec.Command("go", "run", "./cmd/"+d.Name(), "--help")
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		if err != nil && !strings.Contains(string(out), "--help") {
			t.Fatalf("%s --help: %v\n%s", d.Name(), err, out)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if strings.Count(strings.ToLower(line), "(default") > 1 {
				t.Errorf("%s: %s", d.Name(), strings.TrimSpace(line))
			}
		}
	}
}
