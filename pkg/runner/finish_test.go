package runner

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/load"
)

// finishingTarget is a fakeTarget with a Finish hook: it records when
// Finish ran relative to the writes and the counts.
type finishingTarget struct {
	*fakeTarget
	mu        sync.Mutex
	events    []string
	finishErr error
	finishFor time.Duration
}

func (f *finishingTarget) Hooks() load.Hooks { return load.Hooks{Finish: f.Finish} }

func (f *finishingTarget) Finish(ctx context.Context) error {
	f.fakeTarget.mu.Lock()
	var rows int64
	for _, n := range f.rows {
		rows += n
	}
	f.fakeTarget.mu.Unlock()
	f.mu.Lock()
	f.events = append(f.events, "finish:"+strconv.FormatInt(rows, 10))
	f.mu.Unlock()
	if f.finishFor > 0 {
		time.Sleep(f.finishFor)
	}
	return f.finishErr
}

func (f *finishingTarget) Count(ctx context.Context, tables []string) (map[string]int64, error) {
	f.mu.Lock()
	f.events = append(f.events, "count")
	f.mu.Unlock()
	return f.fakeTarget.Count(ctx, tables)
}

func TestFinisher(t *testing.T) {
	disk := errors.New("disk full (server)")
	tests := []struct {
		name       string
		doLoad     bool
		verify     bool
		fail       func(b *load.Batch, attempt int) (load.Ack, error)
		skip       bool
		finishErr  error
		wantEvents string
		wantErr    string
	}{
		{name: "after the last batch, before count", doLoad: true, verify: true, wantEvents: "count finish:3000 count"},
		{name: "without verify", doLoad: true, wantEvents: "finish:3000"},
		{name: "not without do-load", doLoad: false, verify: true, wantEvents: ""},
		{name: "not after a failed batch", doLoad: true, verify: true,
			fail: func(b *load.Batch, attempt int) (load.Ack, error) {
				if b.Seq == 2 {
					return load.Ack{}, disk
				}
				return load.Ack{Rows: b.Rows}, nil
			}, wantEvents: "count", wantErr: "disk full"},
		{name: "not after rejected rows", doLoad: true, verify: true,
			fail: func(b *load.Batch, attempt int) (load.Ack, error) {
				return load.Ack{Rows: b.Rows - 1, Dropped: 1}, nil
			}, wantEvents: "count", wantErr: "rows rejected by the server"},
		{name: "after rejected rows with skip-invalid", doLoad: true, verify: false, skip: true,
			fail: func(b *load.Batch, attempt int) (load.Ack, error) {
				return load.Ack{Rows: b.Rows - 1, Dropped: 1}, nil
			}, wantEvents: "finish:2997"},
		{name: "its error fails the run", doLoad: true, verify: true, finishErr: errors.New("creating index: no space"),
			wantEvents: "count finish:3000", wantErr: "finish (after the last batch): creating index: no space"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, _ := ilpInput(t, 3000)
			f := &finishingTarget{fakeTarget: newFake(), finishErr: tt.finishErr}
			f.fail = tt.fail
			cfg := baseConfig(path)
			cfg.Workers = 1
			cfg.DoLoad, cfg.Verify, cfg.SkipInvalid = tt.doLoad, tt.verify, tt.skip
			res, err := Run(context.Background(), cfg, f)
			if tt.wantErr == "" && err != nil {
				t.Fatal(err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("err %v, want %q", err, tt.wantErr)
			}
			if got := strings.Join(f.events, " "); got != tt.wantEvents {
				t.Errorf("events %q, want %q", got, tt.wantEvents)
			}
			if tt.wantErr != "" && res.Status != load.StatusFailed {
				t.Errorf("status %s", res.Status)
			}
		})
	}
}

// TestFinishTimeIsLoadTime: the time Finish takes is part of the load's
// wall time.
func TestFinishTimeIsLoadTime(t *testing.T) {
	path, _ := ilpInput(t, 100)
	f := &finishingTarget{fakeTarget: newFake(), finishFor: 300 * time.Millisecond}
	res, err := Run(context.Background(), baseConfig(path), f)
	if err != nil {
		t.Fatal(err)
	}
	if res.Seconds < 0.3 || res.FinishSeconds < 0.3 || res.FinishSeconds > res.Seconds {
		t.Fatalf("load took %.3fs, Finish %.3fs, want at least %s", res.Seconds, res.FinishSeconds, f.finishFor)
	}
}

// slowSetupTarget takes its time in Prepare and reports figures of its own.
type slowSetupTarget struct {
	*fakeTarget
	setup time.Duration
}

func (s *slowSetupTarget) Prepare(ctx context.Context, opts load.PrepareOptions) error {
	time.Sleep(s.setup)
	return s.fakeTarget.Prepare(ctx, opts)
}

func (s *slowSetupTarget) Hooks() load.Hooks { return load.Hooks{Report: s.Report} }

func (s *slowSetupTarget) Report() map[string]float64 {
	return map[string]float64{"compress_seconds": 1.25, "size_after_bytes": 4096}
}

// TestSetupTimeIsNotLoadTime: Prepare's time is reported apart and not in
// the load's rate; a target's own figures reach the results and summary.
func TestSetupTimeIsNotLoadTime(t *testing.T) {
	path, _ := ilpInput(t, 100)
	tg := &slowSetupTarget{fakeTarget: newFake(), setup: 300 * time.Millisecond}
	var stderr strings.Builder
	cfg := baseConfig(path)
	cfg.Stderr = &stderr
	res, err := Run(context.Background(), cfg, tg)
	if err != nil {
		t.Fatal(err)
	}
	if res.SetupSeconds < 0.3 || res.Seconds >= 0.3 {
		t.Fatalf("set-up %.3fs, load %.3fs; want set-up >= 0.3s and the load without it", res.SetupSeconds, res.Seconds)
	}
	if res.TargetReport["size_after_bytes"] != 4096 || res.TargetReport["compress_seconds"] != 1.25 {
		t.Fatalf("target report %v", res.TargetReport)
	}
	for _, want := range []string{"set-up 0.3", "target: compress_seconds 1.250 size_after_bytes 4096\n"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, stderr.String())
		}
	}
}
