// Package promtext reads samples from the Prometheus text exposition
// format, which InfluxDB 2.x and CnosDB serve on /metrics: the targets
// read their storage figures there (load.Target.Footprint). Only what those
// need: metric name, labels, value; comments, timestamps and other
// metrics are skipped.
package promtext

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Sample is one line of a metric.
type Sample struct {
	Labels map[string]string
	Value  float64
}

// Samples returns the samples of the metrics named in names, in the order
// of the exposition. A malformed line of one of them is an error naming
// it; lines of other metrics are not parsed.
func Samples(body []byte, names ...string) ([]Sample, error) {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var out []Sample
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for ln := 1; sc.Scan(); ln++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		end := bytes.IndexAny(line, "{ \t")
		if end < 0 {
			end = len(line) // a name alone: no value
		}
		if !want[string(line[:end])] {
			continue
		}
		if end == len(line) {
			return nil, fmt.Errorf("line %d: %q: no value", ln, line)
		}
		s := Sample{Labels: map[string]string{}}
		rest := line[end:]
		if rest[0] == '{' {
			close := labelsEnd(rest)
			if close < 0 {
				return nil, fmt.Errorf("line %d: %q: labels not closed", ln, line)
			}
			var err error
			if s.Labels, err = parseLabels(string(rest[1:close])); err != nil {
				return nil, fmt.Errorf("line %d: %q: %w", ln, line, err)
			}
			rest = rest[close+1:]
		}
		f := strings.Fields(string(rest))
		if len(f) == 0 {
			return nil, fmt.Errorf("line %d: %q: no value", ln, line)
		}
		v, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			return nil, fmt.Errorf("line %d: %q: value: %w", ln, line, err)
		}
		s.Value = v
		out = append(out, s)
	}
	return out, sc.Err()
}

// labelsEnd is the index of the '}' closing the label set b starts with,
// outside quoted values; -1 when there is none.
func labelsEnd(b []byte) int {
	quoted := false
	for i := 1; i < len(b); i++ {
		switch {
		case quoted && b[i] == '\\':
			i++
		case b[i] == '"':
			quoted = !quoted
		case !quoted && b[i] == '}':
			return i
		}
	}
	return -1
}

// parseLabels reads `a="x",b="y"` (values may hold \", \\ and \n).
func parseLabels(s string) (map[string]string, error) {
	out := map[string]string{}
	for s = strings.TrimSpace(s); len(s) > 0; s = strings.TrimSpace(s) {
		eq := strings.IndexByte(s, '=')
		if eq <= 0 || eq+1 >= len(s) || s[eq+1] != '"' {
			return nil, fmt.Errorf("label %q: want name=\"value\"", s)
		}
		name := strings.TrimSpace(s[:eq])
		var v strings.Builder
		i := eq + 2
		for ; i < len(s) && s[i] != '"'; i++ {
			if s[i] == '\\' && i+1 < len(s) {
				i++
				if s[i] == 'n' {
					v.WriteByte('\n')
					continue
				}
			}
			v.WriteByte(s[i])
		}
		if i >= len(s) {
			return nil, fmt.Errorf("label %s: unterminated value", name)
		}
		out[name] = v.String()
		s = strings.TrimPrefix(strings.TrimSpace(s[i+1:]), ",")
	}
	return out, nil
}
