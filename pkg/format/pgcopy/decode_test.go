package pgcopy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"
)

// refTuples is the reference reading of the tuples of a COPY binary body
// (what follows the header): read with encoding/binary from a bytes.Reader,
// one field at a time, as the format's description says. It returns the
// tuples (nil for NULL) up to the trailer, whether the trailer ends the
// body exactly, and whether the body is well formed.
func refTuples(body []byte, maxField int) (tuples [][][]byte, trailer bool, ok bool) {
	r := bytes.NewReader(body)
	for {
		var count int16
		if binary.Read(r, binary.BigEndian, &count) != nil {
			return tuples, false, false
		}
		if count == -1 {
			return tuples, r.Len() == 0, true
		}
		if count < 0 {
			return tuples, false, false
		}
		var tuple [][]byte
		for i := 0; i < int(count); i++ {
			var n int32
			if binary.Read(r, binary.BigEndian, &n) != nil {
				return tuples, false, false
			}
			if n == -1 {
				tuple = append(tuple, nil)
				continue
			}
			if n < 0 || int(n) > maxField || int(n) > r.Len() {
				return tuples, false, false
			}
			v := make([]byte, n)
			io.ReadFull(r, v)
			tuple = append(tuple, v)
		}
		tuples = append(tuples, tuple)
	}
}

// FuzzTupleAgainstReference: Tuple walks a body to the same tuples, the
// same end and the same acceptance as the reference reading; a short body
// is a *ShortError whose Need is more than what was given, and Tuple on
// that many bytes goes further.
func FuzzTupleAgainstReference(f *testing.F) {
	f.Add(append(tuple([]byte("abc"), nil, []byte{}), Trailer...))
	f.Add(append(append(tuple([]byte{1, 2, 3, 4, 5, 6, 7, 8}), tuple(nil, []byte("x"))...), Trailer...))
	f.Add([]byte{0, 2, 0, 0, 0, 9, 1})
	f.Add([]byte{0xff, 0xfe})
	f.Add([]byte{0, 1, 0xff, 0xff, 0xff, 0xf0})
	f.Add([]byte{0xff, 0xff, 0})
	const maxField = 64
	f.Fuzz(func(t *testing.T, body []byte) {
		want, wantTrailer, wantOK := refTuples(body, maxField)
		var got [][][]byte
		var fields [][]byte
		rest := body
		trailer, ok := false, true
		for {
			var size int
			var err error
			fields, size, err = Tuple(fields[:0], rest, maxField)
			var short *ShortError
			if errors.As(err, &short) {
				if short.Need <= len(rest) {
					t.Fatalf("short with %d bytes, needs %d", len(rest), short.Need)
				}
				ok = false
				break
			}
			if err == io.EOF {
				if size != 2 {
					t.Fatalf("trailer size %d", size)
				}
				trailer = len(rest) == 2
				break
			}
			if err != nil {
				ok = false
				break
			}
			var tup [][]byte
			for _, v := range fields {
				if v != nil && cap(v) != len(v) {
					t.Fatalf("field capacity %d past its length %d", cap(v), len(v))
				}
				var c []byte
				if v != nil {
					c = append(make([]byte, 0, len(v)), v...)
				}
				tup = append(tup, c)
			}
			got = append(got, tup)
			rest = rest[size:]
		}
		if ok != wantOK || trailer != wantTrailer || len(got) != len(want) {
			t.Fatalf("%x: ok %v trailer %v %d tuples; reference ok %v trailer %v %d tuples", body, ok, trailer, len(got), wantOK, wantTrailer, len(want))
		}
		for i := range got {
			if len(got[i]) != len(want[i]) {
				t.Fatalf("tuple %d: %d fields, reference %d", i, len(got[i]), len(want[i]))
			}
			for j := range got[i] {
				if (got[i][j] == nil) != (want[i][j] == nil) || !bytes.Equal(got[i][j], want[i][j]) {
					t.Fatalf("tuple %d field %d: %x, reference %x", i, j, got[i][j], want[i][j])
				}
			}
		}
	})
}

func TestCheckFlags(t *testing.T) {
	for flags, want := range map[uint32]string{
		0:             "",
		1 << 3:        "",
		0xffff:        "",
		1 << 16:       "pgcopy flags 0x10000: bit 16 (OIDs in the tuples) is not supported",
		1<<17 | 1:     "pgcopy flags 0x20001: unknown critical flag bits 0x20000 (bits 17-31)",
		1<<31 | 1<<16: "pgcopy flags 0x80010000: bit 16 (OIDs in the tuples) is not supported",
	} {
		got := ""
		if err := CheckFlags(flags); err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("%#x: %q, want %q (empty: accepted)", flags, got, want)
		}
	}
}
