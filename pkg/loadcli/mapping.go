package loadcli

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/runner"
)

// Flags of tabular input that does not say everything itself (a user's
// CSV or pgcopy file: runner.Config.Mapping; docs/own-data.md).
const (
	FlagColumns    = "columns"
	FlagTimeColumn = "time-column"
	FlagTimeUnit   = "time-unit"
	FlagTags       = "tags"
)

func mappingFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: FlagColumns, Usage: "`a,b,c`: the columns of a CSV without a header (its first line is a row) or of a pgcopy file's fields, in order (default: the header's; a pgcopy file's table chunk, else the table's columns)"},
		&cli.StringFlag{Name: FlagTimeColumn, Usage: "the timestamp column of CSV written as line protocol (default: the first)"},
		&cli.StringFlag{Name: FlagTimeUnit, Usage: "unit of numeric (epoch) timestamps of CSV written as line protocol: s, ms, us or ns (default: RFC 3339 text)"},
		&cli.StringFlag{Name: FlagTags, Usage: "`a,b`: the tag (QuestDB symbol) columns of CSV written as line protocol; \"\" for none (default: the database's when the table exists, else the use case's when the header is one's, else the text columns)"},
	}
}

// mappingConfig sets cfg.Mapping from the flags.
func mappingConfig(c *cli.Context, cfg *runner.Config) error {
	m := load.Mapping{TimeColumn: c.String(FlagTimeColumn), TimeUnit: c.String(FlagTimeUnit)}
	var err error
	if m.Columns, err = nameList(c, FlagColumns); err != nil {
		return err
	}
	if c.IsSet(FlagTags) {
		if m.Tags, err = nameList(c, FlagTags); err != nil {
			return err
		}
		if m.Tags == nil {
			m.Tags = []string{} // --tags "": no tags
		}
	}
	if m.TimeUnit != "" {
		if _, err := runner.TimeUnit(m.TimeUnit); err != nil {
			return fmt.Errorf("--%s: %w", FlagTimeUnit, err)
		}
	}
	for _, tag := range m.Tags {
		if tag == m.TimeColumn && tag != "" {
			return fmt.Errorf("--%s %s is the --%s", FlagTags, tag, FlagTimeColumn)
		}
	}
	cfg.Mapping = m
	return nil
}

// nameList splits a comma-separated list of column names.
func nameList(c *cli.Context, flag string) ([]string, error) {
	s := c.String(flag)
	if s == "" {
		return nil, nil
	}
	var names []string
	seen := map[string]bool{}
	for _, n := range strings.Split(s, ",") {
		n = strings.TrimSpace(n)
		switch {
		case n == "":
			return nil, fmt.Errorf("--%s %q: an empty column name", flag, s)
		case seen[n]:
			return nil, fmt.Errorf("--%s %q: column %s twice", flag, s, n)
		}
		seen[n] = true
		names = append(names, n)
	}
	return names, nil
}
