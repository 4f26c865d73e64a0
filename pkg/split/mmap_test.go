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
	w, h, g := raMapWindow, raMapHead, pscanSegment
	raMapWindow, raMapHead, pscanSegment = 4*page, page, 3000
	t.Cleanup(func() { raMapWindow, raMapHead, pscanSegment = w, h, g })
}

// mappedILP is an ILP input of varied lines: plain rows of many lengths,
// some longer than a window's head, comments, blank and CRLF lines, and,
// with bad, malformed lines.
func mappedILP(n int, bad bool) []byte { return mappedILPFrom(n, bad, 0) }

// mappedILPFrom is mappedILP with only plain rows before line from (the
// parallel scan takes those).
func mappedILPFrom(n int, bad bool, from int) []byte {
	rnd := rand.New(rand.NewSource(int64(n)))
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		k := rnd.Intn(40)
		if i < from && k < 4 {
			k = 4 + rnd.Intn(36)
		}
		switch {
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
	o, zeroCopy, _ = splitFileScanned(t, in, cfg)
	return o, zeroCopy
}

// splitFileScanned is splitFile that also counts the batches cut from the
// parallel scan's segments.
func splitFileScanned(t *testing.T, in *Input, cfg Config) (o outcome, zeroCopy, scanned int) {
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
		if _, ok := b.Hold.(*loans); ok {
			scanned++
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
	return o, zeroCopy, scanned
}

// TestMappedFile: a regular file is mapped and split with zero-copy
// batches where a batch lies in one window; the batches, counts and errors
// are those of the same bytes read from a stream, and the mapping is gone
// once the input is closed and its batches released.
func TestMappedFile(t *testing.T) {
	smallWindows(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		bad  bool
		from int // plain rows before this line
	}{{false, 0}, {true, 0}, {false, 1500}, {true, 2000}, {false, 3000}} {
		bad := tc.bad
		data := mappedILPFrom(3000, bad, tc.from)
		path := filepath.Join(dir, fmt.Sprintf("bad%v-%d.ilp", bad, tc.from))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			batch, maxBytes int
			limit           int64
		}{{1, 0, 0}, {7, 0, 0}, {60, 0, 0}, {5000, 0, 0}, {60, 3000, 0}, {60, 0, 2222}} {
			for _, skip := range []bool{false, true} {
				batch := c.batch
				name := fmt.Sprintf("bad %v from %d batch %d max %d limit %d skip %v", bad, tc.from, batch, c.maxBytes, c.limit, skip)
				cfg := Config{Format: format.ILP, BatchSize: batch, SkipInvalid: skip, MaxBatchBytes: c.maxBytes, Limit: c.limit}
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
				got, zc, scanned := splitFileScanned(t, in, cfg)
				in.Close()
				if live := in.ra.mm.n.Load(); live != 0 {
					t.Errorf("%s: %d holds left on the mapping after Close", name, live)
				}
				sameOutcome(t, name, false, want, got)
				if !bytes.Equal(want.data, got.data) {
					t.Fatalf("%s: data differs", name)
				}
				deferred := !(skip && c.limit > 0)
				if batch < 5000 && zc == 0 && got.err == "" && deferred {
					t.Errorf("%s: no batch pointed into the mapping", name)
				}
				if tc.from >= 1500 && batch <= 60 && scanned == 0 && deferred {
					t.Errorf("%s: no batch cut from the parallel scan", name)
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

// FuzzMappedFile: any input, written to a file that is mapped and split in
// segments and windows of a few dozen bytes (the parallel scan, then the
// read-ahead path from the first line it does not take), gives the
// batches' bytes, counts and errors of the same input read from a stream.
func FuzzMappedFile(f *testing.F) {
	f.Add([]byte(oneILPLine+oneILPLine+"#c\n"+oneILPLine), uint8(2), uint8(40), false)
	f.Add([]byte("a f=1\nb f=1 2\r\nc f=1\nd f=\"x\" 3\ne f=1"), uint8(1), uint8(7), true)
	f.Add(mappedILPFrom(60, true, 40), uint8(9), uint8(200), false)
	dir := f.TempDir()
	page := os.Getpagesize()
	f.Fuzz(func(t *testing.T, data []byte, batch, seg uint8, skip bool) {
		if len(data) == 0 {
			return
		}
		w, h, g := raMapWindow, raMapHead, pscanSegment
		raMapWindow, raMapHead, pscanSegment = page, page, int(seg)+1
		defer func() { raMapWindow, raMapHead, pscanSegment = w, h, g }()
		path := filepath.Join(dir, "fuzz.ilp")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		cfg := Config{Format: format.ILP, BatchSize: int(batch%16) + 1, SkipInvalid: skip, MaxRecordBytes: 512}
		stream, err := NewInput(path, bytes.NewReader(data), -1, cfg.MaxRecordBytes)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := splitFile(t, stream, cfg)
		in, err := Open(path, nil, cfg.MaxRecordBytes)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := splitFile(t, in, cfg)
		in.Close()
		if live := in.ra.mm.n.Load(); live != 0 {
			t.Fatalf("%d holds left on the mapping after Close", live)
		}
		if want.err != got.err || want.rows != got.rows || want.metrics != got.metrics || want.skiped != got.skiped ||
			fmt.Sprint(want.tables) != fmt.Sprint(got.tables) || !bytes.Equal(want.data, got.data) {
			t.Fatalf("stream: rows %d metrics %d skipped %d tables %v err %q\nmapped: rows %d metrics %d skipped %d tables %v err %q\ndata equal %v",
				want.rows, want.metrics, want.skiped, want.tables, want.err, got.rows, got.metrics, got.skiped, got.tables, got.err, bytes.Equal(want.data, got.data))
		}
	})
}
