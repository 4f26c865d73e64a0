// Package load is the contract between the shared load runner (pkg/runner),
// the input splitters (pkg/split) and the database targets (pkg/target/...).
//
// A splitter cuts an input stream into Batches on record boundaries without
// decoding values. The runner hands each Batch to one Writer of a Target and
// counts only the rows the Writer reports as acknowledged by the server. A
// Target is a few methods: prepare the schema, open a writer per worker,
// count rows afterwards.
package load

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tsload/tsload/pkg/fingerprint"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/schema"
)

// TableRows is a row count for one table (an ILP measurement).
type TableRows struct {
	Name string
	Rows int64
}

// DefaultBatchSize is the number of rows per batch when none is given: the
// loaders' --batch-size default, the runner's and the splitter's.
const DefaultBatchSize = 5000

// Batch is a run of complete records from one input, all of one format and,
// for CSV and pgcopy, of one table. The runner owns and reuses a Batch and its
// Data: a Writer must not keep either after Write returns.
type Batch struct {
	Format format.Format
	// Table is the destination table for CSV and pgcopy batches (columns in
	// the order the data carries them). Nil for ILP: lines name their table.
	Table *schema.Table
	// Data is the payload.
	//   ILP: complete lines, each ending in '\n' (comment and blank lines may be
	//        present and are not rows).
	//   CSV: complete RFC 4180 records, no header, each ending in '\n'.
	//   pgcopy: tuples only (int16 field count, then fields); no signature,
	//        header or trailer: the Writer adds them.
	Data []byte
	// Rows is the number of data rows in Data.
	Rows int
	// Metrics is the number of non-NULL field values in Data (tags and the
	// timestamp are not metrics).
	Metrics int
	// Source names the input (a file path, or "stdin").
	Source string
	// FirstLine is the 1-based line number, in the decompressed input, of the
	// first byte of Data (ILP and CSV). Line n of Data (1-based) is input line
	// FirstLine+n-1, so a server's per-request line number maps back to the file.
	FirstLine int64
	// FirstRecord is the 1-based record number, in the input, of the first
	// row of Data (for pgcopy the tuple number).
	FirstRecord int64
	// Offset is the byte offset, in the decompressed input, of Data[0].
	Offset int64
	// Tables counts the rows of Data per table (per measurement for ILP).
	Tables []TableRows
	// Seq numbers batches from 1 in the order they were cut.
	Seq int64
	// Unchecked marks a batch whose records were only cut (ILP lines):
	// Rows counts them (malformed ones included), Metrics and Tables are
	// not set yet. split.Checker validates and counts it, on a worker,
	// before it is written.
	Unchecked bool
	// Hold, when set, owns the memory Data points into: the input's read
	// buffer or file mapping rather than a copy (a zero-copy batch). Data
	// must then not be written or grown (a consumer that changes it copies
	// it first), and Release must be called once the batch is done with.
	Hold interface{ Release() }
}

// Release gives back what b.Hold owns, and forgets Data (which pointed
// into it). It does nothing for a batch without a Hold.
func (b *Batch) Release() {
	if b.Hold != nil {
		b.Hold.Release()
		b.Hold, b.Data = nil, nil
	}
}

// Where describes a batch's position for error messages:
// "data.ilp.gz: records 5001-10000 (line 5001, byte offset 1234567)".
func (b *Batch) Where() string {
	last := b.FirstRecord + int64(b.Rows) - 1
	if b.Format == format.PGCopy {
		return fmt.Sprintf("%s: records %d-%d (byte offset %d)", b.Source, b.FirstRecord, last, b.Offset)
	}
	return fmt.Sprintf("%s: records %d-%d (line %d, byte offset %d)", b.Source, b.FirstRecord, last, b.FirstLine, b.Offset)
}

// Rejection is one row that the server dropped while writing the rest of the
// batch (InfluxDB's "partial write").
type Rejection struct {
	Line   int64  // input line number (0 when the server did not say)
	Reason string // the server's words
}

// Ack is what a Writer reports for a batch the server answered.
type Ack struct {
	// Rows is the number of rows the server acknowledged as written.
	Rows int
	// Rejected lists rows the server dropped; Rows + len(Rejected) need not
	// equal Batch.Rows when the server does not name every dropped row, in
	// which case Dropped carries the count.
	Rejected []Rejection
	Dropped  int
}

// PrepareOptions are the database lifecycle flags shared by every loader.
type PrepareOptions struct {
	DBName       string
	CreateDB     bool // create the database/tables when missing
	AbortOnExist bool // fail if the database (or a table) already exists
	DropDB       bool // drop the database (or the tables) first
	// TablePrefix starts the name of every table loaded (shared servers:
	// QuestDB has one namespace). The runner adds it to the tables in
	// Tables and in the batches; a target that looks a table's schema up
	// by name (a use case) takes it off first (LookupPrefixed).
	TablePrefix string
	// Tables are the tables known before loading (from a multi-table header,
	// a CSV header, or the use case). For ILP input the list may be empty and
	// a target creates tables as lines name them (or lets the server do it).
	Tables []*schema.Table
}

// Target is one database.
type Target interface {
	// Accepts returns nil when the target can load input of format f, or an
	// error saying why not. The runner asks it for every input once the
	// input's format is known (given or detected from its first bytes) and
	// before Prepare, so input the target cannot load changes nothing in the
	// database: a drop requested with it drops nothing.
	Accepts(f format.Format) error
	// Prepare sets up the database according to opts before any Writer opens.
	Prepare(ctx context.Context, opts PrepareOptions) error
	// NewWriter opens the connection of one worker (0-based id).
	NewWriter(ctx context.Context, worker int) (Writer, error)
	// Count returns the number of rows in each named table, after waiting for
	// whatever the server needs to make acknowledged rows visible.
	Count(ctx context.Context, tables []string) (map[string]int64, error)
	// Close releases what Prepare and Count opened.
	Close() error
}

// Finisher is an optional interface of a Target for work that must follow
// the last write, such as building indexes deferred until after the load.
// The runner calls Finish once, only when it loaded (DoLoad) and nothing
// failed: after the last batch was acknowledged and before Count. The time
// Finish takes is part of the load's wall time (it delays Results.End). An
// error fails the run.
type Finisher interface {
	Finish(ctx context.Context) error
}

// Reporter is an optional interface of a Target: figures about its own
// work (set-up, what Finish did), keyed with their unit, for the summary and
// Results.TargetReport. The runner calls it once at the end of a run that
// loaded; nil or an empty map reports nothing.
type Reporter interface {
	Report() map[string]float64
}

// An Awaiter is a Target whose acknowledged rows become countable only some
// time after (ILP over TCP acknowledges nothing). Before verifying, the
// runner calls Await with the rows it expects in each table (counted before
// plus acknowledged); Await returns once they are there, or once it has
// waited as long as it allows for rows that have not arrived (an error then
// only explains the wait: the count decides).
type Awaiter interface {
	Await(ctx context.Context, want map[string]int64) error
}

// An Overwriter is a Target that may store a point identical in series and
// timestamp to one it holds in place of it (InfluxDB; QuestDB tables with
// DEDUP), so that loading points already there adds fewer rows to a count
// than were acknowledged. Verification reports that instead of a loss when
// the table held rows before the load.
type Overwriter interface {
	Overwrites() bool
}

// A NameFolder is a Target whose database keeps table names that differ
// only in case as one table (QuestDB): FoldName returns the key it keeps
// name under. Verification adds up the rows of names with one key and
// counts that table once.
type NameFolder interface {
	FoldName(name string) string
}

// A ContentCounter is a Target that can compute a table's fingerprint in
// the database (rows, distinct series, time range, per field the non-NULL
// count and sum: package fingerprint) so that verification proves the
// content and not only the row count. Content answers every query, after
// waiting as Count does for acknowledged rows to be visible; a table that
// does not exist comes back with zero rows. A field the database cannot
// aggregate comes back with Count -1, and a string field whose lengths it
// cannot sum with Len -1: verification then says what it could not check.
type ContentCounter interface {
	Content(ctx context.Context, q []fingerprint.Query) (map[string]*fingerprint.Table, error)
}

// Writer writes batches over one connection. It is used by one goroutine.
type Writer interface {
	// Write sends b and reports what the server acknowledged. An error means
	// the batch was not (or not provably) written; wrap it with Retryable when
	// the server says a re-send may succeed. A non-nil Ack with a nil error
	// may still carry rejections (a partial write).
	Write(ctx context.Context, b *Batch) (Ack, error)
	Close() error
}

type retryableError struct {
	err   error
	after time.Duration // the server's Retry-After, 0 when it gave none
}

func (e *retryableError) Error() string { return e.err.Error() }
func (e *retryableError) Unwrap() error { return e.err }

// Retryable marks err as retryable: the server said the batch was not written
// and a re-send may succeed (back-pressure, a lost connection before commit).
func Retryable(err error) error {
	if err == nil {
		return nil
	}
	return &retryableError{err: err}
}

// RetryableAfter marks err retryable like Retryable, and asks the runner to
// wait at least d before the re-send (the server's Retry-After).
func RetryableAfter(err error, d time.Duration) error {
	if err == nil {
		return nil
	}
	return &retryableError{err: err, after: max(d, 0)}
}

// RetryDelay returns the wait that a RetryableAfter error asks for (0 for
// any other error).
func RetryDelay(err error) time.Duration {
	var r *retryableError
	if errors.As(err, &r) {
		return r.after
	}
	return 0
}

// IsRetryable reports whether err (or an error it wraps) was marked Retryable.
func IsRetryable(err error) bool {
	var r *retryableError
	return errors.As(err, &r)
}
