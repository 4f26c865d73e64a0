//go:build unix

package split

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/gen"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/usecase"
)

// TestTruncatedWhileRead: a file truncated while it is read gives a
// *ChangedError naming it and its new size, never a crash: mapped (cut
// after the first batch, in the windows the read-ahead touched already,
// with and without the parallel scan) and streamed (gzip: cut after Open,
// before the reader got there), in ILP, CSV and pgcopy. The batches are
// touched as a loader's worker does, under WatchFaults and CatchFault.
func TestTruncatedWhileRead(t *testing.T) {
	smallWindows(t)
	dir := t.TempDir()
	start := gen.DefaultStart
	for _, f := range []format.Format{format.ILP, format.CSV, format.PGCopy} {
		src := filepath.Join(dir, "src."+f.String())
		generate(t, gen.Config{UseCase: "cpu-only", Format: f, Seed: 3, Scale: 3, Workers: 1, Start: start, End: start.Add(4 * time.Hour), File: src})
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		// The streamed file is truncated right after Open: it must hold far
		// more than the reader decodes ahead before a batch is taken (a few
		// MiB), or the reader may have read it all already (read to the
		// end, correctly: seen in CI with the small file's 161 KB).
		big := filepath.Join(dir, "big."+f.String())
		generate(t, gen.Config{UseCase: "cpu-only", Format: f, Seed: 3, Scale: 200, Workers: 1, Start: start, End: start.Add(4 * time.Hour), File: big})
		bigData, err := os.ReadFile(big)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			mode     string
			deferred bool
		}{{"mapped", true}, {"mapped", false}, {"gzip", false}} {
			if c.deferred && f != format.ILP {
				continue
			}
			name := fmt.Sprintf("%s/%s/deferred=%v", f, c.mode, c.deferred)
			path := filepath.Join(dir, strings.ReplaceAll(name, "/", "_"))
			body := data
			if c.mode == "gzip" {
				body = gz(bigData)
			}
			cuts := []int64{int64(len(body) / 2)}
			if c.mode == "mapped" {
				// Cuts inside a page: the rest of that page reads as
				// zeros before the next one faults (a pgcopy record
				// header of zeros said "0 fields"); and inside the last
				// page, where nothing faults.
				page := int64(os.Getpagesize())
				mid := int64(len(body)/2) &^ (page - 1)
				cuts = append(cuts, mid+97, mid+page/2+3, mid+page-5, int64(len(body))-40)
			}
			for _, cut := range cuts {
				if err := os.WriteFile(path, body, 0o644); err != nil {
					t.Fatal(err)
				}
				err := truncateWhileRead(path, f, c.deferred, cut, c.mode == "gzip")
				var ce *ChangedError
				if !errors.As(err, &ce) || ce.Size != cut || ce.Opened != int64(len(body)) ||
					!strings.Contains(err.Error(), fmt.Sprintf("%s changed while it was read (truncated at byte %d)", path, cut)) {
					t.Errorf("%s: err %v, want the file changed at byte %d", name, err, cut)
				}
			}
		}
	}
}

// truncateWhileRead reads path as a loader does, truncating it to cut
// bytes after the first batch (before the first, when early), and
// returns the error that ends the reading.
func truncateWhileRead(path string, f format.Format, deferred bool, cut int64, early bool) (err error) {
	done := make(chan error)
	go func() { // a goroutine of its own: WatchFaults lasts its life
		var err error
		defer func() { done <- err }()
		WatchFaults()
		defer CatchFault(&err)
		in, err := Open(path, nil, 0)
		if err != nil {
			return
		}
		defer in.Close()
		if early {
			if err = os.Truncate(path, cut); err != nil {
				return
			}
		}
		sp, err := New(in, Config{Format: f, BatchSize: 50, DeferChecks: deferred, Lookup: usecase.LookupTable})
		if err != nil {
			return
		}
		var chk Checker
		var b load.Batch
		for i := 0; ; i++ {
			if _, err = sp.Next(&b); err != nil {
				if err == io.EOF {
					err = errors.New("read to the end")
				}
				return
			}
			_, err = chk.Check(&b, false)
			var sum byte
			for _, c := range b.Data { // as a writer sends it
				sum += c
			}
			b.Release()
			if err != nil {
				return
			}
			if i == 0 && !early {
				if err = os.Truncate(path, cut); err != nil {
					return
				}
			}
		}
	}()
	return <-done
}
