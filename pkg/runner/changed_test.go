//go:build unix

package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/results"
)

// TestInputTruncatedWhileLoading: a mapped input truncated while it is
// loaded (here by the writer of batch 2, so the cut lands mid-read every
// time) ends the load with one error naming the file and its new size, a
// results file that says failed with the rows acknowledged, and a
// journal that --resume reads and refuses as changed.
func TestInputTruncatedWhileLoading(t *testing.T) {
	in, _ := ilpInput(t, 200_000)
	st, err := os.Stat(in)
	if err != nil {
		t.Fatal(err)
	}
	cut := st.Size() / 3
	dir := t.TempDir()
	cfg := resumeConfig(dir, in)
	f := newFake()
	f.fail = func(b *load.Batch, _ int) (load.Ack, error) {
		if b.Seq == 2 {
			if err := os.Truncate(in, cut); err != nil {
				return load.Ack{}, err
			}
		}
		return load.Ack{Rows: b.Rows}, nil
	}
	res, err := Run(context.Background(), cfg, f)
	want := fmt.Sprintf("%s changed while it was read (truncated at byte %d)", in, cut)
	if err == nil || err.Error() != want || res.Status != results.StatusFailed || res.Rows == 0 || res.Rows >= 200_000 {
		t.Fatalf("err %v (want %q), status %s, rows %d", err, want, res.Status, res.Rows)
	}
	saved, rerr := os.ReadFile(filepath.Join(dir, "results.json"))
	if rerr != nil || !strings.Contains(string(saved), `"status": "failed"`) || !strings.Contains(string(saved), fmt.Sprintf(`"rows": %d,`, res.Rows)) {
		t.Fatalf("results file: %v\n%s", rerr, saved)
	}
	_, err = Run(context.Background(), resumeFrom(t, cfg), newFake())
	if err == nil || !strings.Contains(err.Error(), "changed since the load began") {
		t.Fatalf("resume: %v", err)
	}
}
