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
