package split

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// TestReadAheadLikeBufio runs random Peek/ReadSlice/Discard/Read sequences
// on the read-ahead reader and on a bufio.Reader of the same size over the
// same bytes (delivered in pieces of various sizes): same results, errors.
func TestReadAheadLikeBufio(t *testing.T) {
	rnd := rand.New(rand.NewSource(1))
	for iter := 0; iter < 400; iter++ {
		var data []byte
		for len(data) < rnd.Intn(400_000) {
			n := rnd.Intn(300)
			if rnd.Intn(50) == 0 {
				n = rnd.Intn(200_000)
			}
			data = append(data, bytes.Repeat([]byte{byte('a' + rnd.Intn(26))}, n)...)
			data = append(data, '\n')
		}
		size := []int{16, 100, 4096, 100_000, 1 << 20}[rnd.Intn(5)]
		wrap := func(r io.Reader) io.Reader { return r }
		switch rnd.Intn(3) {
		case 1:
			wrap = iotest.HalfReader
		case 2:
			wrap = iotest.DataErrReader
		}
		fill := rnd.Intn(2) == 0
		ra := newReadAhead(wrap(bytes.NewReader(data)), fill)
		got := &raReader{ra: ra, size: size}
		want := bufio.NewReaderSize(wrap(bytes.NewReader(data)), size)
		if want.Size() != size {
			continue
		}
		for step := 0; ; step++ {
			var g, w []byte
			var ge, we error
			var op string
			switch rnd.Intn(4) {
			case 0:
				n := rnd.Intn(size + 2)
				op = fmt.Sprint("Peek ", n)
				g, ge = got.Peek(n)
				w, we = want.Peek(n)
			case 1:
				op = "ReadSlice"
				g, ge = got.ReadSlice('\n')
				w, we = want.ReadSlice('\n')
			case 2:
				n := rnd.Intn(3 * size)
				op = fmt.Sprint("Discard ", n)
				gn, ge2 := got.Discard(n)
				wn, we2 := want.Discard(n)
				g, w, ge, we = []byte(fmt.Sprint(gn)), []byte(fmt.Sprint(wn)), ge2, we2
			case 3:
				p := make([]byte, rnd.Intn(size+10))
				op = fmt.Sprint("Read ", len(p))
				gn, ge2 := io.ReadFull(got, p)
				g = append([]byte(nil), p[:gn]...)
				wn, we2 := io.ReadFull(want, p)
				w, ge, we = p[:wn], ge2, we2
			}
			if !bytes.Equal(g, w) || !errors.Is(ge, we) && !errors.Is(we, ge) {
				t.Fatalf("iter %d step %d size %d %s: got %d bytes %v, want %d bytes %v", iter, step, size, op, len(g), ge, len(w), we)
			}
			if we == io.EOF && len(w) == 0 {
				break
			}
		}
		ra.stop()
	}
}

// waitGoroutines waits for the goroutine count to fall back to n.
func waitGoroutines(t *testing.T, n int) {
	t.Helper()
	for i := 0; ; i++ {
		if runtime.NumGoroutine() <= n {
			return
		}
		if i == 500 {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines, want %d:\n%s", runtime.NumGoroutine(), n, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestReadAheadNoLeak: the read-ahead goroutine ends on Close (early or
// after an error) and by itself at the end of the input.
func TestReadAheadNoLeak(t *testing.T) {
	lines := bytes.Repeat([]byte("cpu,host=a usage=1 1\n"), 500_000) // ~10 MB: more than the ring
	dir := t.TempDir()
	plain := filepath.Join(dir, "cpu.ilp")
	if err := os.WriteFile(plain, lines, 0o644); err != nil {
		t.Fatal(err)
	}
	z := gz(lines)
	trunc := filepath.Join(dir, "cpu.ilp.gz")
	if err := os.WriteFile(trunc, z[:len(z)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	base := runtime.NumGoroutine()

	// Early Close of a file, after a little reading.
	in, err := Open(plain, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := in.br.ReadSlice('\n'); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond) // let the ring fill: the goroutine waits for room
	if err := in.Close(); err != nil {
		t.Fatal(err)
	}
	waitGoroutines(t, base) // a finalizer running meanwhile counts as one

	// A truncated gzip file: the error (with its offset) ends the goroutine.
	in, err = Open(trunc, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.Copy(io.Discard, in.br)
	var ge *GzipError
	if !errors.As(err, &ge) || !strings.Contains(err.Error(), "truncated gzip stream") || ge.Offset != int64(len(z)/2) {
		t.Fatalf("err %v", err)
	}
	if in.CompressedRead() != int64(len(z)/2) {
		t.Fatalf("CompressedRead %d", in.CompressedRead())
	}
	waitGoroutines(t, base)
	in.Close()

	// A stream closed early, and a stream read to the end without Close.
	for _, full := range []bool{false, true} {
		in, err = NewInput("stdin", bytes.NewReader(z), -1, 0)
		if err != nil {
			t.Fatal(err)
		}
		if full {
			n, err := io.Copy(io.Discard, in.br)
			if err != nil || n != int64(len(lines)) {
				t.Fatalf("read %d bytes, %v", n, err)
			}
		} else {
			if _, err := in.br.Peek(100); err != nil {
				t.Fatal(err)
			}
			in.Close()
			if _, err := in.br.Discard(len(lines)); err == nil {
				t.Fatal("read past Close")
			}
		}
		waitGoroutines(t, base)
	}

	// Closed before any read: no goroutine was started.
	in, err = Open(plain, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	in.Close()
	if n := runtime.NumGoroutine(); n > base {
		t.Fatalf("%d goroutines (had %d)", n, base)
	}
}
