// Package cliflag is how every tsload command answers a flag it cannot
// parse: in one line, the flag written with two dashes, the nearest flag
// suggested ("unknown flag --flie: did you mean --file? (see --help)").
// The loaders (pkg/loadcli), report and generate_data share it.
package cliflag

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/urfave/cli/v2"
)

// Go's flag package names a flag with one dash ("flag provided but not
// defined: -flie", "invalid value ... for flag -workers"); the loaders'
// flags are written with two.
var (
	undefinedFlag = regexp.MustCompile(`^flag provided but not defined: -+(.*)$`)
	oneDashFlag   = regexp.MustCompile(`(for flag|flag needs an argument:) -([A-Za-z])`)
)

// UsageError rewrites a flag parsing error of flags (a cli.App's or
// cli.Command's OnUsageError): an unknown flag is named with two dashes
// with the closest flag suggested, and every flag is written with two
// dashes. help is the command whose --help to point at ("" for the
// command run: "(see --help)"; "report table": "(see report table --help)").
func UsageError(err error, flags []cli.Flag, help string) error {
	see := " (see --help)"
	if help != "" {
		see = " (see " + help + " --help)"
	}
	msg := err.Error()
	if m := undefinedFlag.FindStringSubmatch(msg); m != nil {
		name := m[1]
		if i := strings.IndexByte(name, '='); i >= 0 {
			name = name[:i]
		}
		msg = "unknown flag --" + name
		if near := closestFlag(name, flags); near != "" {
			msg += ": did you mean --" + near + "?"
		}
		return errors.New(msg + see)
	}
	return fmt.Errorf("%s%s", oneDashFlag.ReplaceAllString(msg, "$1 --$2"), see)
}

// closestFlag is the flag name (or alias) of flags nearest to name by edit
// distance, when near enough to be a slip (at most a third of its length,
// at least 1, at most 3 edits); a name starting another's (--batch for
// --batch-size) counts as near too.
func closestFlag(name string, flags []cli.Flag) string {
	best, bestD := "", 0
	for _, f := range flags {
		for _, n := range f.Names() {
			if len(n) == 1 {
				continue
			}
			d := editDistance(name, n)
			if len(name) >= 3 && strings.HasPrefix(n, name) {
				d = 1
			}
			if best == "" || d < bestD {
				best, bestD = n, d
			}
		}
	}
	if limit := min(3, max(1, len(name)/3)); best == "" || bestD > limit {
		return ""
	}
	return best
}

// editDistance is the Damerau-Levenshtein distance of a and b (optimal
// string alignment: an adjacent swap is one edit).
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
