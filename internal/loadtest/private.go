package loadtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// ScriptServer is a server of a test's own that the repository's scripts
// start and stop (scripts/start_<db>.sh, stop_<db>.sh): its own state
// directory and ports, named to the scripts in Env; the start script
// writes the server's process id to PIDFile. For what would disturb the
// shared servers other tests use: kill -9, small limits, auth.
type ScriptServer struct {
	// StartScript and StopScript are relative to the repository root;
	// Args are the arguments of both (e.g. --version 3).
	StartScript, StopScript string
	Args                    []string
	// Env is added to the scripts' environment.
	Env     []string
	PIDFile string
	// NoBinary is what the start script says when there is no server
	// binary: such a failure skips the test (fails it under CI); any other
	// fails it.
	NoBinary string
	// State and Port are the state directory and port of PrivateServer.
	State string
	Port  int
}

// PrivateServer is a ScriptServer for the scripts that read their state
// directory from TSLOAD_STATE and the server's name and port from
// <vars>_NAME and <vars>_PORT: a state directory of its own (removed when
// the test ends) and a port p with p-below to p+above free as well
// (FreePortRun), for a server that listens on several ports next to each
// other. The caller names the scripts and the pid file, then calls Run.
func PrivateServer(t testing.TB, vars, name string, below, above int) *ScriptServer {
	t.Helper()
	port, err := FreePortRun(below, above)
	if err != nil {
		t.Fatal(err)
	}
	s := &ScriptServer{State: t.TempDir(), Port: port}
	s.Env = []string{"TSLOAD_STATE=" + s.State, vars + "_NAME=" + name, vars + "_PORT=" + strconv.Itoa(port)}
	return s
}

// Run starts the server and stops it when the test ends.
func (s *ScriptServer) Run(t testing.TB) {
	t.Helper()
	if err := s.Start(); err != nil {
		if s.NoBinary != "" && strings.Contains(err.Error(), s.NoBinary) {
			SkipOrFail(t, err.Error(), "under CI: "+err.Error())
		}
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.script(s.StopScript); err != nil {
			t.Error(err)
		}
	})
}

// Start runs the start script: it starts the server (again, on its data).
// It may be called from any goroutine: it reports failure as an error.
func (s *ScriptServer) Start() error { return s.script(s.StartScript) }

func (s *ScriptServer) script(rel string) error {
	root, err := RepoRoot()
	if err != nil {
		return err
	}
	cmd := exec.Command("bash", append([]string{filepath.Join(root, rel)}, s.Args...)...)
	cmd.Env = append(os.Environ(), s.Env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %v\n%s", strings.Join(append([]string{rel}, s.Args...), " "), err, out)
	}
	return nil
}

// Kill sends SIGKILL (no clean shutdown) to the process of PIDFile, waits
// until it is gone, and removes PIDFile: a killed server may stay a zombie
// (where nothing reaps orphans), which the start script would take for a
// running one. It may be called from any goroutine.
func (s *ScriptServer) Kill() error {
	raw, err := os.ReadFile(s.PIDFile)
	if err != nil {
		return err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		return fmt.Errorf("%s: %w", s.PIDFile, err)
	}
	if err := KillPID(pid); err != nil {
		return err
	}
	return os.Remove(s.PIDFile)
}
