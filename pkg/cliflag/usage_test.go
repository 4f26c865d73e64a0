package cliflag_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/cliflag"
)

var flags = []cli.Flag{
	&cli.StringFlag{Name: "file", Aliases: []string{"f"}},
	&cli.IntFlag{Name: "batch-size"},
	&cli.IntFlag{Name: "workers"},
}

func ExampleUsageError() {
	err := cliflag.UsageError(errors.New("flag provided but not defined: -flie"), flags, "")
	fmt.Println(err)
	err = cliflag.UsageError(errors.New("flag provided but not defined: -grup"), flags, "report table")
	fmt.Println(err)
	// Output:
	// unknown flag --flie: did you mean --file? (see --help)
	// unknown flag --grup (see report table --help)
}

func TestUsageError(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"flag provided but not defined: -flie", "unknown flag --flie: did you mean --file? (see --help)"},
		{"flag provided but not defined: --batchsize=10", "unknown flag --batchsize: did you mean --batch-size? (see --help)"},
		{"flag provided but not defined: -batch", "unknown flag --batch: did you mean --batch-size? (see --help)"},
		{"flag provided but not defined: -zzzzzz", "unknown flag --zzzzzz (see --help)"},
		{`invalid value "x" for flag -workers: parse error`, `invalid value "x" for flag --workers: parse error (see --help)`},
		{"flag needs an argument: -f", "flag needs an argument: --f (see --help)"},
	} {
		if got := cliflag.UsageError(errors.New(tc.in), flags, "").Error(); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.in, got, tc.want)
		}
	}
}
