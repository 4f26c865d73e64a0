// Package kubernetes holds no code: its tests check the manifests in this
// directory (a strict decode of the fields they use, the Indexed Job's
// shard arithmetic) and run the pods' shell command locally as M processes.
package kubernetes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/tsload/tsload/pkg/report"
)

// The subset of the Kubernetes API the manifests use. Decoding is strict
// (unknown fields are errors), so a misspelt or misplaced field fails here
// instead of being silently dropped by the API server's defaulting.
type meta struct {
	Name   string            `yaml:"name"`
	Labels map[string]string `yaml:"labels"`
}

type envVar struct {
	Name  string `yaml:"name"`
	Value string `yaml:"value"`
}

type container struct {
	Name            string   `yaml:"name"`
	Image           string   `yaml:"image"`
	ImagePullPolicy string   `yaml:"imagePullPolicy"`
	Env             []envVar `yaml:"env"`
	Command         []string `yaml:"command"`
	Args            []string `yaml:"args"`
	Resources       struct {
		Requests map[string]string `yaml:"requests"`
		Limits   map[string]string `yaml:"limits"`
	} `yaml:"resources"`
	VolumeMounts []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
	} `yaml:"volumeMounts"`
}

type job struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   meta   `yaml:"metadata"`
	Spec       struct {
		CompletionMode          string `yaml:"completionMode"`
		Completions             *int   `yaml:"completions"`
		Parallelism             *int   `yaml:"parallelism"`
		BackoffLimit            *int   `yaml:"backoffLimit"`
		TTLSecondsAfterFinished *int   `yaml:"ttlSecondsAfterFinished"`
		Template                struct {
			Metadata meta `yaml:"metadata"`
			Spec     struct {
				RestartPolicy   string      `yaml:"restartPolicy"`
				Containers      []container `yaml:"containers"`
				SecurityContext struct {
					FSGroup *int `yaml:"fsGroup"`
				} `yaml:"securityContext"`
				Volumes []struct {
					Name                  string `yaml:"name"`
					PersistentVolumeClaim *struct {
						ClaimName string `yaml:"claimName"`
					} `yaml:"persistentVolumeClaim"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type pvc struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   meta   `yaml:"metadata"`
	Spec       struct {
		AccessModes []string `yaml:"accessModes"`
		Resources   struct {
			Requests map[string]string `yaml:"requests"`
		} `yaml:"resources"`
	} `yaml:"spec"`
}

func decodeStrict(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

var dnsName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

func env(c container, name string) (string, bool) {
	for _, e := range c.Env {
		if e.Name == name {
			return e.Value, true
		}
	}
	return "", false
}

// checkJob checks what every Job here needs and returns its container.
func checkJob(t *testing.T, path string, j *job, claim string) container {
	t.Helper()
	decodeStrict(t, path, j)
	if j.APIVersion != "batch/v1" || j.Kind != "Job" {
		t.Errorf("%s: %s %s, want batch/v1 Job", path, j.APIVersion, j.Kind)
	}
	if !dnsName.MatchString(j.Metadata.Name) || len(j.Metadata.Name) > 63 {
		t.Errorf("%s: name %q is not a DNS label", path, j.Metadata.Name)
	}
	ps := j.Spec.Template.Spec
	if ps.RestartPolicy != "Never" && ps.RestartPolicy != "OnFailure" {
		t.Errorf("%s: restartPolicy %q (a Job needs Never or OnFailure)", path, ps.RestartPolicy)
	}
	if len(ps.Containers) != 1 {
		t.Fatalf("%s: %d containers", path, len(ps.Containers))
	}
	c := ps.Containers[0]
	if c.Image == "" || !dnsName.MatchString(c.Name) {
		t.Errorf("%s: container %q image %q", path, c.Name, c.Image)
	}
	if len(c.Command) != 2 || c.Command[0] != "/bin/bash" || c.Command[1] != "-c" || len(c.Args) != 1 {
		t.Fatalf("%s: command %q args %d: want /bin/bash -c SCRIPT", path, c.Command, len(c.Args))
	}
	if !strings.HasPrefix(c.Args[0], "set -euo pipefail\n") {
		t.Errorf("%s: the script does not start with set -euo pipefail", path)
	}
	bashN := exec.Command("bash", "-n")
	bashN.Stdin = strings.NewReader(c.Args[0])
	if out, err := bashN.CombinedOutput(); err != nil {
		t.Errorf("%s: bash -n: %v\n%s", path, err, out)
	}
	mounted := map[string]string{}
	for _, m := range c.VolumeMounts {
		mounted[m.Name] = m.MountPath
	}
	found := false
	for _, v := range ps.Volumes {
		if v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == claim {
			found = mounted[v.Name] == "/results"
		}
	}
	if !found {
		t.Errorf("%s: claim %s is not mounted at /results", path, claim)
	}
	return c
}

func TestManifests(t *testing.T) {
	var claim pvc
	decodeStrict(t, "results-pvc.yaml", &claim)
	if claim.APIVersion != "v1" || claim.Kind != "PersistentVolumeClaim" || claim.Spec.Resources.Requests["storage"] == "" || len(claim.Spec.AccessModes) == 0 {
		t.Errorf("results-pvc.yaml: %+v", claim)
	}

	var load job
	c := checkJob(t, "load-job.yaml", &load, claim.Metadata.Name)
	s := load.Spec
	if s.CompletionMode != "Indexed" {
		t.Errorf("completionMode %q, want Indexed (pods need JOB_COMPLETION_INDEX)", s.CompletionMode)
	}
	shards, ok := env(c, "SHARDS")
	m, err := strconv.Atoi(shards)
	if !ok || err != nil || m < 1 {
		t.Fatalf("SHARDS env %q", shards)
	}
	if s.Completions == nil || s.Parallelism == nil || *s.Completions != m || *s.Parallelism != m {
		t.Errorf("completions %v, parallelism %v, SHARDS %d: all three must agree", s.Completions, s.Parallelism, m)
	}
	script := c.Args[0]
	for _, want := range []string{`"${JOB_COMPLETION_INDEX:?`, `--shard "${i}/${SHARDS}"`, "generate_data ", "| \n", "--results-file \"/results/shard-${i}.json\""} {
		if want == "| \n" {
			if !regexp.MustCompile(`\|\s*\n\s*load_[a-z]+ `).MatchString(script) {
				t.Error("generate_data is not piped into a load_ command")
			}
			continue
		}
		if !strings.Contains(script, want) {
			t.Errorf("load-job script lacks %q", want)
		}
	}
	if strings.Contains(script, "--drop-db") {
		t.Error("load-job drops the database: a late pod would drop the others' rows")
	}

	var merge job
	mc := checkJob(t, "merge-job.yaml", &merge, claim.Metadata.Name)
	if !strings.Contains(mc.Args[0], "report merge /results/shard-*.json > /results/merged.json") {
		t.Errorf("merge-job script: %s", mc.Args[0])
	}
	if merge.Spec.CompletionMode != "" || merge.Metadata.Name == load.Metadata.Name {
		t.Errorf("merge job: mode %q name %q", merge.Spec.CompletionMode, merge.Metadata.Name)
	}
}

// podScript is load-job.yaml's command with /results moved to dir.
func podScript(t *testing.T, dir string) (script string, c container) {
	var j job
	decodeStrict(t, "load-job.yaml", &j)
	c = j.Spec.Template.Spec.Containers[0]
	return strings.ReplaceAll(c.Args[0], "/results/", dir+"/"), c
}

// TestPodsLocally runs the Job's pod command as M local processes, one per
// completion index, with the real generate_data and load_influx, and merges
// the results files: the shards together must hold exactly the rows of the
// unsharded dataset, and the merge must sum them. "client" loads with
// --do-load=false (no server: read, split and count); "influx" loads into
// the real server ($TSLOAD_INFLUX_URL) at once and counts the database.
func TestPodsLocally(t *testing.T) {
	root, _ := filepath.Abs("../..")
	for _, cmd := range []string{"generate_data", "load_influx"} {
		if _, err := os.Stat(filepath.Join(root, "cmd", cmd)); err != nil {
			t.Skipf("cmd/%s not in the tree yet", cmd)
		}
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", bin+"/", "./cmd/generate_data", "./cmd/load_influx")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// The whole dataset, unsharded: 7 hosts x 360 epochs of cpu rows.
	gen := exec.Command(filepath.Join(bin, "generate_data"), "--use-case", "cpu-only", "--seed", "123", "--scale", "7",
		"--timestamp-start", "2026-01-01T00:00:00Z", "--timestamp-end", "2026-01-01T01:00:00Z", "--log-interval", "10s", "--format", "ilp")
	whole, err := gen.Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := int64(bytes.Count(whole, []byte("\n")))
	if lines != 7*360 {
		t.Fatalf("unsharded dataset has %d lines, want %d", lines, 7*360)
	}

	t.Run("client", func(t *testing.T) {
		merged, runs := runPods(t, bin, "http://127.0.0.1:1", "k8s_local", "--do-load=false")
		if merged.Status != "ok" || merged.RowsRead != lines {
			t.Errorf("merged: status %s (%s), rows read %d, want %d", merged.Status, merged.Error, merged.RowsRead, lines)
		}
		for i, r := range runs {
			if r.RowsRead == 0 || r.RowsRead == lines {
				t.Errorf("shard %d read %d of %d rows: not a share", i, r.RowsRead, lines)
			}
		}
	})

	t.Run("influx", func(t *testing.T) {
		url := os.Getenv("TSLOAD_INFLUX_URL")
		if url == "" {
			url = "http://127.0.0.1:8086"
		}
		if resp, err := http.Get(url + "/ping"); err != nil || resp.StatusCode != http.StatusNoContent {
			if os.Getenv("CI") != "" {
				t.Fatalf("InfluxDB at %s unreachable under CI: %v", url, err)
			}
			t.Skipf("InfluxDB at %s unreachable: %v", url, err)
		}
		db := fmt.Sprintf("tsload_k8s_%d_%d", os.Getpid(), time.Now().UnixNano())
		defer http.PostForm(url+"/query", neturl.Values{"q": {"DROP DATABASE " + db}})
		merged, _ := runPods(t, bin, url, db, "")
		if merged.Status != "ok" || merged.Rows != lines {
			t.Errorf("merged: status %s (%s), rows %d, want %d", merged.Status, merged.Error, merged.Rows, lines)
		}
		resp, err := http.PostForm(url+"/query", neturl.Values{"db": {db}, "q": {"SELECT count(usage_user) FROM cpu"}})
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out struct {
			Results []struct {
				Series []struct {
					Values [][]any `json:"values"`
				} `json:"series"`
			} `json:"results"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		if len(out.Results) != 1 || len(out.Results[0].Series) != 1 || len(out.Results[0].Series[0].Values) != 1 {
			t.Fatalf("count answer %+v", out)
		}
		if n, _ := out.Results[0].Series[0].Values[0][1].(float64); int64(n) != lines {
			t.Errorf("database holds %v cpu rows, want %d", n, lines)
		}
	})
}

// runPods runs every completion index of load-job.yaml's pod command at once
// (shrunk to 7 hosts and one hour) and merges the results.
func runPods(t *testing.T, bin, urls, db, extra string) (*report.Merged, []report.Run) {
	t.Helper()
	dir := t.TempDir()
	script, c := podScript(t, dir)
	script = strings.Replace(script, "--scale 4000", "--scale 7", 1)
	script = strings.Replace(script, "--timestamp-end 2026-01-02T00:00:00Z", "--timestamp-end 2026-01-01T01:00:00Z", 1)
	shards, _ := env(c, "SHARDS")
	m, _ := strconv.Atoi(shards)
	var wg sync.WaitGroup
	errs := make([]error, m)
	outs := make([][]byte, m)
	for i := 0; i < m; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			cmd := exec.Command("bash", "-c", script)
			cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i),
				"SHARDS="+shards, "TSLOAD_URLS="+urls, "DB_NAME="+db, "EXTRA_LOAD_FLAGS="+extra)
			outs[i], errs[i] = cmd.CombinedOutput()
		}(i)
	}
	wg.Wait()
	var files []string
	for i := 0; i < m; i++ {
		if errs[i] != nil {
			t.Fatalf("pod %d: %v\n%s", i, errs[i], outs[i])
		}
		files = append(files, filepath.Join(dir, fmt.Sprintf("shard-%d.json", i)))
	}
	runs, err := report.ReadFiles(files)
	if err != nil {
		t.Fatal(err)
	}
	merged, err := report.MergeRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	if merged.Merge.Shards != m {
		t.Errorf("merged %d shards, want %d", merged.Merge.Shards, m)
	}
	return merged, runs
}
