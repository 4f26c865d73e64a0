package layering

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
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
		"a target is driven by the runner and configured by cmd/; it asks for engine work through the hooks it declares (load.Hooks)"},
	{module + "pkg/format/...", []string{module + "pkg/load", module + "pkg/runner", module + "pkg/split", "github.com/urfave/cli/v2"},
		"the format packages are shared by the generator and the loaders"},
	{module + "pkg/gen/...", []string{module + "pkg/runner", module + "pkg/split", module + "pkg/target", "github.com/urfave/cli/v2"},
		"the generator does not know the loaders"},
	{module + "pkg/runner/...", []string{module + "pkg/loadcli", module + "pkg/target", "github.com/urfave/cli/v2"},
		"the runner is a library: no command line, no particular database"},
	{module + "pkg/report/summary", []string{module + "pkg/runner", module + "pkg/loadcli", module + "pkg/load", "github.com/urfave/cli/v2"},
		"the text summary reads the results (pkg/results) only, as pkg/report's renderers do"},
}

// concerns are the load engine's concerns, each in a package of its own
// beside pkg/runner: the engine imports them, they import neither the
// engine, its command line, a target nor each other (the rules init adds).
var concerns = []string{"pkg/pace", "pkg/cost", "pkg/journal", "pkg/verify", "pkg/tabular", "pkg/queryload"}

func init() {
	for _, c := range concerns {
		forbidden := []string{module + "pkg/runner", module + "pkg/loadcli", module + "pkg/target", module + "pkg/report", "github.com/urfave/cli/v2"}
		for _, other := range concerns {
			if other != c {
				forbidden = append(forbidden, module+other)
			}
		}
		rules = append(rules, struct {
			pattern   string
			forbidden []string
			why       string
		}{module + c, forbidden, "a concern of the engine is a library beside it: the engine calls it, it knows neither the engine nor the other concerns"})
	}
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

// allowed lists, for the bottom layers, every module package or library a
// package may import (cockroach's TestDepWhitelist does the same): pkg/load
// is the vocabulary every loader shares, pkg/results the results file's schema, the format packages are grammars
// and encoders the generator and the loaders share. The standard library is
// always allowed; anything else is a decision, made by editing this list.
var allowed = map[string][]string{
	"pkg/load":           {"pkg/fingerprint", "pkg/format", "pkg/query", "pkg/results", "pkg/schema"},
	"pkg/query":          {},
	"pkg/latency":        {"pkg/results", "github.com/HdrHistogram/hdrhistogram-go"},
	"pkg/pace":           {"pkg/latency", "pkg/results"},
	"pkg/cost":           {"pkg/interference", "pkg/load", "pkg/periodic", "pkg/procstat", "pkg/results"},
	"pkg/interference":   {"pkg/procstat", "pkg/results"},
	"pkg/journal":        {"pkg/load", "pkg/periodic"},
	"pkg/verify":         {"pkg/envinfo", "pkg/fingerprint", "pkg/load", "pkg/results", "pkg/retry", "pkg/schema", "pkg/split", "golang.org/x/sync/errgroup"},
	"pkg/queryload":      {"pkg/envinfo", "pkg/format", "pkg/format/ilp", "pkg/latency", "pkg/load", "pkg/query", "pkg/results", lineprotocol},
	"pkg/report/summary": {"pkg/results"},
	"pkg/tabular":        {"pkg/format", "pkg/format/csv", "pkg/format/ilp", "pkg/format/pgcopy", "pkg/load", "pkg/schema", "pkg/split"},
	"pkg/results":        {"pkg/envinfo"},
	"pkg/format":         {"pkg/schema"},
	"pkg/format/csv":     {"pkg/format", "pkg/schema"},
	"pkg/format/ilp": {"pkg/format", "pkg/schema",
		"github.com/influxdata/line-protocol/v2/lineprotocol", // the encoder we match byte for byte
		"golang.org/x/sys/cpu"},                               // whether the line scanner's AVX2 kernel can run
	"pkg/format/pgcopy": {"pkg/format", "pkg/schema"},
	"pkg/format/tsbs":   {"pkg/format/csv", "pkg/schema"}, // written as a tsload CSV stream
	"pkg/format/parquet": {"pkg/format", "pkg/schema",
		"github.com/parquet-go/parquet-go", // the Parquet grammar (issue 25 measured it against arrow-go's)
		"github.com/parquet-go/parquet-go/deprecated", "github.com/parquet-go/parquet-go/encoding", "github.com/parquet-go/parquet-go/format"},
	"pkg/format/records": {"pkg/format", "pkg/format/csv", "pkg/format/pgcopy", "pkg/schema"}, // the records of the two tabular grammars
}

// lineprotocol is the decoder the query checker reads escaped lines with.
const lineprotocol = "github.com/influxdata/line-protocol/v2/lineprotocol"

func TestImportAllowlist(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, module+"pkg/load", module+"pkg/query", module+"pkg/results", module+"pkg/format/...",
		module+"pkg/latency", module+"pkg/pace", module+"pkg/cost", module+"pkg/interference", module+"pkg/journal", module+"pkg/verify", module+"pkg/report/summary",
		module+"pkg/tabular", module+"pkg/queryload").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], module)
		list, ok := allowed[pkg]
		if !ok {
			t.Errorf("%s has no allowlist: add it to allowed", pkg)
			continue
		}
		seen[pkg] = true
		for _, imp := range fields[1:] {
			if !strings.Contains(strings.Split(imp, "/")[0], ".") {
				continue // the standard library
			}
			ok := false
			for _, a := range list {
				ok = ok || imp == a || imp == module+a
			}
			if !ok {
				t.Errorf("%s imports %s, which is not on its allowlist", pkg, imp)
			}
		}
	}
	for pkg := range allowed {
		if !seen[pkg] {
			t.Errorf("allowlist for %s, which go list did not show", pkg)
		}
	}
}

// TestRunnerReadsTheDeclaredFace: the runner learns what a target does
// from the target's face (load.Target and the load.Hooks it declares), not
// by probing it with type assertions: a new target then cannot have an
// ability the runner finds by accident, and a reader of load.Target sees
// all of them. Asserting to a type of package load or to an interface
// literal, in a type switch or not, is refused in pkg/runner.
func TestRunnerReadsTheDeclaredFace(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "pkg", "runner", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("pkg/runner: %v, %d files", err, len(files))
	}
	fset := token.NewFileSet()
	probe := func(typ ast.Expr) bool {
		switch x := typ.(type) {
		case *ast.StarExpr:
			typ = x.X
		case *ast.InterfaceType:
			return true
		}
		sel, ok := typ.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		pkg, ok := sel.X.(*ast.Ident)
		return ok && pkg.Name == "load"
	}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.TypeAssertExpr:
				if x.Type != nil && probe(x.Type) {
					t.Errorf("%s: a type assertion probes a target: declare the ability in load.Target or load.Hooks", fset.Position(x.Pos()))
				}
			case *ast.TypeSwitchStmt:
				for _, c := range x.Body.List {
					for _, typ := range c.(*ast.CaseClause).List {
						if probe(typ) {
							t.Errorf("%s: a type switch probes a target: declare the ability in load.Target or load.Hooks", fset.Position(typ.Pos()))
						}
					}
				}
			}
			return true
		})
	}
}
