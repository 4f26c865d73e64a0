package readmetest

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// TestLinks: every relative link and image of README.md and of the pages
// under docs/ names a file of the repository, and every #fragment a
// heading of the page it points to. It needs no server, so it runs in
// every `go test ./...`.
func TestLinks(t *testing.T) {
	root := repoRoot(t)
	docs, err := Documents(root)
	if err != nil {
		t.Fatal(err)
	}
	broken, err := CheckLinks(root, docs)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range broken {
		t.Error(e)
	}
	// The README's first screen is the job: its set-up commands and the
	// walk-through's loads, before any reference.
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	first := strings.Join(strings.SplitN(string(readme), "\n", 41)[:40], "\n")
	for _, want := range []string{"scripts/quickstart.sh", "scripts/test.sh", "generate_data ", "load_questdb ", "load_timescale ", "load_influx ", "load_cnosdb ", "report table", "report html"} {
		if !strings.Contains(first, want) {
			t.Errorf("README.md's first 40 lines do not show %q", want)
		}
	}
}

func TestDocuments(t *testing.T) {
	root := t.TempDir()
	for _, d := range append(DocOrder, "docs/zz.md", "docs/a/b.md", "docs/img/x.png") {
		write(t, root, d, "# x\n")
	}
	got, err := Documents(root)
	if err != nil {
		t.Fatal(err)
	}
	want := append(append([]string(nil), DocOrder...), "docs/a/b.md", "docs/zz.md")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Documents\n got %v\nwant %v", got, want)
	}
	if err := os.Remove(filepath.Join(root, "docs", "servers.md")); err != nil {
		t.Fatal(err)
	}
	if _, err := Documents(root); err == nil || !strings.Contains(err.Error(), "docs/servers.md") {
		t.Errorf("a page DocOrder names is missing: error %v, want one naming it", err)
	}
}

func TestCheckLinks(t *testing.T) {
	root := t.TempDir()
	write(t, root, "README.md", "# Top\n\nSee [the loaders](docs/l/q.md#flags-and-behaviour), [servers](docs/s.md),\n"+
		"![chart](docs/img/a.png), [up](#top), [web](https://example.com/x), `[not](a/link.md)`,\n"+
		"<!-- [later](docs/results-file.md) -->\n\n    [in code](nowhere.md)\n\n"+
		"[gone](docs/gone.md) [bad anchor](docs/s.md#nope) [out](../x.md) [own](#missing)\n")
	write(t, root, "docs/l/q.md", "# load_q: Q\n\n## Flags and behaviour\n\nBack to [the README](../../README.md#top) and [servers](../s.md#start-and-stop).\n")
	write(t, root, "docs/s.md", "# Servers\n\n## Start and stop\n")
	write(t, root, "docs/img/a.png", "png")
	broken, err := CheckLinks(root, []string{"README.md", "docs/l/q.md", "docs/s.md"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range broken {
		got = append(got, e.Error())
	}
	want := []string{
		"README.md:9: docs/gone.md: no file docs/gone.md",
		`README.md:9: docs/s.md#nope: docs/s.md has no heading or anchor "nope"`,
		"README.md:9: ../x.md points outside the repository",
		`README.md:9: #missing: README.md has no heading or anchor "missing"`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("broken links\n got %q\nwant %q", got, want)
	}
}

func TestSlugAndAnchors(t *testing.T) {
	for heading, want := range map[string]string{
		"Measured here at the original sizes (shared machine, 2026-12-01 20:23-21:59 UTC)": "measured-here-at-the-original-sizes-shared-machine-2026-12-01-2023-2159-utc",
		"What a load costs per database (`scripts/compare.sh`)":                            "what-a-load-costs-per-database-scriptscomparesh",
		"InfluxDB 1.x from source: which server the tests use":                             "influxdb-1x-from-source-which-server-the-tests-use",
		"load_influx: InfluxDB 1.x, 2.x and 3.x":                                           "load_influx-influxdb-1x-2x-and-3x",
		"See [the guide](x.md) – now":                                                      "see-the-guide--now",
	} {
		if got := Slug(heading); got != want {
			t.Errorf("Slug(%q) = %q, want %q", heading, got, want)
		}
	}
	a, err := Anchors(strings.NewReader("# A\n\n## Notes\n\n## Notes\n\n    # not a heading\n\n```sh\n# nor this\n```\n\n<a id=\"here\"></a>\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"a": true, "notes": true, "notes-1": true, "here": true}
	if !reflect.DeepEqual(a, want) {
		t.Errorf("Anchors = %v, want %v", a, want)
	}
}

func write(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCitedTestsExist: every test the documents cite as proof
// (`influx.TestFaults/cut_mid-batch`, `cmd/load_influx.TestSignal`) is a
// test function of a package directory ending in that path: a renamed or
// deleted test must not stay cited.
func TestCitedTestsExist(t *testing.T) {
	root := repoRoot(t)
	docs, err := Documents(root)
	if err != nil {
		t.Fatal(err)
	}
	// Test functions by package directory (slash-separated, from root).
	funcs := map[string]map[string]bool{}
	re := regexp.MustCompile(`(?m)^func (Test[A-Za-z0-9_]*)\(`)
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "bin") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		dir := filepath.ToSlash(rel)
		if funcs[dir] == nil {
			funcs[dir] = map[string]bool{}
		}
		for _, m := range re.FindAllSubmatch(b, -1) {
			funcs[dir][string(m[1])] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	cited := 0
	for _, doc := range docs {
		f, err := os.Open(filepath.Join(root, filepath.FromSlash(doc)))
		if err != nil {
			t.Fatal(err)
		}
		refs, err := TestRefs(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range refs {
			cited++
			found := false
			for dir, names := range funcs {
				if (dir == r.Pkg || strings.HasSuffix(dir, "/"+r.Pkg)) && names[r.Name] {
					found = true
					break
				}
			}
			if !found {
				t.Errorf("%s:%d: cites %s.%s, which is no test function of a package %s", doc, r.Line, r.Pkg, r.Name, r.Pkg)
			}
		}
	}
	if cited < 50 {
		t.Errorf("only %d cited tests found in the documents: the pattern no longer matches how they cite tests", cited)
	}
}
