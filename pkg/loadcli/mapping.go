package loadcli

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/runner"
)

// mappingConfig sets cfg.Mapping from the flags.
func mappingConfig(c *cli.Context, cfg *runner.Config) error {
	m := load.Mapping{TimeColumn: c.String(FlagTimeColumn)}
	var err error
	if s := c.String(FlagTimeUnit); s != "" {
		if m.TimeUnit, err = format.ParseEpochUnit(s); err != nil {
			return fmt.Errorf("--%s: %w", FlagTimeUnit, err)
		}
	}
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
