// Package journal is a load's journal, the file written beside its results
// file that says what a later run needs to continue the load where it
// stopped (Journal), and its file work: the atomic snapshot, the ticket
// log, an input's identity, the coalesced ranges of acknowledged batches.
// Live keeps the journal of a running load: its batches in flight, the
// tickets of those sent, the batches in doubt an earlier run left and
// their settling; loadcli reads a journal to resume.
package journal

import (
	"bufio"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tsload/tsload/pkg/load"
)

// A load's journal, written beside its results file (Path), says
// what a later run needs to continue the load where it stopped: which
// inputs (and their identity), with which settings, into which target, and
// which of the inputs' batches the server acknowledged.
//
// A batch is named by its place in its input's cut order (the k-th batch
// the splitter cut from that input, 1-based): the same input, format,
// batch size, table, --skip-invalid and routing (hash workers: the worker
// count) cut the same batches in the same order, which the journal's
// settings and input identities ensure. Acknowledged batches are kept as
// coalesced ranges of that order, each with the byte offsets (in the
// decompressed input) of its first record and the end of its last batch's
// data, and its rows. For one stream of batches (no hash workers, one
// table) those bytes are exactly what the range covers; with hash workers
// or several tables of one CSV/pgcopy input, batches of different workers
// or tables interleave, so one range's bytes also hold other batches' rows:
// the cut order, not the bytes, says what was acknowledged. Compressed
// input (gzip members, zstd frames) is always read again from its start
// and the acknowledged batches skipped by their place: the offsets are
// decompressed ones and only check that the input cuts the same way.
//
// The snapshot is written atomically (a temporary file, fsync, rename,
// fsync of the directory) at the start, every reporting period, whenever
// a table is counted before its first write, and at the end. Batches
// acknowledged after the last snapshot are not in it; how a resumed run
// settles them is the target's (load.Target.InDoubt): re-sent where the server
// overwrites identical points, or, where a Writer hands out tickets
// (load.Hooks.OnTicket, PostgreSQL's transaction ids), settled by the ticket,
// which is appended to a ticket log (Path + ".tickets.N") with one
// write(2) before the batch can commit: it survives the loader being
// killed (the kernel holds it), though not a power loss of the machine
// before the next snapshot's fsync.
type Journal struct {
	Version int      `json:"version"`
	LoadID  string   `json:"load_id"` // the first run's id
	Runs    []string `json:"runs"`    // every run's id, oldest first (the one writing last)
	Loader  string   `json:"loader"`
	Target  string   `json:"target"`
	DBName  string   `json:"db_name"`
	// Flags are the first run's flag values (secrets masked): a resumed
	// run takes those not given again from here.
	Flags    map[string]string `json:"flags,omitempty"`
	Settings Settings          `json:"settings"`
	Inputs   []Input           `json:"inputs"`
	// Tables are the rows acknowledged per table by every run so far;
	// Before the rows each table held before the load first wrote to it.
	Tables map[string]int64 `json:"tables"`
	Before map[string]int64 `json:"before"`
	Rows   int64            `json:"rows"` // acknowledged by every run so far
	// Metrics are the non-NULL field values of those rows; MetricsUnknown
	// when some of them are not known (a batch in doubt found written, or
	// a journal written before metrics were kept).
	Metrics        int64 `json:"metrics,omitempty"`
	MetricsUnknown bool  `json:"metrics_unknown,omitempty"`
	// Partial: some batch was written partially (its rows per table are
	// estimates), so verification compares the total.
	Partial bool `json:"partial,omitempty"`
	// InDoubt are the batches sent and not acknowledged at this snapshot.
	InDoubt []Batch `json:"in_doubt,omitempty"`
	// TicketsFrom is the first ticket log segment this snapshot does not
	// cover: a resumed run settles the tickets of segments from here on.
	TicketsFrom int `json:"tickets_from"`
	// Unsettled: batches may be in doubt beyond InDoubt (a run was killed
	// after its last snapshot, and no run has settled that since).
	Unsettled bool `json:"unsettled,omitempty"`
	// Final is set by the run's last snapshot (the process was not
	// killed); Complete when that run finished ok: nothing is left to do.
	Final    bool      `json:"final"`
	Complete bool      `json:"complete"`
	Status   string    `json:"status"` // the last run's, "running" until it ends
	Written  time.Time `json:"written"`
	// ContinuedIn is set when a resumed run keeps the load's journal
	// elsewhere (another results file): this one is then out of date.
	ContinuedIn string `json:"continued_in,omitempty"`

	path string // where Read read it
}

// File is where Read read j ("" for a journal not read from a file).
func (j *Journal) File() string { return j.path }

// Settings are the settings a resumed run must share with the
// load's first run: they decide how the inputs are cut into batches.
type Settings struct {
	Format         string `json:"format,omitempty"` // as given ("" = detected)
	Detected       string `json:"detected"`         // the first input's
	Table          string `json:"table,omitempty"`
	BatchSize      int    `json:"batch_size"`
	HashWorkers    bool   `json:"hash_workers,omitempty"`
	Parts          int    `json:"parts"` // batch streams routed to workers: Workers with HashWorkers, else 1
	Limit          int64  `json:"limit,omitempty"`
	SkipInvalid    bool   `json:"skip_invalid,omitempty"`
	MaxRecordBytes int    `json:"max_record_bytes,omitempty"`
}

// Input is one input's identity and its acknowledged batches.
type Input struct {
	Path string `json:"path"`
	Size int64  `json:"size"`
	// Head and Tail are SHA-256 (hex) of the file's first and last MiB
	// (as stored: compressed bytes for a compressed file).
	Head  string  `json:"head_sha256"`
	Tail  string  `json:"tail_sha256"`
	Acked []Range `json:"acked"`
}

// Range is a run of consecutive batches of one input, all
// acknowledged: Batches [first, last] in cut order, Bytes [offset of the
// first batch's first record, end of the last batch's data) in the
// decompressed input, and their rows.
type Range struct {
	Batches [2]int64 `json:"batches"`
	Bytes   [2]int64 `json:"bytes"`
	Rows    int64    `json:"rows"`
}

// Batch is a batch in doubt (Range's terms), with the
// tickets its writes were given (one per attempt).
type Batch struct {
	Input   int              `json:"input"`
	Batch   int64            `json:"batch"`
	Bytes   [2]int64         `json:"bytes"`
	Rows    int              `json:"rows"`
	Tables  []load.TableRows `json:"tables,omitempty"`
	Tickets []string         `json:"tickets,omitempty"`
	Run     string           `json:"run,omitempty"` // the run that sent it
}

// Version is the journal format this package writes and reads.
const Version = 1

// Path is the journal of the load whose results file is results.
func Path(results string) string { return results + ".journal" }

// Read reads the journal of a load given its results file, or the
// journal file itself.
func Read(path string) (*Journal, string, error) {
	jp := path
	if !strings.HasSuffix(path, ".journal") {
		jp = Path(path)
	}
	data, err := os.ReadFile(jp)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, jp, fmt.Errorf("%s: no journal beside the results file (a load is journaled when it writes a results file)", jp)
		}
		return nil, jp, err
	}
	var j Journal
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, jp, fmt.Errorf("%s: %w", jp, err)
	}
	if j.Version != Version {
		return nil, jp, fmt.Errorf("%s: journal version %d, this loader reads %d", jp, j.Version, Version)
	}
	if j.ContinuedIn != "" {
		return nil, jp, fmt.Errorf("%s: the load was continued by a run whose journal is %s: resume that one", jp, j.ContinuedIn)
	}
	j.path = jp
	return &j, jp, nil
}

// NewRunID names a run: its start (UTC) and 32 random bits.
func NewRunID() string {
	var b [4]byte
	rand.Read(b[:])
	return time.Now().UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

// Identify returns a file's identity (no acknowledged batches).
func Identify(path string) (Input, error) {
	f, err := os.Open(path)
	if err != nil {
		return Input{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Input{}, err
	}
	const mib = 1 << 20
	abs, err := filepath.Abs(path)
	if err != nil {
		return Input{}, err
	}
	in := Input{Path: abs, Size: st.Size(), Acked: []Range{}}
	hash := func(off, n int64) (string, error) {
		h := sha256.New()
		if _, err := io.Copy(h, io.NewSectionReader(f, off, n)); err != nil {
			return "", fmt.Errorf("%s: %w", path, err)
		}
		return hex.EncodeToString(h.Sum(nil)), nil
	}
	if in.Head, err = hash(0, min(mib, in.Size)); err != nil {
		return in, err
	}
	if in.Tail, err = hash(max(0, in.Size-mib), min(mib, in.Size)); err != nil {
		return in, err
	}
	return in, nil
}

// SameAs says how in differs from the identity an earlier run recorded
// ("" when it does not).
func (in Input) SameAs(old Input) string {
	switch {
	case in.Size != old.Size:
		return fmt.Sprintf("its size is %d bytes, it was %d", in.Size, old.Size)
	case in.Head != old.Head:
		return "its first MiB differs"
	case in.Tail != old.Tail:
		return "its last MiB differs"
	}
	return ""
}

// acked reports whether batch k is in one of rs (sorted, disjoint), and
// that range.
func AckedIn(rs []Range, k int64) (Range, bool) {
	i := sort.Search(len(rs), func(i int) bool { return rs[i].Batches[1] >= k })
	if i < len(rs) && rs[i].Batches[0] <= k {
		return rs[i], true
	}
	return Range{}, false
}

// AddRange adds batch k (bytes [from, to), rows) to rs, merging it with
// the ranges it touches; rs stays sorted. A batch already in rs is kept
// once.
func AddRange(rs []Range, k, from, to, rows int64) []Range {
	if _, ok := AckedIn(rs, k); ok {
		return rs
	}
	i := sort.Search(len(rs), func(i int) bool { return rs[i].Batches[0] > k })
	prev := i > 0 && rs[i-1].Batches[1] == k-1
	next := i < len(rs) && rs[i].Batches[0] == k+1
	switch {
	case prev && next:
		rs[i-1].Batches[1] = rs[i].Batches[1]
		rs[i-1].Bytes[1] = rs[i].Bytes[1]
		rs[i-1].Rows += rows + rs[i].Rows
		return append(rs[:i], rs[i+1:]...)
	case prev:
		rs[i-1].Batches[1], rs[i-1].Bytes[1] = k, to
		rs[i-1].Rows += rows
	case next:
		rs[i].Batches[0], rs[i].Bytes[0] = k, from
		rs[i].Rows += rows
	default:
		rs = append(rs, Range{})
		copy(rs[i+1:], rs[i:])
		rs[i] = Range{Batches: [2]int64{k, k}, Bytes: [2]int64{from, to}, Rows: rows}
	}
	return rs
}

// WriteAtomic replaces path with data: a temporary file in the same
// directory, flushed, renamed over path, and the directory flushed, so
// that after a crash path holds either the old or the new content.
func WriteAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return syncDir(dir)
}

// TicketSegments lists the ticket log segments of journal jp, by number.
func TicketSegments(jp string) (map[int]string, error) {
	paths, err := filepath.Glob(jp + ".tickets.*")
	if err != nil {
		return nil, err
	}
	out := map[int]string{}
	for _, p := range paths {
		n, err := strconv.Atoi(strings.TrimPrefix(p, jp+".tickets."))
		if err == nil && n >= 0 {
			out[n] = p
		}
	}
	return out, nil
}

// ReadTickets reads the batches of the ticket log segments numbered from
// on; a last line cut short by a kill is ignored.
func ReadTickets(jp string, from int) ([]Batch, error) {
	segs, err := TicketSegments(jp)
	if err != nil {
		return nil, err
	}
	nums := make([]int, 0, len(segs))
	for n := range segs {
		if n >= from {
			nums = append(nums, n)
		}
	}
	sort.Ints(nums)
	var out []Batch
	for _, n := range nums {
		f, err := os.Open(segs[n])
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var b Batch
			if json.Unmarshal(sc.Bytes(), &b) == nil && len(b.Tickets) > 0 {
				out = append(out, b)
			}
		}
		err = sc.Err()
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", segs[n], err)
		}
	}
	return out, nil
}
