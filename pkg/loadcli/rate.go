package loadcli

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/pace"
)

// paceConfig maps the rate flags.
func paceConfig(c *cli.Context) (pace.Pace, error) {
	var p pace.Pace
	var err error
	if s := c.String(FlagRate); s != "" {
		if p.Rate, err = parseRate(s); err != nil {
			return p, fmt.Errorf("--%s %s: %w", FlagRate, s, err)
		}
	}
	if s := c.String(FlagRateSteps); s != "" {
		if p.Rate > 0 {
			return p, fmt.Errorf("--%s and --%s are exclusive: a staircase starts at its own rate", FlagRate, FlagRateSteps)
		}
		if p.Steps, err = parseSteps(s); err != nil {
			return p, fmt.Errorf("--%s %s: %w", FlagRateSteps, s, err)
		}
	}
	if s := c.String(FlagSLO); s != "" {
		if !p.On() {
			return p, fmt.Errorf("--%s needs --%s or --%s", FlagSLO, FlagRate, FlagRateSteps)
		}
		if p.SLO, err = parseSLO(s); err != nil {
			return p, fmt.Errorf("--%s %s: %w", FlagSLO, s, err)
		}
	}
	return p, p.Validate()
}

// parseRate reads a positive rows/s figure, with an optional k (1e3) or M
// (1e6) suffix.
func parseRate(s string) (float64, error) {
	mult := 1.0
	switch {
	case strings.HasSuffix(s, "k"), strings.HasSuffix(s, "K"):
		mult, s = 1e3, s[:len(s)-1]
	case strings.HasSuffix(s, "M"):
		mult, s = 1e6, s[:len(s)-1]
	}
	v, err := strconv.ParseFloat(s, 64)
	v *= mult
	if err != nil || v <= 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("want a positive number of rows per second (200000, 200k, 1.5M)")
	}
	return v, nil
}

// parseSteps reads START,STEP,EVERY[,MAX].
func parseSteps(s string) (pace.Steps, error) {
	var st pace.Steps
	parts := strings.Split(s, ",")
	if len(parts) != 3 && len(parts) != 4 {
		return st, fmt.Errorf("want START,STEP,EVERY[,MAX] (e.g. 10k,10k,30s,200k), got %d fields", len(parts))
	}
	var err error
	if st.Start, err = parseRate(parts[0]); err != nil {
		return st, fmt.Errorf("START: %w", err)
	}
	if st.Step, err = parseRate(parts[1]); err != nil {
		return st, fmt.Errorf("STEP: %w", err)
	}
	if st.Every, err = time.ParseDuration(parts[2]); err != nil || st.Every < pace.MinStep {
		return st, fmt.Errorf("EVERY: want a duration of at least %s (30s), got %q", pace.MinStep, parts[2])
	}
	if len(parts) == 4 {
		if st.Max, err = parseRate(parts[3]); err != nil {
			return st, fmt.Errorf("MAX: %w", err)
		}
		if st.Max < st.Start {
			return st, fmt.Errorf("MAX %s is below START %s", parts[3], parts[0])
		}
	}
	return st, nil
}

// parseSLO reads pQ=D (p99=100ms, p99.9=1s).
func parseSLO(s string) (pace.SLO, error) {
	var slo pace.SLO
	q, d, ok := strings.Cut(s, "=")
	if !ok || !strings.HasPrefix(q, "p") {
		return slo, fmt.Errorf("want pQ=D, e.g. p99=100ms")
	}
	v, err := strconv.ParseFloat(q[1:], 64)
	if err != nil || v <= 0 || v >= 100 {
		return slo, fmt.Errorf("quantile %q: want p followed by a percentage between 0 and 100 (p99, p99.9)", q)
	}
	b, err := time.ParseDuration(d)
	if err != nil || b <= 0 {
		return slo, fmt.Errorf("bound %q: want a positive duration (100ms)", d)
	}
	return pace.SLO{Quantile: v, Bound: b}, nil
}
