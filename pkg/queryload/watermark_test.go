package queryload

import (
	"context"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/gen"
)

// generatedAs writes a generated line-protocol file of that name (".gz":
// gzip members), with its description.
func generatedAs(t testing.TB, name, uc string, scale int, span time.Duration) (string, int64) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	start := time.Date(2016, 1, 1, 0, 0, 0, 0, time.UTC)
	st, err := gen.Generate(context.Background(), gen.Config{UseCase: uc, Format: format.ILP, Seed: 38, Scale: scale,
		Start: start, End: start.Add(span), Interval: 10 * time.Second, File: path, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	return path, st.Rows
}

func TestIoTMaxDelay(t *testing.T) {
	if iotMaxDelay != gen.IoTMaxDelay {
		t.Fatalf("iotMaxDelay %d, gen.IoTMaxDelay %d", iotMaxDelay, gen.IoTMaxDelay)
	}
}

// TestWatermark: the prefix of batches acknowledged in order makes the
// watermark, whatever order they come in; the disorder moves it back.
func TestWatermark(t *testing.T) {
	var w watermark
	w.reset()
	if m, _, _ := w.get(0); m != math.MinInt64 {
		t.Fatalf("empty: %d", m)
	}
	// Batch k (1-based) holds times [10(k-1), 10k-1].
	add := func(k int64) { w.add(k, 10*(k-1), 10*k-1, true) }
	add(2)
	add(3)
	if m, acked, _ := w.get(0); m != math.MinInt64 || acked != 29 {
		t.Fatalf("a gap at batch 1: watermark %d, acked %d", m, acked)
	}
	add(1)
	if m, _, _ := w.get(0); m != 29 {
		t.Fatalf("batches 1-3: watermark %d", m)
	}
	if m, _, _ := w.get(5); m != 24 {
		t.Fatalf("disorder 5: watermark %d", m)
	}
	for k := int64(4); k <= 1000; k++ {
		add(k)
	}
	w.complete(context.Background())
	if m, _, done := w.get(1000); m != 10*1000 || !done {
		t.Errorf("complete: watermark %d (finished %v)", m, done)
	}
}
