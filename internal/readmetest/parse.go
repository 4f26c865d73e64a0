// Package readmetest extracts the shell commands of a Markdown document
// (README.md and the pages under docs/) so that a test can run every one
// of them, and checks the documents' links. Commands: the indented and
// fenced code blocks, their commands (backslash continuations joined,
// comments dropped), and the marks that exempt a command, with a reason,
// because it needs something a test machine does not have:
//
//	<!-- readme-test skip "load_influx --urls https://a": needs remote servers -->
//
// A mark applies to the commands of the next code block that start with its
// quoted prefix ("*" for every command of the block). A line of a code
// block is a command when its first word (after VAR=value assignments) is
// a known program; lines that are not (program output, flag lists, a
// layout) are left alone, unless they look like a command with flags and
// name an unknown program, which is an error: a misspelt command must not
// pass as prose.
//
// Links (docs.go): every relative link and image of the documents must
// name a file of the repository, and a #fragment a heading or anchor of
// the page it points to; Documents gives the order in which the test runs
// the documents.
package readmetest

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// Command is one command of a code block.
type Command struct {
	Line int    // 1-based line of the document where it starts
	Text string // continuation lines joined with a space
	Skip string // the reason it is not run, from a mark ("" = run it)
}

// Mark is a skip mark: commands starting with Prefix are not run.
type Mark struct {
	Line           int
	Prefix, Reason string
}

// Block is one code block.
type Block struct {
	Line  int // first line
	Lines []string
	Marks []Mark // the marks between the previous block and this one
}

var markRE = regexp.MustCompile(`<!--\s*readme-test\s+skip\s+"([^"]+)"\s*:\s*(.*?)\s*-->`)

// lineKind is what a line of a Markdown document is to the two readers of
// its code blocks: Parse (the commands) and scanProse (the links).
type lineKind int

const (
	proseLine   lineKind = iota
	fenceOpen            // a ``` line that opens a fence
	fenceLine            // a line inside a fence
	fenceClose           // the ``` line that closes it
	indentStart          // the first line of an indented code block
	indentLine           // a later line of it (blank lines included)
)

// blockScanner classifies a document's lines in order: fences, and
// indented blocks (four spaces or a tab after a blank line, outside
// fences; a list item's continuation right after its text is prose).
type blockScanner struct{ fenced, indented, prevBlank bool }

func newBlockScanner() *blockScanner { return &blockScanner{prevBlank: true} }

func (s *blockScanner) next(line string) lineKind {
	trim := strings.TrimSpace(line)
	if strings.HasPrefix(trim, "```") {
		s.fenced, s.indented, s.prevBlank = !s.fenced, false, false
		if s.fenced {
			return fenceOpen
		}
		return fenceClose
	}
	if s.fenced {
		return fenceLine
	}
	indented := strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t")
	blank := trim == ""
	prevBlank := s.prevBlank
	s.prevBlank = blank
	switch {
	case s.indented && (indented || blank):
		return indentLine
	case indented && prevBlank && !blank:
		s.indented = true
		return indentStart
	}
	s.indented = false
	return proseLine
}

// Parse reads the code blocks of a Markdown document: fenced blocks
// (```sh, ```bash, ```console, ``` without a language) and indented blocks
// (four spaces or a tab after a blank line, outside fences).
func Parse(r io.Reader) ([]Block, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	var blocks []Block
	var marks []Mark
	var cur *Block
	fenceShell := false
	bs := newBlockScanner()
	n := 0
	flush := func() {
		if cur != nil {
			// Trailing blank lines belong to the gap, not the block.
			for len(cur.Lines) > 0 && strings.TrimSpace(cur.Lines[len(cur.Lines)-1]) == "" {
				cur.Lines = cur.Lines[:len(cur.Lines)-1]
			}
			blocks = append(blocks, *cur)
			cur = nil
		}
	}
	for sc.Scan() {
		n++
		line := sc.Text()
		switch bs.next(line) {
		case fenceOpen:
			flush()
			lang := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "```"))
			fenceShell = lang == "" || lang == "sh" || lang == "bash" || lang == "shell" || lang == "console"
			if fenceShell {
				cur = &Block{Line: n + 1, Marks: marks}
				marks = nil
			}
		case fenceLine:
			if fenceShell {
				cur.Lines = append(cur.Lines, line)
			}
		case fenceClose:
			if fenceShell {
				flush()
			}
		case indentStart:
			cur = &Block{Line: n, Lines: []string{line}, Marks: marks}
			marks = nil
		case indentLine:
			cur.Lines = append(cur.Lines, line)
		default:
			flush()
			for _, m := range markRE.FindAllStringSubmatch(line, -1) {
				marks = append(marks, Mark{Line: n, Prefix: m[1], Reason: m[2]})
			}
			if strings.Contains(line, "readme-test") && !markRE.MatchString(line) {
				return nil, fmt.Errorf("line %d: a readme-test mark must read <!-- readme-test skip \"PREFIX\": REASON -->", n)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if bs.fenced {
		return nil, fmt.Errorf("unterminated code fence")
	}
	flush()
	if len(marks) > 0 {
		return nil, fmt.Errorf("line %d: a readme-test mark with no code block after it", marks[0].Line)
	}
	return blocks, nil
}

var (
	// A value may be a command substitution with spaces in it:
	// INFLUX_TOKEN=$(cat token) load_influx ...
	assignRE  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=("[^"]*"|'[^']*'|\$\([^)]*\)\S*|\S*)\s+`)
	programRE = regexp.MustCompile(`^[A-Za-z0-9_./-]+$`)
)

// Program is the first word of a command line after VAR=value assignments.
func Program(line string) string {
	s := strings.TrimSpace(line)
	for {
		m := assignRE.FindString(s)
		if m == "" {
			break
		}
		s = s[len(m):]
	}
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		s = s[:i]
	}
	return s
}

// Commands returns the block's commands. known says whether a program is
// one the document may run. A mark whose prefix matches no command is an
// error (it is stale).
func Commands(b Block, known func(program string) bool) ([]Command, error) {
	var out []Command
	var text strings.Builder
	start := 0
	used := make([]bool, len(b.Marks))
	for i, raw := range b.Lines {
		line := strings.TrimSpace(raw)
		if text.Len() == 0 {
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			prog := Program(line)
			if !known(prog) {
				if programRE.MatchString(prog) && !strings.HasPrefix(prog, "-") && strings.Contains(line, " --") {
					return nil, fmt.Errorf("line %d: %q looks like a command but %q is not a known program (mark it, or fix it)", b.Line+i, line, prog)
				}
				continue
			}
			start = b.Line + i
		}
		cont := strings.HasSuffix(line, "\\")
		line = strings.TrimSuffix(line, "\\")
		if !cont {
			line = stripComment(line)
		}
		text.WriteString(strings.TrimSpace(line))
		if cont {
			text.WriteByte(' ')
			continue
		}
		c := Command{Line: start, Text: text.String()}
		for j, m := range b.Marks {
			if m.Prefix == "*" || strings.HasPrefix(c.Text, m.Prefix) {
				c.Skip = m.Reason
				used[j] = true
				break
			}
		}
		out = append(out, c)
		text.Reset()
	}
	if text.Len() > 0 {
		return nil, fmt.Errorf("line %d: the block ends inside a continued command", start)
	}
	for j, m := range b.Marks {
		if !used[j] {
			return nil, fmt.Errorf("line %d: mark %q matches no command of the block at line %d", m.Line, m.Prefix, b.Line)
		}
	}
	return out, nil
}

// stripComment drops a trailing "# comment" outside quotes.
func stripComment(s string) string {
	var q byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case q != 0:
			if c == q {
				q = 0
			}
		case c == '\'' || c == '"':
			q = c
		case c == '#' && (i == 0 || s[i-1] == ' ' || s[i-1] == '\t'):
			return strings.TrimSpace(s[:i])
		}
	}
	return s
}
