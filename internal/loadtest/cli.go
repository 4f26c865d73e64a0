package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsload/tsload/pkg/loadcli"
	"github.com/tsload/tsload/pkg/results"
)

// CLIRun is one run of a loader's command line.
type CLIRun struct {
	Err     error
	Stderr  string
	Results []byte // the results file
}

// RunCLI runs the loader of spec with args, which name results as the
// results file. It fails the test when the run does not end as wanted
// (wantErr "": no error; else an error containing wantErr) and returns the
// run with the results file read back.
func RunCLI(t testing.TB, spec loadcli.Spec, args []string, results, wantErr string) CLIRun {
	t.Helper()
	var stderr bytes.Buffer
	err := loadcli.Run(context.Background(), spec, args, nil, &stderr)
	switch {
	case wantErr == "" && err != nil:
		t.Fatalf("%v\n%s", err, stderr.String())
	case wantErr != "" && (err == nil || !strings.Contains(err.Error(), wantErr)):
		t.Fatalf("err = %v, want %q\n%s", err, wantErr, stderr.String())
	}
	data, rerr := os.ReadFile(results)
	if rerr != nil {
		t.Fatal(rerr)
	}
	return CLIRun{Err: err, Stderr: stderr.String(), Results: data}
}

// Decoded decodes r's results file, failing the test when it cannot.
func (r CLIRun) Decoded(t testing.TB) results.Results {
	t.Helper()
	var res results.Results
	if err := json.Unmarshal(r.Results, &res); err != nil {
		t.Fatalf("results file: %v\n%s", err, r.Stderr)
	}
	return res
}

// Verified decodes r's results file and fails the test unless it says
// the run loaded rows rows and verified them.
func (r CLIRun) Verified(t testing.TB, rows int64) results.Results {
	t.Helper()
	res := r.Decoded(t)
	if res.Status != results.StatusOK || res.Rows != rows || res.Verify == nil || !res.Verify.OK {
		t.Fatalf("results %+v\n%s", res, r.Stderr)
	}
	return res
}

// NoSecret fails the test when one of secrets appears in the stderr, the
// error or the results file of r; noun names them in the message ("the
// password", "a secret").
func (r CLIRun) NoSecret(t testing.TB, noun string, secrets ...string) {
	t.Helper()
	for what, s := range map[string]string{"stderr": r.Stderr, "error": fmt.Sprint(r.Err), "results file": string(r.Results)} {
		for _, secret := range secrets {
			if strings.Contains(s, secret) {
				t.Errorf("%s appears in the %s:\n%s", noun, what, s)
				break
			}
		}
	}
}

// BuildLoader compiles the command in the current directory (a test's
// package) into a temporary directory as name and returns its path.
func BuildLoader(t testing.TB, name string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), name)
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}
