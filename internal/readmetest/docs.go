package readmetest

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode"
)

// DocOrder is the order in which TestREADME runs the documents' commands:
// the README first (its walk-through builds the tools and starts the
// servers), then the pages whose examples make the files later pages use.
// Pages under docs/ that are not listed run after these, in path order, so
// a new page's examples run without being listed here.
var DocOrder = []string{
	"README.md",
	"docs/servers.md",
	"docs/generate.md",
	"docs/loaders/common.md",
	"docs/loaders/timescale.md",
	"docs/loaders/questdb.md",
	"docs/loaders/influx.md",
	"docs/loaders/cnosdb.md",
	"docs/loaders/victoriametrics.md",
	"docs/verify.md",
	"docs/benchmarks.md",
	"docs/experiments.md",
	"docs/results.md",
}

// Documents returns README.md and every Markdown page under docs/ (paths
// relative to root, slash-separated), in DocOrder and then in path order.
// A page DocOrder names that does not exist is an error: the order would
// be stale.
func Documents(root string) ([]string, error) {
	var rest []string
	listed := map[string]bool{}
	for _, d := range DocOrder {
		listed[d] = true
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(d))); err != nil {
			return nil, fmt.Errorf("DocOrder names %s: %w", d, err)
		}
	}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".md") {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		if rel = filepath.ToSlash(rel); !listed[rel] {
			rest = append(rest, rel)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(rest)
	return append(append([]string(nil), DocOrder...), rest...), nil
}

// Link is a Markdown link or image of a document, outside code.
type Link struct {
	Line   int
	Target string // as written: "docs/x.md#anchor", "img/a.png", "https://..."
}

var (
	linkRE     = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	codeSpanRE = regexp.MustCompile("`+[^`]*`+")
	commentRE  = regexp.MustCompile(`<!--.*?-->`)
	headingRE  = regexp.MustCompile(`^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)
	htmlIDRE   = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)
)

// scanProse calls fn with each line of the document that is not inside a
// code block (fenced, or indented after a blank line), with code spans
// and HTML comments removed.
func scanProse(r io.Reader, fn func(n int, line string)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	bs := newBlockScanner()
	n := 0
	for sc.Scan() {
		n++
		if line := sc.Text(); bs.next(line) == proseLine {
			fn(n, commentRE.ReplaceAllString(codeSpanRE.ReplaceAllString(line, ""), ""))
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if bs.fenced {
		return fmt.Errorf("unterminated code fence")
	}
	return nil
}

// Links returns the links and images of a Markdown document, outside code
// blocks, code spans and HTML comments.
func Links(r io.Reader) ([]Link, error) {
	var out []Link
	err := scanProse(r, func(n int, line string) {
		for _, m := range linkRE.FindAllStringSubmatch(line, -1) {
			out = append(out, Link{Line: n, Target: m[1]})
		}
	})
	return out, err
}

// Anchors returns the fragment identifiers a document defines: GitHub's
// slug of every heading (a repeated slug gets -1, -2, ...) and explicit
// <a id="..."> or <a name="..."> anchors.
func Anchors(r io.Reader) (map[string]bool, error) {
	out := map[string]bool{}
	seen := map[string]int{}
	// Headings are read from the raw line: a code span in a heading keeps
	// its text in the slug (GitHub drops only the backticks).
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	err := scanProse(strings.NewReader(strings.Join(lines, "\n")), func(n int, _ string) {
		raw := lines[n-1]
		for _, m := range htmlIDRE.FindAllStringSubmatch(raw, -1) {
			out[m[1]] = true
		}
		m := headingRE.FindStringSubmatch(raw)
		if m == nil {
			return
		}
		s := Slug(m[2])
		if k := seen[s]; k > 0 {
			out[fmt.Sprintf("%s-%d", s, k)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	})
	return out, err
}

var inlineLinkRE = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)

// Slug is GitHub's anchor for a heading's text: links reduced to their
// text, lower case, every character but letters, digits, spaces, '-' and
// '_' dropped, spaces turned into '-'.
func Slug(heading string) string {
	heading = inlineLinkRE.ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

var schemeRE = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)

// CheckLinks checks every relative link of the documents (paths relative
// to root): its file must exist inside root, and a fragment must name an
// anchor of the Markdown page it points to. Links with a scheme (https:,
// mailto:) are not followed. It returns one error per broken link.
func CheckLinks(root string, docs []string) ([]error, error) {
	anchors := map[string]map[string]bool{}
	anchorsOf := func(rel string) (map[string]bool, error) {
		if a, ok := anchors[rel]; ok {
			return a, nil
		}
		f, err := os.Open(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return nil, err
		}
		defer f.Close()
		a, err := Anchors(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", rel, err)
		}
		anchors[rel] = a
		return a, nil
	}
	var broken []error
	for _, doc := range docs {
		f, err := os.Open(filepath.Join(root, filepath.FromSlash(doc)))
		if err != nil {
			return nil, err
		}
		links, err := Links(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", doc, err)
		}
		for _, l := range links {
			if schemeRE.MatchString(l.Target) {
				continue
			}
			file, frag, _ := strings.Cut(l.Target, "#")
			target := doc
			if file != "" {
				target = path.Join(path.Dir(doc), file)
			}
			if target == ".." || strings.HasPrefix(target, "../") || path.IsAbs(file) {
				broken = append(broken, fmt.Errorf("%s:%d: %s points outside the repository", doc, l.Line, l.Target))
				continue
			}
			st, err := os.Stat(filepath.Join(root, filepath.FromSlash(target)))
			if err != nil {
				broken = append(broken, fmt.Errorf("%s:%d: %s: no file %s", doc, l.Line, l.Target, target))
				continue
			}
			if frag == "" {
				continue
			}
			if st.IsDir() || !strings.HasSuffix(target, ".md") {
				broken = append(broken, fmt.Errorf("%s:%d: %s: a fragment on %s, which is not a Markdown page", doc, l.Line, l.Target, target))
				continue
			}
			a, err := anchorsOf(target)
			if err != nil {
				return nil, err
			}
			if !a[frag] {
				broken = append(broken, fmt.Errorf("%s:%d: %s: %s has no heading or anchor %q", doc, l.Line, l.Target, target, frag))
			}
		}
	}
	return broken, nil
}

// testRefRE finds a test the documents cite as `pkg.TestName` or
// `dir/pkg.TestName/subtest`: the package by the last elements of its
// directory.
var testRefRE = regexp.MustCompile("`((?:[a-z0-9_]+/)*[a-z0-9_]+)\\.(Test[A-Za-z0-9_]+)[^`]*`")

// TestRef is a test a document cites.
type TestRef struct {
	Line      int
	Pkg, Name string // "cmd/load_influx", "TestSignal"
}

// TestRefs returns the tests a document cites in code spans.
func TestRefs(r io.Reader) ([]TestRef, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	var out []TestRef
	n := 0
	for sc.Scan() {
		n++
		for _, m := range testRefRE.FindAllStringSubmatch(sc.Text(), -1) {
			out = append(out, TestRef{Line: n, Pkg: m[1], Name: m[2]})
		}
	}
	return out, sc.Err()
}
