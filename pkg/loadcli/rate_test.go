package loadcli

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/pace"
	"github.com/tsload/tsload/pkg/runner"
)

func TestRateFlags(t *testing.T) {
	path := writeILP(t)
	for _, tc := range []struct {
		args []string
		want pace.Pace
	}{
		{[]string{"--rate", "200k"}, pace.Pace{Rate: 200000}},
		{[]string{"--rate", "1.5M", "--slo", "p99.9=250ms"}, pace.Pace{Rate: 1.5e6, SLO: pace.SLO{Quantile: 99.9, Bound: 250 * time.Millisecond}}},
		{[]string{"--rate-steps", "10k,5000,30s,50k", "--slo", "p99=100ms"},
			pace.Pace{Steps: pace.Steps{Start: 1e4, Step: 5000, Every: 30 * time.Second, Max: 5e4}, SLO: pace.SLO{Quantile: 99, Bound: 100 * time.Millisecond}}},
		{[]string{"--rate-steps", "1000,1000,1s"}, pace.Pace{Steps: pace.Steps{Start: 1000, Step: 1000, Every: time.Second}}},
	} {
		var calls int
		var cfg runner.Config
		args := append([]string{"load_test", "--file", path, "--do-load=false"}, tc.args...)
		if err := Run(context.Background(), spec(&calls, &cfg), args, nil, io.Discard); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if cfg.Pace != tc.want {
			t.Errorf("%v: pace %+v, want %+v", tc.args, cfg.Pace, tc.want)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--rate", "0"}, "--rate 0: want a positive number"},
		{[]string{"--rate", "fast"}, "--rate fast: want a positive number"},
		{[]string{"--rate", "1e308M"}, "want a positive number"},
		{[]string{"--rate-steps", "1,1,1ms"}, "EVERY: want a duration of at least 10ms"},
		{[]string{"--rate", "1000", "--rate-steps", "1,1,1s"}, "exclusive"},
		{[]string{"--rate-steps", "1000,1000"}, "START,STEP,EVERY[,MAX]"},
		{[]string{"--rate-steps", "1000,1000,soon"}, "EVERY: want a duration of at least 10ms"},
		{[]string{"--rate-steps", "1000,0,1s"}, "STEP: want a positive number"},
		{[]string{"--rate-steps", "5000,1000,1s,1000"}, "MAX 1000 is below START 5000"},
		{[]string{"--slo", "p99=1s"}, "--slo needs --rate or --rate-steps"},
		{[]string{"--rate", "1k", "--slo", "99=1s"}, "want pQ=D"},
		{[]string{"--rate", "1k", "--slo", "p100=1s"}, "quantile \"p100\""},
		{[]string{"--rate", "1k", "--slo", "p99=-1s"}, "bound \"-1s\""},
	} {
		var calls int
		err := Run(context.Background(), spec(&calls, nil), append([]string{"load_test", "--file", path, "--do-load=false"}, tc.args...), nil, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want %q", tc.args, err, tc.want)
		}
	}
}

// TestRateDoLoadFalse: --rate paces a run that loads nothing, too (the
// loader's own overhead at a rate), and the summary says what was offered.
func TestRateDoLoadFalse(t *testing.T) {
	path := writeILP(t)
	var calls int
	var stderr strings.Builder
	err := Run(context.Background(), spec(&calls, nil), []string{"load_test", "--file", path, "--do-load=false", "--batch-size", "100", "--rate", "10k"}, nil, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "paced: offered") || !strings.Contains(stderr.String(), "latency from due ms") {
		t.Errorf("summary:\n%s", stderr.String())
	}
}

// FuzzRateFlags: the rate flags' parsers never panic, and what they accept
// is a valid pace.
func FuzzRateFlags(f *testing.F) {
	for _, s := range []string{"200k", "1.5M", "10k,5000,30s,50k", "1,1,1ns", "p99=100ms", "p99.9=1s", "0", "-1k", "1e308M", "NaN", "Inf", ",,,", "p=1s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if v, err := parseRate(s); err == nil {
			if err := (pace.Pace{Rate: v}).Validate(); err != nil {
				t.Fatalf("parseRate(%q) = %v, invalid: %v", s, v, err)
			}
		}
		if st, err := parseSteps(s); err == nil {
			if err := (pace.Pace{Steps: st}).Validate(); err != nil {
				t.Fatalf("parseSteps(%q) = %+v, invalid: %v", s, st, err)
			}
		}
		if slo, err := parseSLO(s); err == nil {
			if err := (pace.Pace{Rate: 1, SLO: slo}).Validate(); err != nil {
				t.Fatalf("parseSLO(%q) = %+v, invalid: %v", s, slo, err)
			}
		}
	})
}
