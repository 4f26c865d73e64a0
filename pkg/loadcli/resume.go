package loadcli

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/journal"
	"github.com/tsload/tsload/pkg/redact"
)

// resumable are the flags a resumed load may change: how it runs, not
// what it loads where.
var resumable = map[string]bool{
	FlagWorkers: true, FlagReportingPeriod: true, FlagRetryTimeout: true, FlagResultsFile: true,
	FlagCPUProfile: true, FlagErrorsFile: true, FlagMaxErrors: true, FlagVerify: true,
	FlagServerPID: true, FlagServerDataDir: true, FlagFootprintSettle: true,
	FlagResume: true, FlagAcceptDuplicates: true,
	FlagUser: true, FlagPassword: true, FlagToken: true, FlagRequestTimeout: true,
	FlagGzip: true, FlagGzipLevel: true, FlagInsecureSkipVerify: true,
	"sslmode": true, "min-throughput": true, "wal-timeout": true, "serialization-pass": true,
}

// notRestored are the flags a resumed load never takes from the journal:
// a drop (or an abort because the tables exist) would undo the earlier
// runs; the inputs are restored from the journal's own list.
var notRestored = map[string]bool{FlagDropDB: true, FlagAbortOnExist: true, FlagFile: true, FlagResultsFile: true, FlagResume: true, FlagAcceptDuplicates: true}

// applyResume reads the journal --resume names and sets every flag not
// given from the load's first run; a given flag that differs is refused
// unless it may change (resumable). It returns nil without --resume.
func applyResume(c *cli.Context, spec Spec) (*journal.Journal, error) {
	path := c.String(FlagResume)
	if path == "" {
		if c.Bool(FlagAcceptDuplicates) {
			return nil, fmt.Errorf("--%s goes with --%s", FlagAcceptDuplicates, FlagResume)
		}
		return nil, nil
	}
	j, jp, err := journal.Read(path)
	if err != nil {
		return nil, fmt.Errorf("--%s: %w", FlagResume, err)
	}
	if j.Loader != spec.Name {
		return nil, fmt.Errorf("--%s %s: the load was made by %s, not %s", FlagResume, path, j.Loader, spec.Name)
	}
	for _, name := range []string{FlagDropDB, FlagAbortOnExist} {
		if c.Bool(name) {
			return nil, fmt.Errorf("--%s with --%s: it would undo what the earlier runs of the load wrote", name, FlagResume)
		}
	}
	known := map[string]bool{}
	for _, f := range c.App.Flags {
		known[f.Names()[0]] = true
	}
	// Inputs: the journal's list, in order.
	if c.IsSet(FlagFile) {
		given := c.StringSlice(FlagFile)
		if why := sameInputs(given, j.Inputs); why != "" {
			return nil, fmt.Errorf("--%s differs from the load's inputs (%s): %s; a resumed load reads the same inputs (leave --%s out to take them from the journal)", FlagFile, journalInputs(j), why, FlagFile)
		}
	} else {
		for _, in := range j.Inputs {
			if err := c.Set(FlagFile, in.Path); err != nil {
				return nil, err
			}
		}
	}
	names := make([]string, 0, len(j.Flags))
	for n := range j.Flags {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		was := j.Flags[name]
		if notRestored[name] {
			continue
		}
		if !known[name] {
			return nil, fmt.Errorf("--%s %s: the load was run with --%s, which this %s does not have", FlagResume, path, name, spec.Name)
		}
		masked := strings.Contains(was, redact.Mask)
		if c.IsSet(name) {
			now := redact.Flags(map[string]string{name: flagString(c, name)})[name]
			if now != was && !resumable[name] && !masked {
				return nil, fmt.Errorf("--%s %s differs from the load's --%s %s: a resumed load keeps the flags that decide what is loaded and where (it may change --%s, --%s, --%s, --%s and credentials)",
					name, now, name, was, FlagWorkers, FlagReportingPeriod, FlagRetryTimeout, FlagRequestTimeout)
			}
			continue
		}
		if masked {
			if redact.IsSecret(name) {
				continue // given again through its flag or environment variable, or none
			}
			return nil, fmt.Errorf("--%s: the journal holds the load's --%s with its secret masked (%s): give --%s again", FlagResume, name, was, name)
		}
		if err := c.Set(name, was); err != nil {
			return nil, fmt.Errorf("--%s: restoring --%s %q: %w", FlagResume, name, was, err)
		}
	}
	if !c.IsSet(FlagResultsFile) {
		results := strings.TrimSuffix(jp, ".journal")
		if err := c.Set(FlagResultsFile, results); err != nil {
			return nil, err
		}
	}
	return j, nil
}

// sameInputs says how the given inputs differ from the journal's ("" when
// they do not).
func sameInputs(given []string, ins []journal.Input) string {
	if len(given) != len(ins) {
		return fmt.Sprintf("%d inputs given, the load has %d", len(given), len(ins))
	}
	for i, p := range given {
		if abs := absPath(p); abs != ins[i].Path {
			return fmt.Sprintf("input %d is %s, the load's is %s", i+1, abs, ins[i].Path)
		}
	}
	return ""
}

func journalInputs(j *journal.Journal) string {
	p := make([]string, len(j.Inputs))
	for i, in := range j.Inputs {
		p[i] = in.Path
	}
	return strings.Join(p, ", ")
}

// finishedLoad says so, for a resume of a load with nothing left to do.
func finishedLoad(w io.Writer, spec Spec, path string, j *journal.Journal) {
	fmt.Fprintf(w, "%s: the load %s (%s) is complete: %d rows acknowledged over %d runs, the last one %s; nothing to resume\n",
		spec.Name, j.LoadID, path, j.Rows, len(j.Runs), j.Status)
}
