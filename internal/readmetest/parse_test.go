package readmetest

import (
	"reflect"
	"strings"
	"testing"
)

const doc = "# Title\n\nSome prose.\n\n" +
	"    generate_data --seed 1 | gzip > data.gz   # a comment\n" +
	"    load_x --file data.gz \\\n        --workers 2\n" +
	"\n" +
	"Output looks like:\n\n" +
	"    loaded 36,000 rows (360,000 metrics) in 8 batches\n" +
	"    load_x: data.csv.gz: record 12: unterminated quoted field\n" +
	"\n" +
	"<!-- readme-test skip \"PGPASSWORD=... load_x --host db\": needs a remote server -->\n\n" +
	"    PGPASSWORD=... load_x --host db --file r.json\n" +
	"    load_x --query '# not a comment' --file d  # but this is\n" +
	"\n" +
	"```sh\nscripts/run.sh --out dir\n```\n\n" +
	"```json\n{\"a\": load_x --not-shell}\n```\n\n" +
	"- a list item\n    continued, not code\n"

func known(p string) bool {
	return p == "generate_data" || p == "load_x" || strings.HasPrefix(p, "scripts/")
}

func TestParseAndCommands(t *testing.T) {
	blocks, err := Parse(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 4 {
		t.Fatalf("%d blocks, want 4: %+v", len(blocks), blocks)
	}
	var got []Command
	for _, b := range blocks {
		cs, err := Commands(b, known)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, cs...)
	}
	want := []Command{
		{Line: 5, Text: "generate_data --seed 1 | gzip > data.gz"},
		{Line: 6, Text: "load_x --file data.gz --workers 2"},
		{Line: 16, Text: "PGPASSWORD=... load_x --host db --file r.json", Skip: "needs a remote server"},
		{Line: 17, Text: "load_x --query '# not a comment' --file d"},
		{Line: 20, Text: "scripts/run.sh --out dir"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("commands\n got %+v\nwant %+v", got, want)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tt := range []struct{ doc, want string }{
		{"text\n\n    load_y --file x\n", `"load_y" is not a known program`},
		{"<!-- readme-test skip \"load_x --host\": remote -->\n\n    load_x --file a\n", "matches no command"},
		{"<!-- readme-test skip load_x: no quotes -->\n\n    load_x --file a\n", "must read"},
		{"<!-- readme-test skip \"x\": dangling -->\n", "no code block after it"},
		{"text\n\n    load_x --file a \\\n", "ends inside a continued command"},
		{"```sh\nload_x\n", "unterminated code fence"},
	} {
		blocks, err := Parse(strings.NewReader(tt.doc))
		for _, b := range blocks {
			if err != nil {
				break
			}
			_, err = Commands(b, known)
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want %q", tt.doc, err, tt.want)
		}
	}
}

func TestProgram(t *testing.T) {
	for line, want := range map[string]string{
		"load_x --a":                        "load_x",
		"PGPASSWORD=x load_x":               "load_x",
		`A="b c" B='d e' C= scripts/s.sh x`: "scripts/s.sh",
		"  generate_data":                   "generate_data",
		"T=$(cat /tmp/a b) load_x --file f": "load_x",
		"T=$(cat f)x U=1 load_x":            "load_x",
	} {
		if got := Program(line); got != want {
			t.Errorf("Program(%q) = %q, want %q", line, got, want)
		}
	}
}
