package repotest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// root is the repository's top directory (tests run in their package's).
const root = "../.."

// docScripts returns every script the README and docs/ name
// ("scripts/quickstart.sh", ".ci/run"), sorted.
func docScripts(t *testing.T) []string {
	t.Helper()
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	docs = append(docs, filepath.Join(root, "README.md"))
	re := regexp.MustCompile(`(?:^|[^\w./-])((?:scripts/[\w/.-]+\.sh)|\.ci/run)\b`)
	seen := map[string]bool{}
	for _, d := range docs {
		data, err := os.ReadFile(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllSubmatch(data, -1) {
			seen[string(m[1])] = true
		}
	}
	var out []string
	for s := range seen {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// TestDocumentedScriptsRun: every script the docs name exists, is committed
// executable (a fresh clone runs "scripts/quickstart.sh" as written), starts
// with a shebang and stops at the first failing command.
func TestDocumentedScriptsRun(t *testing.T) {
	scripts := docScripts(t)
	if len(scripts) < 5 || !contains(scripts, "scripts/quickstart.sh") {
		t.Fatalf("found only %v in the docs", scripts)
	}
	modes := gitModes(t)
	for _, s := range scripts {
		path := filepath.Join(root, s)
		st, err := os.Stat(path)
		if err != nil {
			t.Errorf("%s is named in the docs but missing: %v", s, err)
			continue
		}
		if st.Mode().Perm()&0o111 == 0 {
			t.Errorf("%s is not executable", s)
		}
		if m, ok := modes[s]; modes != nil && (!ok || m != "100755") {
			t.Errorf("%s is committed with mode %q, want 100755 (git update-index --chmod=+x %s)", s, m, s)
		}
		data, _ := os.ReadFile(path)
		if !bytes.HasPrefix(data, []byte("#!")) {
			t.Errorf("%s has no #! line", s)
		}
		if !bytes.Contains(data, []byte("set -euo pipefail")) && !bytes.Contains(data, []byte("set -eu")) {
			t.Errorf("%s does not stop on errors (set -euo pipefail)", s)
		}
	}
}

// gitModes returns the committed mode of every tracked file, or nil when
// this is not a git checkout.
func gitModes(t *testing.T) map[string]string {
	out, err := exec.Command("git", "-C", root, "ls-files", "-s").Output()
	if err != nil {
		t.Logf("not checking committed modes: %v", err)
		return nil
	}
	modes := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		// "100755 <hash> 0\tpath"
		meta, path, ok := strings.Cut(line, "\t")
		if f := strings.Fields(meta); ok && len(f) > 0 {
			modes[path] = f[0]
		}
	}
	return modes
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
