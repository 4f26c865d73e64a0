package split

import (
	"bytes"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/usecase"
)

// endless yields prefix then the byte c forever.
type endless struct {
	prefix []byte
	c      byte
}

func (e *endless) Read(p []byte) (int, error) {
	n := copy(p, e.prefix)
	e.prefix = e.prefix[n:]
	for i := n; i < len(p); i++ {
		p[i] = e.c
	}
	return len(p), nil
}

// TestBoundedMemory feeds endless lines and records: each fails at the
// buffer limit after reading a bounded amount, allocating little.
func TestBoundedMemory(t *testing.T) {
	huge := cat(pgHeader(), []byte{0, 21, 0x7f, 0xff, 0xff, 0xff})
	tests := []struct {
		name   string
		r      io.Reader
		format format.Format
		want   string
	}{
		{"endless ILP line", &endless{[]byte("cpu,host=a "), 'x'}, format.ILP, "line longer than the 4194304-byte limit"},
		{"endless CSV quote", &endless{append(cpuCSV(1, false), '"'), 'x'}, format.CSV, "record longer than the 4194304-byte limit"},
		{"pgcopy 2 GiB field", bytes.NewReader(huge), format.PGCopy, "field length 2147483647 (field 1) past the end of the input or the 4194304-byte limit"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			in, err := NewInput("cpu.gz", tc.r, -1, 0)
			if err != nil {
				t.Fatal(err)
			}
			sp, err := New(in, Config{Format: tc.format, Lookup: usecase.LookupTable})
			if err == nil {
				var b load.Batch
				for err == nil {
					_, err = sp.Next(&b)
				}
			}
			in.Close() // the read-ahead stops after its current read
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
			// At most the read-ahead ring (how much of it fills before
			// the error is a matter of timing) and the record buffer.
			limit := uint64(raChunks*(raHead+raMaxChunk) + DefaultMaxRecordBytes + 1<<20)
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > limit {
				t.Fatalf("allocated %d bytes, over %d", alloc, limit)
			}
		})
	}
}
