//go:build unix

package split

import (
	"bytes"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/usecase"
)

// TestLoanLifeCycle: the last release (only that one) gives the bytes
// back; a hold or a release after it panics.
func TestLoanLifeCycle(t *testing.T) {
	backs := 0
	l := loan{back: func() { backs++ }}
	l.lend()
	l.hold()
	if l.Release(); backs != 0 {
		t.Fatal("the first of two releases gave the bytes back")
	}
	if l.Release(); backs != 1 {
		t.Fatal("the last release did not give the bytes back")
	}
	h := loans{&l}
	l.lend()
	l.hold()
	h.Release()
	if backs != 1 || len(h) != 0 {
		t.Fatalf("loans.Release: %d gave backs, %d loans left", backs, len(h))
	}
	for name, f := range map[string]func(*loan){"hold": (*loan).hold, "release": (*loan).Release} {
		func() {
			l := loan{back: func() {}}
			l.lend()
			l.Release()
			defer func() {
				if recover() == nil {
					t.Errorf("%s after the last release did not panic", name)
				}
			}()
			f(&l)
		}()
	}
}

// TestBatchesKeepTheirBytes (run it with -race): batches of a mapped file
// (the parallel scan's segments, then mapped windows) and of a stream (the
// read-ahead ring) are read by two workers a while after the splitter has
// moved on, released out of order; every batch's bytes are still the
// input's at its offset when it is read, and the race detector sees no
// write to a buffer a batch still points into.
func TestBatchesKeepTheirBytes(t *testing.T) {
	smallWindows(t)
	// Plain rows first (the parallel scan), then other lines (the windows).
	data := append(mappedILPFrom(4000, false, 4000), mappedILP(4000, false)...)
	path := filepath.Join(t.TempDir(), "d.ilp")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, mapped := range []bool{true, false} {
		var in *Input
		var err error
		if mapped {
			in, err = Open(path, nil, 0)
		} else {
			in, err = NewInput("stdin", bytes.NewReader(data), -1, 0)
		}
		if err != nil {
			t.Fatal(err)
		}
		sp, err := New(in, Config{BatchSize: 50, DeferChecks: true, Lookup: usecase.LookupTable})
		if err != nil {
			t.Fatal(err)
		}
		q := make(chan *load.Batch, 8)
		var wg sync.WaitGroup
		var mu sync.Mutex
		var held, bad int
		for w := 0; w < 2; w++ {
			wg.Add(1)
			go func(seed int64) {
				defer wg.Done()
				rnd := rand.New(rand.NewSource(seed))
				for b := range q {
					if rnd.Intn(4) == 0 {
						time.Sleep(time.Duration(rnd.Intn(200)) * time.Microsecond)
					}
					mu.Lock()
					if b.Hold != nil {
						held++
					}
					// A copied batch is the input's bytes minus comments
					// and blank lines; a held one is them exactly.
					if b.Hold != nil && !bytes.Equal(b.Data, data[b.Offset:b.Offset+int64(len(b.Data))]) {
						bad++
					}
					mu.Unlock()
					b.Release()
				}
			}(int64(w))
		}
		for {
			b := new(load.Batch)
			if _, err := sp.Next(b); err == io.EOF {
				break
			} else if err != nil {
				t.Fatal(err)
			}
			q <- b
		}
		close(q)
		wg.Wait()
		sp.Release()
		in.Close()
		if held == 0 || bad > 0 {
			t.Fatalf("mapped %v: %d batches held input bytes, %d of them changed before their release", mapped, held, bad)
		}
	}
}
