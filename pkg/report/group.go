package report

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/tsload/tsload/pkg/results"
)

// settingKeys are the settings that bear on a comparison between
// databases: the group keys DefaultGroup adds when they differ between
// runs, and what Differs compares across targets. Each maps to the
// recorded setting or flag that holds it.
var settingKeys = []struct{ key, name string }{
	{"batch_size", ""},
	{"workers", ""},
	{"gzip", "gzip"},
	{"dedup", "dedup"},
	{"request_timeout", "request-timeout"},
}

// setting is a run's value of a comparison setting as text: what the
// target reported it applied (Results.Setup, schema version 2), else the
// recorded flag (older files), else "" (not recorded, or does not apply).
func setting(r Run, name string) string {
	if r.Setup != nil {
		if v, ok := r.Setup.Settings[name]; ok {
			return flagValue(v)
		}
	}
	return flagValue(r.Flags[name])
}

// apiOf is the API a run used: as the target reported it, else the --api
// flag (load_influx, before schema version 2).
func apiOf(r Run) string {
	if r.Setup != nil && r.Setup.API != "" {
		return r.Setup.API
	}
	return flagValue(r.Flags["api"])
}

// serverNoise is what a server version string says beyond the version: a
// parenthesized build note, the JVM, a commit hash or revision (CnosDB's
// "revision UNKNOWN").
var serverNoise = regexp.MustCompile(`\s*\([^)]*\)|,\s*(JDK|Commit Hash|revision)[^,]*`)

// serverKey is a run's server in a few words: "QuestDB 9.3.4",
// "PostgreSQL 15.8, TimescaleDB 2.28.3", "InfluxDB 1.6.7" ("" when not
// recorded).
func serverKey(r Run) string {
	if r.Environment == nil || r.Environment.Server.Version == "" {
		return ""
	}
	return strings.TrimSpace(serverNoise.ReplaceAllString(r.Environment.Server.Version, ""))
}

// datasetKey is a run's dataset as a group key: what it was generated from
// (use case, scale, seed, time range, shard, row cap, disorder) and its
// rows, or for an input without a description the rows read by a run
// that read it all. The format and its bytes are left out: one dataset as
// ILP and as pgcopy is one comparison. "" when not recorded.
func datasetKey(r Run) string {
	if r.Environment == nil {
		return ""
	}
	d := r.Environment.Dataset
	head := datasetHead(d)
	if d.Disorder != nil {
		head = append(head, fmt.Sprintf("disorder %+v", *d.Disorder))
	}
	if d.Source != "generate_data" && len(head) == 0 {
		if r.Status != results.StatusOK || d.Rows == 0 {
			return "" // rows read by a run that stopped are not the input's
		}
		return "input of " + thousands(float64(d.Rows)) + " rows"
	}
	s := strings.Join(head, ", ")
	if d.Rows > 0 {
		s += ": " + thousands(float64(d.Rows)) + " rows"
	}
	return s
}

// DefaultGroup is the grouping of `report table`, `report bars` and
// `report html` when none is given: one cell per dataset (when the runs
// loaded more than one), target, server version and API (those that some
// run recorded), and per value of every comparison setting (batch size,
// workers, gzip, dedup, request timeout) that differs between runs of one
// target.
// Runs of different servers are never summarised together: the InfluxDB
// 1.6.7 and 2.7.12 runs of one target name make two rows. Nor are runs of
// different datasets: 3,600 and 192,472 rows make two rows, not one median.
func DefaultGroup(runs []Run) []string {
	keys := []string{"target"}
	datasets := map[string]bool{}
	for _, r := range runs {
		if k := datasetKey(r); k != "" {
			datasets[k] = true
		}
	}
	if len(datasets) > 1 {
		keys = []string{"dataset", "target"}
	}
	for _, r := range runs {
		if serverKey(r) != "" {
			keys = append(keys, "server")
			break
		}
	}
	// A setting is a key when it splits the runs of one target; one that
	// differs only between targets adds no row (Differs says it), and a
	// run that did not record it joins its target's others.
	varies := func(key string) bool {
		seen := map[string]string{}
		for _, r := range runs {
			v := keyValue(key, r)
			if v == "" {
				continue
			}
			if first, ok := seen[r.Target]; ok && first != v {
				return true
			}
			seen[r.Target] = v
		}
		return false
	}
	for _, r := range runs {
		if apiOf(r) != "" {
			keys = append(keys, "api")
			break
		}
	}
	for _, s := range settingKeys {
		if varies(s.key) {
			keys = append(keys, s.key)
		}
	}
	return keys
}

// Differs lists the comparison settings that runs of different targets
// used with different values, one "name: target value, ..." per setting,
// e.g. "gzip: influx true, questdb false". A comparison of such runs
// measures the settings too. Nil when the targets agree (or there is one).
func Differs(runs []Run) []string {
	targets := map[string]bool{}
	for _, r := range runs {
		targets[r.Target] = true
	}
	if len(targets) < 2 {
		return nil
	}
	var out []string
	for _, s := range settingKeys {
		perTarget := map[string][]string{}
		values := map[string]bool{}
		for _, r := range runs {
			v := keyValue(s.key, r)
			if v == "" {
				continue // not recorded, or does not apply
			}
			values[v] = true
			if !slices.Contains(perTarget[r.Target], v) {
				perTarget[r.Target] = append(perTarget[r.Target], v)
			}
		}
		if len(values) < 2 || len(perTarget) < 2 {
			continue
		}
		names := make([]string, 0, len(perTarget))
		for t := range perTarget {
			names = append(names, t)
		}
		sort.Strings(names)
		parts := make([]string, len(names))
		for i, t := range names {
			parts[i] = t + " " + strings.Join(perTarget[t], "/")
		}
		title := GroupKeys[s.key]
		out = append(out, title+": "+strings.Join(parts, ", "))
	}
	return out
}

// fillUnrecorded gives a run that did not record its server, API or a
// setting (a
// results file written for a loader that died before it asked) the one
// that the other runs of its target recorded, so that it joins their cell
// (and fails it) instead of making a row of its own.
func fillUnrecorded(runs []Run, keys []string, values [][]string) {
	for i, key := range keys {
		switch key {
		case "dataset", "server", "api", "gzip", "dedup", "request_timeout":
		default:
			continue
		}
		known := map[string]map[string]bool{} // target -> values
		for j, r := range runs {
			if v := values[j][i]; v != "" {
				if known[r.Target] == nil {
					known[r.Target] = map[string]bool{}
				}
				known[r.Target][v] = true
			}
		}
		for j, r := range runs {
			if values[j][i] != "" || len(known[r.Target]) != 1 {
				continue
			}
			for v := range known[r.Target] {
				values[j][i] = v
			}
		}
	}
}
