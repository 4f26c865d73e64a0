package split

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/gen"
)

// smallLimits makes the parallel decoder cut small jobs, so small inputs
// have many.
func smallLimits(t testing.TB) {
	old := pdLimits
	pdLimits = limits{minJob: 1000, maxJob: 64 << 10, maxOut: 256 << 10, read: 4096}
	t.Cleanup(func() { pdLimits = old })
}

// noParallel makes every job too large: the whole input is decoded by the
// sequential decoder (the reference for errors).
func noParallel(t testing.TB) {
	old := pdLimits
	pdLimits = limits{minJob: 1, maxJob: 0, maxOut: 0, read: 4096}
	t.Cleanup(func() { pdLimits = old })
}

// gzSized writes each chunk as a gzip member that declares its size, as
// generate_data does.
func gzSized(chunks ...[]byte) []byte {
	var out, m bytes.Buffer
	w := gzip.NewWriter(&m) // reused: a new writer per member is costly
	for _, c := range chunks {
		m.Reset()
		w.Reset(&m)
		w.Header.Extra = format.GzipSizeExtra(0)
		w.Write(c)
		w.Close()
		format.SetGzipMemberSize(m.Bytes())
		out.Write(m.Bytes())
	}
	return out.Bytes()
}

// zstdFrames writes each chunk as an independent frame (content size and
// checksum declared), as generate_data does.
func zstdFrames(chunks ...[]byte) []byte {
	enc := zstdEncoder()
	var out []byte
	for _, c := range chunks {
		out = enc.EncodeAll(c, out)
	}
	return out
}

// zstdEncoder is one encoder for every test (EncodeAll may be called
// concurrently; a new encoder per call is costly).
var zstdEncoder = sync.OnceValue(func() *zstd.Encoder {
	enc, _ := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	return enc
})

// zstdDecoder is the reference decoder of the fuzzer.
var zstdDecoder = sync.OnceValue(func() *zstd.Decoder {
	d, _ := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(zstdMaxWindow))
	return d
})

// zstdStream writes one frame without a content size (a streaming writer).
func zstdStream(b []byte) []byte {
	var out bytes.Buffer
	w, _ := zstd.NewWriter(&out, zstd.WithEncoderConcurrency(1))
	w.Write(b)
	w.Close()
	return out.Bytes()
}

func chunks(b []byte, n int) [][]byte {
	var out [][]byte
	for len(b) > n {
		out = append(out, b[:n])
		b = b[n:]
	}
	return append(out, b)
}

// decodeAll reads an input's decompressed bytes.
func decodeAll(t testing.TB, data []byte) ([]byte, *Input, error) {
	in, err := NewInput("x.gz", bytes.NewReader(data), int64(len(data)), 0)
	if err != nil {
		return nil, nil, err
	}
	defer in.Close()
	out, err := io.ReadAll(in.br)
	return out, in, err
}

func TestParallelDecode(t *testing.T) {
	smallLimits(t)
	lines := ilpLines(20000)     // about 1 MB
	big := make([]byte, 300<<10) // a member larger than maxJob: incompressible
	for i := range big {
		big[i] = byte(uint32(i) * 2654435761 >> 24)
	}
	tests := []struct {
		name     string
		data     []byte
		want     []byte
		parallel bool // some jobs decoded in parallel
		seq      bool // some of it decoded sequentially
	}{
		{"gzip members with sizes", gzSized(chunks(lines, 10000)...), lines, true, false},
		{"gzip members without sizes", gz(chunks(lines, 10000)...), lines, true, false},
		{"one gzip member", gz(lines[:100000]), lines[:100000], true, false}, // within maxOut: one job
		{"one gzip member decoding to more than maxOut", gz(lines), lines, false, true},
		{"gzip member too large", gz(big), big, false, true},
		{"sized then a large member", append(gzSized(chunks(lines, 10000)...), gz(big)...), append(append([]byte(nil), lines...), big...), true, true},
		{"zstd frames", zstdFrames(chunks(lines, 10000)...), lines, true, false},
		{"zstd frame without content size", zstdStream(lines), lines, false, true},
		{"zstd frames then a streamed one", append(zstdFrames(chunks(lines, 10000)...), zstdStream(lines)...), append(append([]byte(nil), lines...), lines...), true, true},
		{"zstd skippable frame", append(append(zstdFrames(lines[:5000]), 0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3), zstdFrames(chunks(lines[5000:], 10000)...)...), lines, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, in, err := decodeAll(t, tc.data)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out, tc.want) {
				t.Fatalf("decoded %d bytes, want %d (equal: %v)", len(out), len(tc.want), bytes.Equal(out, tc.want))
			}
			if (in.pd.parallel > 0) != tc.parallel || (in.pd.seq != nil) != tc.seq {
				t.Fatalf("parallel jobs %d, sequential %v", in.pd.parallel, in.pd.seq != nil)
			}
		})
	}
}

// TestFalseBoundaries: a size that lies and header bytes inside deflate
// data never corrupt the output: the job fails and the rest is decoded
// sequentially.
func TestFalseBoundaries(t *testing.T) {
	smallLimits(t)
	lines := ilpLines(20000)
	z := gzSized(chunks(lines, 10000)...)
	for _, delta := range []int{-9, -1, 1, 100} {
		bad := append([]byte(nil), z...)
		m := gzipDeclaredSize(bad) // the first member's size, then off by delta
		bad[16] = byte(m + delta)
		bad[17] = byte((m + delta) >> 8)
		out, in, err := decodeAll(t, bad)
		if err != nil || !bytes.Equal(out, lines) {
			t.Fatalf("delta %d: %d bytes, %v", delta, len(out), err)
		}
		if in.pd.seq == nil {
			t.Fatalf("delta %d: no fallback", delta)
		}
	}
	// Member header bytes stored in the data (level 0 keeps them as they
	// are): the scan finds false boundaries; the output is still exact.
	fake := bytes.Repeat(append([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3}, lines[:2000]...), 50)
	var m bytes.Buffer
	w, _ := gzip.NewWriterLevel(&m, gzip.NoCompression)
	w.Write(fake)
	w.Close()
	plain := gz(lines)
	data := append(append(append([]byte(nil), plain...), m.Bytes()...), plain...)
	out, _, err := decodeAll(t, data)
	want := append(append(append([]byte(nil), lines...), fake...), lines...)
	if err != nil || !bytes.Equal(out, want) {
		t.Fatalf("false headers: %d bytes (want %d), %v", len(out), len(want), err)
	}
}

// TestCompressedDamage: damaged inputs give the errors (and offsets) of
// the sequential decoder; zstd framing errors name the frame's offsets.
func TestCompressedDamage(t *testing.T) {
	lines := ilpLines(20000)
	sized := gzSized(chunks(lines, 10000)...)
	second := gzipDeclaredSize(sized)
	corrupt := append([]byte(nil), sized...)
	corrupt[second+200] ^= 0x55
	crc := append([]byte(nil), sized...)
	crc[2*second-8] ^= 1 // the second member's CRC (members are about the same size)
	zs := zstdFrames(chunks(lines, 10000)...)
	zcorrupt := append([]byte(nil), zs...)
	zcorrupt[len(zs)/2] ^= 0x55
	tests := []struct {
		name, want string
		data       []byte
	}{
		{"gzip truncated", "truncated gzip stream (unexpected end of file) (compressed byte offset " + fmt.Sprint(len(sized)/2) + ")", sized[:len(sized)/2]},
		{"gzip corrupt member", "", corrupt},
		{"gzip bad CRC", "", crc},
		// The offset is where the last member ends, not the 10 header
		// bytes after it the reader took before refusing them.
		{"gzip garbage after the last member", "invalid gzip header (garbage after a gzip member?) (compressed byte offset " + fmt.Sprint(len(sized)) + ")",
			append(append([]byte(nil), sized...), "garbage after the member!"...)},
		{"gzip short garbage after the last member", "garbage after the last gzip member (too short to be a member header) (compressed byte offset " +
			fmt.Sprint(len(sized)) + ")", append(append([]byte(nil), sized...), "junk"...)},
		{"gzip garbage between members", "invalid gzip header (garbage after a gzip member?) (compressed byte offset " + fmt.Sprint(second) + ")",
			append(append(append([]byte(nil), sized[:second]...), "garbage after the member!"...), sized[second:]...)},
		{"zstd truncated", "truncated zstd frame (unexpected end of file) (compressed byte offset " + fmt.Sprint(len(zs)-7) + ")", zs[:len(zs)-7]},
		{"zstd garbage after the last frame", "invalid zstd frame magic (garbage after a zstd frame?) (compressed byte offset " + fmt.Sprint(len(zs)) + ")", append(append([]byte(nil), zs...), "garbage after the frame!"...)},
		{"zstd corrupt frame", "corrupt zstd frame", zcorrupt},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var ref error
			func() {
				noParallel(t)
				_, _, ref = decodeAll(t, tc.data)
			}()
			smallLimits(t)
			_, _, err := decodeAll(t, tc.data)
			var ce *CompressionError
			if err == nil || !errors.As(err, &ce) {
				t.Fatalf("err %v", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
			if strings.HasPrefix(tc.name, "gzip") && err.Error() != ref.Error() {
				t.Fatalf("parallel: %v\nsequential: %v", err, ref)
			}
			if ref == nil {
				t.Fatalf("the sequential decoder accepted it")
			}
		})
	}
}

// FuzzGzipMembers: the parallel decoder's output and success equal a
// sequential gzip reader's, whatever is damaged.
func FuzzGzipMembers(f *testing.F) {
	f.Add([]byte(oneILPLine+oneILPLine+oneILPLine), uint16(30), uint32(0), byte(0), true)
	f.Add(ilpLines(50), uint16(500), uint32(77), byte(1), false)
	f.Add(ilpLines(50), uint16(700), uint32(20), byte(0x40), true)
	f.Fuzz(func(t *testing.T, data []byte, cut uint16, at uint32, flip byte, sized bool) {
		smallLimits(t)
		pdLimits.minJob = 50
		cs := chunks(data, max(int(cut), len(data)/16+1)) // members are costly to write
		var z []byte
		if sized {
			z = gzSized(cs...)
		} else {
			z = gz(cs...)
		}
		if flip != 0 {
			z[int(at)%len(z)] ^= flip
		}
		if z[0] != 0x1f || z[1] != 0x8b {
			return // not gzip any more: read as it is
		}
		var want []byte
		zr, err := gzip.NewReader(bytes.NewReader(z))
		if err == nil {
			want, err = io.ReadAll(zr)
		}
		got, _, gerr := decodeAll(t, z)
		if (err == nil) != (gerr == nil) {
			t.Fatalf("sequential err %v, parallel err %v", err, gerr)
		}
		if err == nil && !bytes.Equal(got, want) {
			t.Fatalf("parallel output differs: %d bytes, want %d", len(got), len(want))
		}
	})
}

// FuzzZstdFrames: the same for zstd frames (with their framing walked by
// the parallel decoder).
func FuzzZstdFrames(f *testing.F) {
	f.Add([]byte(oneILPLine+oneILPLine+oneILPLine), uint16(30), uint32(0), byte(0), false)
	f.Add(ilpLines(50), uint16(500), uint32(77), byte(1), false)
	f.Add(ilpLines(50), uint16(700), uint32(5), byte(0x40), true)
	f.Fuzz(func(t *testing.T, data []byte, cut uint16, at uint32, flip byte, stream bool) {
		smallLimits(t)
		pdLimits.minJob = 50
		z := zstdFrames(chunks(data, max(int(cut), len(data)/16+1))...)
		if stream {
			z = append(z, zstdStream(data)...)
			data = append(append([]byte(nil), data...), data...)
		}
		if flip != 0 {
			z[int(at)%len(z)] ^= flip
		}
		if !bytes.HasPrefix(z, []byte{0x28, 0xb5, 0x2f, 0xfd}) {
			return // not zstd any more: read as it is
		}
		want, err := zstdDecoder().DecodeAll(z, nil)
		got, _, gerr := decodeAll(t, z)
		if (err == nil) != (gerr == nil) {
			t.Fatalf("sequential err %v, parallel err %v", err, gerr)
		}
		if err == nil && gerr == nil && !bytes.Equal(got, want) {
			t.Fatalf("parallel output differs: %d bytes, want %d", len(got), len(want))
		}
	})
}

// TestGeneratedDecodesInParallel: generate_data's --gzip and --zstd output
// is decoded in parallel from end to end (no sequential fallback).
func TestGeneratedDecodesInParallel(t *testing.T) {
	var raw bytes.Buffer
	cfg := gen.Config{UseCase: "cpu-only", Format: format.ILP, Seed: 1, Scale: 200, Workers: 2,
		End: gen.DefaultStart.Add(20 * time.Minute)}
	cfg.Stdout = &raw
	generate(t, cfg)
	for _, c := range []string{"gzip", "zstd"} {
		var z bytes.Buffer
		cfg.Stdout = &z
		cfg.Gzip, cfg.Zstd = c == "gzip", c == "zstd"
		generate(t, cfg)
		out, in, err := decodeAll(t, z.Bytes())
		if err != nil || !bytes.Equal(out, raw.Bytes()) {
			t.Fatalf("%s: %d bytes (want %d), %v", c, len(out), raw.Len(), err)
		}
		if in.pd.parallel < 2 || in.pd.seq != nil {
			t.Fatalf("%s: %d parallel jobs, sequential %v", c, in.pd.parallel, in.pd.seq != nil)
		}
	}
}

// zstdWindow returns a copy of a streamed frame (zstdStream: no single
// segment, so byte 5 is the window descriptor) that declares the window
// 1<<log; the blocks need less, so the frame stays valid.
func zstdWindow(t *testing.T, frame []byte, log int) []byte {
	t.Helper()
	if frame[4]&0x20 != 0 {
		t.Fatalf("single-segment frame: no window descriptor")
	}
	out := append([]byte(nil), frame...)
	out[5] = byte(log-10) << 3
	return out
}

// TestZstdLongWindow: a frame with the 128 MiB window of zstd --long=27
// (what zstd -d accepts by default) is read, in parallel and sequentially,
// alone and after other frames.
func TestZstdLongWindow(t *testing.T) {
	lines := ilpLines(20000)
	long := zstdWindow(t, zstdStream(lines), 27)
	for _, tc := range []struct {
		name       string
		data, want []byte
	}{
		{"alone", long, lines},
		{"after frames", append(zstdFrames(chunks(lines, 10000)...), long...), append(append([]byte(nil), lines...), lines...)},
	} {
		for _, par := range []bool{true, false} {
			t.Run(fmt.Sprint(tc.name, " parallel=", par), func(t *testing.T) {
				if !par {
					noParallel(t)
				}
				out, _, err := decodeAll(t, tc.data)
				if err != nil || !bytes.Equal(out, tc.want) {
					t.Fatalf("%d bytes (want %d), %v", len(out), len(tc.want), err)
				}
			})
		}
	}
}

// TestZstdWindowOverLimit: a frame over the 128 MiB window limit is refused
// with the limit and its window, at the frame's offset, wherever it is.
func TestZstdWindowOverLimit(t *testing.T) {
	lines := ilpLines(20000)
	stream := zstdStream(lines)
	big := zstdWindow(t, stream, 28)
	sized := zstdFrames(chunks(lines, 10000)...)
	// A frame that declares its content size and a window over the limit
	// (the parallel decoder's cut walks it).
	var buf bytes.Buffer
	w, _ := zstd.NewWriter(&buf, zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(1<<20), zstd.WithSingleSegment(false))
	w.ResetContentSize(&buf, int64(len(lines)))
	w.Write(lines)
	w.Close()
	bigSized := zstdWindow(t, buf.Bytes(), 29)
	const reason = "zstd frame window of %d MiB is over the 128 MiB limit (the default of zstd -d; zstd --long=27 writes 128 MiB) (compressed byte offset %d)"
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"streamed, first", big, fmt.Sprintf(reason, 256, 0)},
		{"streamed, after frames", append(append([]byte(nil), sized...), big...), fmt.Sprintf(reason, 256, len(sized))},
		{"streamed, after a streamed frame", append(append([]byte(nil), stream...), big...), fmt.Sprintf(reason, 256, len(stream))},
		{"sized, first", bigSized, fmt.Sprintf(reason, 512, 0)},
		{"sized, after frames", append(append([]byte(nil), sized...), bigSized...), fmt.Sprintf(reason, 512, len(sized))},
	} {
		for _, par := range []bool{true, false} {
			t.Run(fmt.Sprint(tc.name, " parallel=", par), func(t *testing.T) {
				if !par {
					noParallel(t)
				}
				_, _, err := decodeAll(t, tc.data)
				var ce *CompressionError
				var we *ZstdWindowError
				if !errors.As(err, &ce) || !errors.As(err, &we) || !strings.HasSuffix(err.Error(), tc.want) {
					t.Fatalf("err %v\nwant ...%s", err, tc.want)
				}
			})
		}
	}
}

// TestZstdCLILong: the zstd tool's own --long=27 output (streamed, so the
// window is not shrunk to the input) is read.
func TestZstdCLILong(t *testing.T) {
	if _, err := exec.LookPath("zstd"); err != nil {
		t.Skip("no zstd tool")
	}
	lines := ilpLines(20000)
	cmd := exec.Command("zstd", "-q", "--long=27", "-c")
	cmd.Stdin = bytes.NewReader(lines)
	z, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if z[4]&0x20 != 0 || z[5] != 17<<3 {
		t.Fatalf("zstd wrote window descriptor %#x, not 128 MiB", z[5])
	}
	out, _, err := decodeAll(t, z)
	if err != nil || !bytes.Equal(out, lines) {
		t.Fatalf("%d bytes (want %d), %v", len(out), len(lines), err)
	}
}
