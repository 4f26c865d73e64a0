package loadtest

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/tsload/tsload/pkg/loadcli"
)

// CLIError is a command line (after the program name) that must fail, and
// a part of what its error must say. An alias of an unnamed struct, so that
// tables of them can be written without field names.
type CLIError = struct {
	Args []string
	Want string
}

// CLIErrors runs the loader of spec with each case's arguments (stdin
// empty) and fails the test for a run that does not fail with its Want.
func CLIErrors(t testing.TB, spec loadcli.Spec, cases []CLIError) {
	t.Helper()
	for _, c := range cases {
		err := loadcli.Run(context.Background(), spec, append([]string{spec.Name}, c.Args...), strings.NewReader(""), &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), c.Want) {
			t.Errorf("%q: %v\nwant %s", c.Args, err, c.Want)
		}
	}
}

// HelpTellsFormats checks that spec's --help offers exactly the input
// formats its target takes (--format F is refused for any other before
// input is read), --table only when one of them is csv or pgcopy, and
// says that gzip and zstd inputs are detected.
func HelpTellsFormats(t testing.TB, spec loadcli.Spec) {
	t.Helper()
	var help bytes.Buffer
	if err := loadcli.Run(context.Background(), spec, []string{spec.Name, "--help"}, strings.NewReader(""), &help); err != nil {
		t.Fatal(err)
	}
	var formatLine string
	for _, l := range strings.Split(help.String(), "\n") {
		if strings.Contains(l, "--format value") {
			formatLine = l
		}
	}
	tables := false
	for _, f := range []string{"ilp", "csv", "pgcopy", "parquet"} {
		offered := strings.Contains(formatLine, " "+f)
		tables = tables || (offered && f != "ilp")
		err := loadcli.Run(context.Background(), spec, []string{spec.Name, "--do-load=false", "--format", f},
			strings.NewReader("cpu v=1 1\n"), &bytes.Buffer{})
		refused := err != nil && strings.HasPrefix(err.Error(), "--format "+f+":")
		if offered == refused {
			t.Errorf("--help offers %s: %v; --format %s: %v\n%s", f, offered, f, err, formatLine)
		}
	}
	if !strings.Contains(help.String(), "gzip or zstd detected") {
		t.Errorf("--help does not say that zstd is detected too:\n%s", help.String())
	}
	if got := strings.Contains(help.String(), "--table value"); got != tables { // not --table-prefix
		t.Errorf("--help offers --table: %v, want %v", got, tables)
	}
}
