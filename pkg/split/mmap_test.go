//go:build unix

package split

import (
	"bytes"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/usecase"
)

// smallWindows makes mapped files go out in windows of four pages with a
// page of head, so that lines and batches straddle them in small tests.
func smallWindows(t *testing.T) {
	page := os.Getpagesize()
	w, h := raMapWindow, raMapHead
	raMapWindow, raMapHead = 4*page, page
	t.Cleanup(func() { raMapWindow, raMapHead = w, h })
}

// mappedILP is an ILP input of varied lines: plain rows of many lengths,
// some longer than a window's head, comments, blank and CRLF lines, and,
// with bad, malformed lines.
func mappedILP(n int, bad bool) []byte {
	rnd := rand.New(rand.NewSource(int64(n)))
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		switch k := rnd.Intn(40); {
		case k == 0:
			b.WriteString("# comment\n")
		case k == 1:
			b.WriteString("\n")
		case k == 2:
			fmt.Fprintf(&b, "cpu,host=h%d usage=%d %d\r\n", i, i, i)
		case k == 3 && bad:
			fmt.Fprintf(&b, "cpu,host=h%d usage %d\n", i, i)
		case k == 4:
			fmt.Fprintf(&b, "disk,host=h%d,path=%s free=%di %d\n", i, strings.Repeat("p", 5000+rnd.Intn(3000)), i, i)
		default:
			fmt.Fprintf(&b, "cpu,host=h%d,rack=%s usage_user=%d,usage_system=%d.5 %d\n", i, strings.Repeat("r", 1+rnd.Intn(300)), i, i, 1451606400000000000+int64(i))
		}
	}
	return b.Bytes()
}

// splitFile splits in as the runner does (deferred checks, on the
// "workers" here, batches released out of order a few at a time), and
// returns the outcome and how many batches pointed into the input.
func splitFile(t *testing.T, in *Input, cfg Config) (o outcome, zeroCopy int) {
	t.Helper()
	cfg.DeferChecks = true
	cfg.Lookup = usecase.LookupTable
	o.tables = map[string]int64{}
	sp, err := New(in, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var c Checker
	var held []*load.Batch
	rnd := rand.New(rand.NewSource(1))
	for {
		b := new(load.Batch)
		_, err := sp.Next(b)
		if err == io.EOF {
			break
		}
		if err != nil {
			o.err = err.Error()
			break
		}
		if b.Hold != nil {
			zeroCopy++
		}
		n, cerr := c.Check(b, cfg.SkipInvalid)
		o.skiped += n
		if cerr != nil {
			o.err = cerr.Error()
			b.Release()
			break
		}
		o.add(b)
		held = append(held, b)
		if len(held) > 3 {
			i := rnd.Intn(len(held))
			held[i].Release()
			held = append(held[:i], held[i+1:]...)
		}
	}
	for _, b := range held {
		b.Release()
	}
	sp.Release()
	o.skiped += int(sp.Skipped())
	return o, zeroCopy
}

// TestMappedFile: a regular file is mapped and split with zero-copy
// batches where a batch lies in one window; the batches, counts and errors
// are those of the same bytes read from a stream, and the mapping is gone
// once the input is closed and its batches released.
func TestMappedFile(t *testing.T) {
	smallWindows(t)
	dir := t.TempDir()
	for _, bad := range []bool{false, true} {
		data := mappedILP(3000, bad)
		path := filepath.Join(dir, fmt.Sprintf("bad%v.ilp", bad))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, batch := range []int{1, 7, 60, 5000} {
			for _, skip := range []bool{false, true} {
				name := fmt.Sprintf("bad %v batch %d skip %v", bad, batch, skip)
				cfg := Config{Format: format.ILP, BatchSize: batch, SkipInvalid: skip}
				stream, err := NewInput(path, bytes.NewReader(data), -1, 0)
				if err != nil {
					t.Fatal(err)
				}
				want, _ := splitFile(t, stream, cfg)
				in, err := Open(path, nil, 0)
				if err != nil {
					t.Fatal(err)
				}
				if in.ra.mm == nil {
					t.Fatalf("%s: the file is not mapped", name)
				}
				got, zc := splitFile(t, in, cfg)
				in.Close()
				if live := in.ra.mm.live.Load(); live != 0 {
					t.Errorf("%s: %d holds left on the mapping after Close", name, live)
				}
				sameOutcome(t, name, false, want, got)
				if !bytes.Equal(want.data, got.data) {
					t.Fatalf("%s: data differs", name)
				}
				if batch < 5000 && zc == 0 && got.err == "" {
					t.Errorf("%s: no batch pointed into the mapping", name)
				}
				if !bad && got.rows == 0 {
					t.Fatalf("%s: no rows (%s)", name, got.err)
				}
			}
		}
	}
}

// TestMappedFileGrows: bytes appended to the file after Open are read
// after the mapped part.
func TestMappedFileGrows(t *testing.T) {
	smallWindows(t)
	path := filepath.Join(t.TempDir(), "grow.ilp")
	first, more := mappedILP(500, false), mappedILP(300, false)
	if err := os.WriteFile(path, first, 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := Open(path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(more); err != nil {
		t.Fatal(err)
	}
	f.Close()
	all := append(append([]byte(nil), first...), more...)
	stream, err := NewInput(path, bytes.NewReader(all), -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Format: format.ILP, BatchSize: 50}
	want, _ := splitFile(t, stream, cfg)
	got, _ := splitFile(t, in, cfg)
	sameOutcome(t, "grown file", false, want, got)
	if !bytes.Equal(want.data, got.data) || got.rows == 0 {
		t.Fatalf("grown file: %d rows, data equal %v", got.rows, bytes.Equal(want.data, got.data))
	}
}
