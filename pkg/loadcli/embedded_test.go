package loadcli

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/runner"
)

// TestEmbedded: --db-path defaults to <db-name><Ext>, --commit to its
// default, and both reach the database's open as given.
func TestEmbedded(t *testing.T) {
	e := Embedded{Ext: ".x", PathUsage: "the `FILE`", Commit: "per-batch", CommitUsage: "how"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "opened benchmark.x per-batch"},
		{[]string{"--db-name", "bench", "--commit", "per-row"}, "opened bench.x per-row"},
		{[]string{"--db-path", "/tmp/y.db"}, "opened /tmp/y.db per-batch"},
	} {
		spec := Spec{Name: "load_x", Target: "x", Flags: e.Flags(), Settings: e.Settings(nil),
			New: func(c *cli.Context, cfg runner.Config) (load.Target, Overrides, error) {
				return e.New(c, cfg, func(path, commit string) (load.Target, error) {
					return nil, fmt.Errorf("opened %s %s", path, commit)
				})
			}}
		args := append([]string{"load_x", "--file", "-"}, c.args...)
		err := Run(context.Background(), spec, args, strings.NewReader(""), &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.args, err, c.want)
		}
	}
	if s := e.Settings(map[string]string{"WAL": "wal"}); s["Path"] != FlagDBPath || s["Commit"] != FlagCommit || s["WAL"] != "wal" {
		t.Errorf("settings %v", s)
	}
}
