package loadcli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/results"
	"github.com/tsload/tsload/pkg/runner"
)

// unreachable is a target whose every method fails: with --do-load=false
// the runner must not call any.
type unreachable struct {
	load.Unsupported
	calls *int
}

func (u unreachable) Accepts(format.Format) error { return nil }
func (u unreachable) Prepare(context.Context, load.PrepareOptions) error {
	*u.calls++
	return errors.New("connection refused")
}
func (u unreachable) NewWriter(context.Context, int) (load.Writer, error) {
	*u.calls++
	return nil, errors.New("connection refused")
}
func (u unreachable) Count(context.Context, []string) (map[string]int64, error) {
	*u.calls++
	return nil, errors.New("connection refused")
}
func (u unreachable) Close() error { return nil }

func spec(calls *int, gotCfg *runner.Config) Spec {
	return Spec{
		Name: "load_test", Usage: "test loader", Target: "test",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "url", Value: "http://127.0.0.1:1"},
			&cli.StringFlag{Name: "password", EnvVars: []string{"TEST_LOADER_PASSWORD"}},
		},
		New: func(c *cli.Context, cfg runner.Config) (load.Target, Overrides, error) {
			if gotCfg != nil {
				*gotCfg = cfg
			}
			return unreachable{calls: calls}, Overrides{}, nil
		},
	}
}

func writeILP(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "d.ilp")
	var b bytes.Buffer
	for i := 0; i < 1234; i++ {
		b.WriteString("cpu,host=a v=1 1\n")
	}
	os.WriteFile(path, b.Bytes(), 0o644)
	return path
}

func TestDoLoadFalseNeedsNoServer(t *testing.T) {
	calls := 0
	path := writeILP(t)
	resultsPath := filepath.Join(t.TempDir(), "r.json")
	var stderr bytes.Buffer
	t.Setenv("TEST_LOADER_PASSWORD", "s3cret")
	err := Run(context.Background(), spec(&calls, nil), []string{"load_test", "--file", path, "--do-load=false", "--batch-size", "100", "--results-file", resultsPath}, nil, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if calls != 0 {
		t.Fatalf("%d target calls", calls)
	}
	// Nothing was loaded: the summary says so.
	if !strings.Contains(stderr.String(), "read 1,234 rows") || strings.Contains(stderr.String(), "loaded") {
		t.Errorf("stderr %s", stderr.String())
	}
	data, _ := os.ReadFile(resultsPath)
	if bytes.Contains(data, []byte("s3cret")) {
		t.Fatal("password in the results file")
	}
	var res results.Results
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	for _, f := range CommonFlags(Spec{}) {
		if _, ok := res.Flags[f.Names()[0]]; !ok {
			t.Errorf("flag %s missing from results", f.Names()[0])
		}
	}
	if res.Flags["password"] != "REDACTED" || res.Flags["batch-size"] != 100.0 || fmt.Sprint(res.Flags["file"]) != "["+path+"]" || res.Flags["url"] != "http://127.0.0.1:1" || res.Rows != 1234 || res.Loader != "load_test" {
		t.Errorf("flags %v rows %d", res.Flags, res.Rows)
	}
	if _, ok := res.Flags["help"]; ok || res.Flags["do-load"] != false || res.Flags["verify"] != "count" {
		t.Errorf("flags record --help, or --do-load is not a boolean, or --verify not its text: %v", res.Flags)
	}
}

func TestConfigFromFlags(t *testing.T) {
	calls := 0
	var cfg runner.Config
	path := writeILP(t)
	args := []string{"load_test", "--file", path, "--file", path, "--format", "ilp", "--workers", "4", "--hash-workers", "--limit", "10",
		"--do-load=false", "--verify=false", "--reporting-period", "3s", "--retry-timeout", "7s", "--skip-invalid",
		"--db-name", "x", "--do-create-db=false", "--do-abort-on-exist", "--drop-db", "--table", "cpu"}
	if err := Run(context.Background(), spec(&calls, &cfg), args, nil, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if len(cfg.Inputs) != 2 || cfg.Format != format.ILP || cfg.Workers != 4 || !cfg.HashWorkers || cfg.Limit != 10 ||
		cfg.DoLoad || cfg.Verify || cfg.ReportingPeriod.Seconds() != 3 || cfg.RetryTimeout.Seconds() != 7 || !cfg.SkipInvalid ||
		fmt.Sprint(cfg.Prepare) != fmt.Sprint(load.PrepareOptions{DBName: "x", CreateDB: false, AbortOnExist: true, DropDB: true}) || cfg.Table != "cpu" || cfg.BatchSize != 5000 {
		t.Fatalf("%+v", cfg)
	}
}

func TestErrors(t *testing.T) {
	calls := 0
	path := writeILP(t)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--format", "xml"}, `unknown format "xml" (want ilp, csv, pgcopy or parquet)`},
		{[]string{"--batch-size", "0"}, "--batch-size must be positive"},
		{[]string{"--nope"}, "unknown flag --nope (see --help)"},
		{[]string{"--flie", "x"}, "unknown flag --flie: did you mean --file? (see --help)"},
		{[]string{"--batchsize=10"}, "unknown flag --batchsize: did you mean --batch-size? (see --help)"},
		{[]string{"--workers", "x"}, `invalid value "x" for flag --workers: parse error (see --help)`},
		{[]string{"--file", "/nonexistent/x.ilp", "--do-load=false"}, "open /nonexistent/x.ilp: no such file or directory"},
		{[]string{"--file", path}, "prepare: connection refused"},
		{[]string{"extra"}, `unexpected arguments ["extra"] (inputs are given with --file)`},
	}
	for _, tc := range tests {
		var stderr bytes.Buffer
		err := Run(context.Background(), spec(&calls, nil), append([]string{"load_test"}, tc.args...), nil, &stderr)
		if err == nil || OneLine(err) != tc.want {
			t.Errorf("%v: err %v, want %s", tc.args, err, tc.want)
		}
	}
}

func TestOneLine(t *testing.T) {
	if got := OneLine(errors.New("a\nb\r\n  c")); got != "a; b; c" {
		t.Errorf("got %q", got)
	}
}

// TestDefaultsAreTheLibrarys: a setting the command line leaves alone
// takes the library's default (one value each), and Validate (called by
// Config) names the flag of a setting out of range.
func TestDefaultsAreTheLibrarys(t *testing.T) {
	calls := 0
	var got runner.Config
	Run(context.Background(), spec(&calls, &got), []string{"load_test", "--file", writeILP(t)}, nil, io.Discard)
	if got.BatchSize != load.DefaultBatchSize || got.Workers != runner.DefaultWorkers || got.ReportingPeriod != runner.DefaultReportingPeriod || got.RetryTimeout != runner.DefaultRetryTimeout {
		t.Errorf("batch size %d, workers %d, reporting period %v, retry timeout %v: want the library's %d, %d, %v, %v", got.BatchSize, got.Workers, got.ReportingPeriod, got.RetryTimeout,
			load.DefaultBatchSize, runner.DefaultWorkers, runner.DefaultReportingPeriod, runner.DefaultRetryTimeout)
	}
	if err := got.Validate(); err != nil {
		t.Errorf("the command's defaults do not validate: %v", err)
	}
	// The same read by the command and by the library with a zero
	// Config: what the results record of it is the same.
	path := writeILP(t)
	cmdResults, libResults := filepath.Join(t.TempDir(), "cmd.json"), filepath.Join(t.TempDir(), "lib.json")
	if err := Run(context.Background(), spec(&calls, nil), []string{"load_test", "--file", path, "--do-load=false", "--results-file", cmdResults}, nil, io.Discard); err != nil {
		t.Fatal(err)
	}
	if _, err := runner.Run(context.Background(), runner.Config{Inputs: []string{path}, ResultsFile: libResults, Stderr: io.Discard}, nil); err != nil {
		t.Fatal(err)
	}
	var cmd, lib results.Results
	for p, r := range map[string]*results.Results{cmdResults: &cmd, libResults: &lib} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, r); err != nil {
			t.Fatal(err)
		}
	}
	if cmd.Workers != lib.Workers || cmd.BatchSize != lib.BatchSize {
		t.Errorf("the command ran %d workers in batches of %d, the library %d in batches of %d", cmd.Workers, cmd.BatchSize, lib.Workers, lib.BatchSize)
	}
	for _, bad := range [][]string{{"--workers", "0"}, {"--limit", "-1"}, {"--reporting-period", "0s"}, {"--retry-timeout", "-1s"}} {
		err := Run(context.Background(), spec(&calls, nil), append([]string{"load_test"}, bad...), nil, io.Discard)
		if err == nil || !strings.HasPrefix(OneLine(err), bad[0]+" must ") {
			t.Errorf("%v: %v", bad, err)
		}
	}
}

// TestParseVerify: the three modes, the deprecated boolean spellings, and
// a refusal naming the flag.
func TestParseVerify(t *testing.T) {
	for in, want := range map[string]Verify{"count": VerifyCount, "CONTENT": VerifyContent, "off": VerifyOff,
		"true": VerifyCount, "1": VerifyCount, "false": VerifyOff, "0": VerifyOff} {
		if got, err := ParseVerify(in); err != nil || got != want {
			t.Errorf("%q: %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseVerify("rows"); err == nil || err.Error() != `--verify "rows": want count, content or off` {
		t.Errorf("rows: %v", err)
	}
}
