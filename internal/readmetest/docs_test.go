package readmetest

import (
	"os"
	"path/filepath"
	"reflect"
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
