package queryload_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/runner"
)

// replacingFake is queryFake that replaces the input by rename at its
// first write: the load goes on with the file it opened.
type replacingFake struct {
	*queryFake
	once    sync.Once
	replace func()
}

func (f *replacingFake) NewWriter(ctx context.Context, worker int) (load.Writer, error) {
	w, err := f.queryFake.NewWriter(ctx, worker)
	return &replacingWriter{Writer: w, f: f}, err
}

type replacingWriter struct {
	load.Writer
	f *replacingFake
}

func (w *replacingWriter) Write(ctx context.Context, b *load.Batch) (load.Ack, error) {
	w.f.once.Do(w.f.replace)
	return w.Writer.Write(ctx, b)
}

// TestQueriesInputReplaced: an input replaced by rename while it loads
// (the same size with other values, or another size) changes no expected
// answer: they come from the bytes loaded, every type is checked and none
// is wrong.
func TestQueriesInputReplaced(t *testing.T) {
	for _, size := range []string{"same", "other"} {
		t.Run(size, func(t *testing.T) {
			path, rows := generated(t, "cpu-only", 4, 3*time.Hour)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			other := bytes.Map(func(r rune) rune { // other values, the same length
				switch r {
				case '1':
					return '2'
				case '2':
					return '1'
				}
				return r
			}, data)
			if size == "other" {
				other = append(other[:len(other)/3], other...)
			}
			next := filepath.Join(t.TempDir(), "next.ilp")
			if err := os.WriteFile(next, other, 0o644); err != nil {
				t.Fatal(err)
			}
			f := &replacingFake{queryFake: newQueryFake(), replace: func() {
				if err := os.Rename(next, path); err != nil {
					t.Error(err)
				}
			}}
			f.delay = time.Millisecond
			cfg := queryConfig(path)
			res, err := runner.Run(context.Background(), cfg, f)
			if err != nil {
				t.Fatalf("%v\n%s", err, cfg.Stderr)
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, other) {
				t.Fatal("the input was not replaced")
			}
			if res.Rows != rows || res.Queries == nil || !res.Queries.Checked || res.Queries.Note != "" {
				t.Fatalf("rows %d of %d, queries %+v", res.Rows, rows, res.Queries)
			}
			for _, qt := range res.Queries.Types {
				if qt.Checked == 0 || qt.Wrong != 0 {
					t.Errorf("%+v", qt)
				}
			}
		})
	}
}
