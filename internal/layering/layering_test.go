package layering

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/tsload/tsload/"

// rules: the packages matching a pattern must not depend, directly or
// through others, on any of the forbidden packages.
var rules = []struct {
	pattern   string
	forbidden []string
	why       string
}{
	{module + "pkg/target/...", []string{module + "pkg/runner", module + "pkg/loadcli", "github.com/urfave/cli/v2"},
		"a target is driven by the runner and configured by cmd/; it asks for engine work through optional interfaces (load.Finisher)"},
	{module + "pkg/format/...", []string{module + "pkg/load", module + "pkg/runner", module + "pkg/split", "github.com/urfave/cli/v2"},
		"the format packages are shared by the generator and the loaders"},
	{module + "pkg/gen/...", []string{module + "pkg/runner", module + "pkg/split", module + "pkg/target", "github.com/urfave/cli/v2"},
		"the generator does not know the loaders"},
	{module + "pkg/runner/...", []string{module + "pkg/loadcli", module + "pkg/target", "github.com/urfave/cli/v2"},
		"the runner is a library: no command line, no particular database"},
}

func TestLayering(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	for _, r := range rules {
		out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, r.pattern).CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", r.pattern, err, out)
		}
		n := 0
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			fields := strings.Fields(line)
			root := strings.TrimSuffix(r.pattern, "/...")
			if len(fields) == 0 || (fields[0] != root && !strings.HasPrefix(fields[0], root+"/")) {
				continue // a dependency listed by -deps, not a package of the pattern
			}
			n++
			for _, dep := range fields[1:] {
				for _, bad := range r.forbidden {
					if dep == bad || strings.HasPrefix(dep, bad+"/") {
						t.Errorf("%s depends on %s: %s", fields[0], dep, r.why)
					}
				}
			}
		}
		if n == 0 {
			t.Errorf("%s: no packages listed", r.pattern)
		}
	}
}
