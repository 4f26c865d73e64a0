package verify

import (
	"bufio"
	"container/heap"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
)

// KeyStore counts distinct 64-bit keys per table in bounded memory. Keys
// are held in memory up to limit; when that fills, each table's keys are
// sorted and made unique in place, and when more than half the limit is
// still held, every table's sorted keys are written to a temporary file
// (a run) and memory is emptied. Distinct merges each table's runs. The
// memory bound is limit keys (8 bytes each) plus, while merging, one
// 64 KiB buffer per run of a table.
type KeyStore struct {
	mu      sync.Mutex
	limit   int
	held    int
	peak    int
	spilled int64 // bytes written to runs
	dir     string
	tables  map[string]*keyTable
}

// NewKeyStore returns a store that holds up to limit keys in memory.
func NewKeyStore(limit int) *KeyStore { return &KeyStore{limit: limit} }

// Peak is the most keys the store held in memory at once.
func (s *KeyStore) Peak() int { return s.peak }

// Spilled is the bytes the store wrote to temporary files.
func (s *KeyStore) Spilled() int64 { return s.spilled }

type keyTable struct {
	keys []uint64
	runs []string // files of sorted unique keys, little-endian
}

// AddAll moves a worker's buffered keys (by table) into the store.
func (s *KeyStore) AddAll(bufs map[string]*[]uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for name, buf := range bufs {
		if len(*buf) == 0 {
			continue
		}
		if s.tables == nil {
			s.tables = map[string]*keyTable{}
		}
		t := s.tables[name]
		if t == nil {
			t = &keyTable{}
			s.tables[name] = t
		}
		t.keys = append(t.keys, *buf...)
		s.held += len(*buf)
		*buf = (*buf)[:0]
	}
	s.peak = max(s.peak, s.held)
	if s.held < s.limit {
		return nil
	}
	s.compact()
	if 2*s.held <= s.limit {
		return nil
	}
	return s.spill()
}

// compact sorts every table's keys and drops repeats.
func (s *KeyStore) compact() {
	s.held = 0
	for _, t := range s.tables {
		slices.Sort(t.keys)
		t.keys = slices.Compact(t.keys)
		s.held += len(t.keys)
	}
}

// spill writes every table's sorted unique keys to a run of its own.
func (s *KeyStore) spill() error {
	if s.dir == "" {
		d, err := os.MkdirTemp("", "tsload-keys-")
		if err != nil {
			return fmt.Errorf("a directory for the keys: %w", err)
		}
		s.dir = d
	}
	for _, t := range s.tables {
		if len(t.keys) == 0 {
			continue
		}
		f, err := os.CreateTemp(s.dir, "run-")
		if err != nil {
			return err
		}
		w := bufio.NewWriterSize(f, 64<<10)
		var b [8]byte
		for _, k := range t.keys {
			binary.LittleEndian.PutUint64(b[:], k)
			w.Write(b[:]) // the error sticks: Flush returns it
		}
		err = w.Flush()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("writing keys to %s: %w", f.Name(), err)
		}
		s.spilled += int64(8 * len(t.keys))
		t.runs = append(t.runs, f.Name())
		t.keys = t.keys[:0]
	}
	s.held = 0
	return nil
}

// Distinct returns each table's number of distinct keys.
func (s *KeyStore) Distinct() (map[string]int64, error) {
	s.compact()
	out := make(map[string]int64, len(s.tables))
	for name, t := range s.tables {
		if len(t.runs) == 0 {
			out[name] = int64(len(t.keys))
			continue
		}
		n, err := mergeCount(t)
		if err != nil {
			return nil, err
		}
		out[name] = n
		t.keys = nil
	}
	return out, nil
}

// mergeCount counts the distinct keys of t's runs and memory (each
// sorted and unique) in one merge.
func mergeCount(t *keyTable) (int64, error) {
	var h runHeap
	if len(t.keys) > 0 {
		h = append(h, &runReader{mem: t.keys})
	}
	for _, path := range t.runs {
		f, err := os.Open(path)
		if err != nil {
			return 0, err
		}
		defer f.Close()
		h = append(h, &runReader{r: bufio.NewReaderSize(f, 64<<10)})
	}
	live := h[:0]
	for _, rr := range h {
		ok, err := rr.next()
		if err != nil {
			return 0, err
		}
		if ok {
			live = append(live, rr)
		}
	}
	h = live
	heap.Init(&h)
	var n int64
	var last uint64
	for len(h) > 0 {
		rr := h[0]
		if n == 0 || rr.v != last {
			n++
			last = rr.v
		}
		ok, err := rr.next()
		if err != nil {
			return 0, err
		}
		if ok {
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
		}
	}
	return n, nil
}

// runReader reads a run of sorted keys from a file or memory.
type runReader struct {
	r   *bufio.Reader
	mem []uint64
	v   uint64
	b   [8]byte
}

func (rr *runReader) next() (bool, error) {
	if rr.r == nil {
		if len(rr.mem) == 0 {
			return false, nil
		}
		rr.v, rr.mem = rr.mem[0], rr.mem[1:]
		return true, nil
	}
	if _, err := io.ReadFull(rr.r, rr.b[:]); err != nil {
		if err == io.EOF {
			return false, nil
		}
		return false, err
	}
	rr.v = binary.LittleEndian.Uint64(rr.b[:])
	return true, nil
}

type runHeap []*runReader

func (h runHeap) Len() int           { return len(h) }
func (h runHeap) Less(i, j int) bool { return h[i].v < h[j].v }
func (h runHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *runHeap) Push(x any)        { *h = append(*h, x.(*runReader)) }
func (h *runHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Close removes the runs.
func (s *KeyStore) Close() {
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
}
