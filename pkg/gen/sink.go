package gen

import (
	"bufio"
	"bytes"
	"io"
	"sync"
	"syscall"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/tsload/tsload/pkg/format"
)

// errPipe is what a write to a closed pipe returns once SIGPIPE is ignored.
var errPipe error = syscall.EPIPE

func newBufWriter(w io.Writer, size int) *bufio.Writer { return bufio.NewWriterSize(w, size) }

// Uncompressed size of one gzip member and of one zstd frame.
const (
	gzipChunk = 1 << 20
	zstdChunk = 4 << 20
)

// parallelGzip compresses chunks concurrently, each as a complete gzip
// member (1 MiB, its compressed size in its header) or zstd frame (4 MiB,
// with its content size and checksum), and writes them in order. At most
// `conc` chunks are in flight, so memory stays bounded.
type parallelGzip struct {
	w     io.Writer
	level int
	chunk int
	zenc  *zstd.Encoder // zstd, else gzip
	buf   []byte
	queue chan *gzJob // in order, bounded
	done  chan struct{}
	free  chan []byte
	zs    sync.Pool

	mu  sync.Mutex
	err error
	any bool // a member was dispatched
}

type gzJob struct {
	in    []byte
	out   bytes.Buffer
	err   error
	ready chan struct{}
}

func newParallelGzip(w io.Writer, level, workers int) *parallelGzip {
	return newParallel(w, level, workers, gzipChunk, nil)
}

// newParallelZstd writes independent zstd frames of zstdChunk bytes.
func newParallelZstd(w io.Writer, level, workers int) (*parallelGzip, error) {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(level)),
		zstd.WithEncoderConcurrency(min(max(workers, 1), 32)), zstd.WithEncoderCRC(true),
		zstd.WithZeroFrames(true))
	if err != nil {
		return nil, err
	}
	return newParallel(w, level, workers, zstdChunk, enc), nil
}

func newParallel(w io.Writer, level, workers, chunk int, zenc *zstd.Encoder) *parallelGzip {
	conc := min(max(workers, 1), 32) + 1
	z := &parallelGzip{
		w: w, level: level, chunk: chunk, zenc: zenc,
		queue: make(chan *gzJob, conc),
		done:  make(chan struct{}),
		free:  make(chan []byte, conc+2),
	}
	z.buf = make([]byte, 0, chunk+chunk/4)
	go z.writeLoop()
	return z
}

func (z *parallelGzip) getErr() error {
	z.mu.Lock()
	defer z.mu.Unlock()
	return z.err
}

func (z *parallelGzip) setErr(err error) {
	z.mu.Lock()
	if z.err == nil {
		z.err = err
	}
	z.mu.Unlock()
}

// Write buffers p, dispatching full chunks for compression.
func (z *parallelGzip) Write(p []byte) (int, error) {
	if err := z.getErr(); err != nil {
		return 0, err
	}
	n := len(p)
	for len(p) > 0 {
		k := min(len(p), z.chunk-len(z.buf))
		z.buf = append(z.buf, p[:k]...)
		p = p[k:]
		if len(z.buf) >= z.chunk {
			z.dispatch()
			if err := z.getErr(); err != nil {
				return n - len(p), err
			}
		}
	}
	return n, nil
}

func (z *parallelGzip) dispatch() {
	j := &gzJob{in: z.buf, ready: make(chan struct{})}
	select {
	case b := <-z.free:
		z.buf = b[:0]
	default:
		z.buf = make([]byte, 0, z.chunk+z.chunk/4)
	}
	z.any = true
	z.queue <- j // blocks while conc chunks are in flight
	go z.compress(j)
}

func (z *parallelGzip) compress(j *gzJob) {
	defer close(j.ready)
	if z.zenc != nil {
		j.out.Write(z.zenc.EncodeAll(j.in, make([]byte, 0, len(j.in)/4+64)))
		return
	}
	zw, _ := z.zs.Get().(*gzip.Writer)
	if zw == nil {
		var err error
		zw, err = gzip.NewWriterLevel(&j.out, z.level)
		if err != nil {
			j.err = err
			return
		}
	} else {
		zw.Reset(&j.out)
	}
	zw.Header.Extra = format.GzipSizeExtra(0) // the size is set below
	j.out.Grow(len(j.in)/2 + 64)
	if _, err := zw.Write(j.in); err != nil {
		j.err = err
		return
	}
	if j.err = zw.Close(); j.err == nil {
		format.SetGzipMemberSize(j.out.Bytes())
	}
	z.zs.Put(zw)
}

func (z *parallelGzip) writeLoop() {
	defer close(z.done)
	for j := range z.queue {
		<-j.ready
		if j.err != nil {
			z.setErr(j.err)
		} else if z.getErr() == nil {
			if _, err := z.w.Write(j.out.Bytes()); err != nil {
				z.setErr(err)
			}
		}
		select {
		case z.free <- j.in[:0]:
		default:
		}
	}
}

// Close compresses what is buffered, waits for every member to be written
// and returns the first error. An empty stream is one empty member or frame.
func (z *parallelGzip) Close() error {
	if len(z.buf) > 0 || !z.any {
		z.dispatch()
	}
	close(z.queue)
	<-z.done
	if z.zenc != nil {
		z.zenc.Close()
	}
	return z.getErr()
}
