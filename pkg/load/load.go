// Package load is the contract between the shared load runner (pkg/runner),
// the input splitters (pkg/split) and the database targets (pkg/target/...).
//
// A splitter cuts an input stream into Batches on record boundaries without
// decoding values. The runner hands each Batch to one Writer of a Target and
// counts only the rows the Writer reports as acknowledged by the server. A
// Target declares its whole face in one interface and one Hooks value
// (target.go; docs/adding-a-target.md). What a run recorded is package
// results.
package load

import (
	"errors"
	"fmt"
	"time"

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

// DefaultDatabase is the database (or bucket, or keyspace) loaded when none
// is named: the --db-name flag's default, and a target library's when its
// Config leaves it empty.
const DefaultDatabase = "benchmark"

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
	// Volatile: the server answered before making the rows durable (an
	// asynchronous commit): a server crash may still lose them. The writer
	// names the batch durable later through Hooks.OnDurable; until then a
	// journaled load keeps the batch in doubt, so a resumed run checks it.
	Volatile bool
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

type notWrittenError struct{ err error }

func (e *notWrittenError) Error() string { return e.err.Error() }
func (e *notWrittenError) Unwrap() error { return e.err }

// NotWritten marks err, a batch's refusal, as certain that nothing of the
// batch is written: the server refused the whole request (it rolled back),
// or the batch was refused before it was sent. A journaled load then does
// not keep the batch in doubt when this was its first attempt (an earlier
// attempt without an answer may have written it). Never for an error after
// which the batch may be written: a lost answer, a timeout.
func NotWritten(err error) error {
	if err == nil {
		return nil
	}
	return &notWrittenError{err: err}
}

// IsNotWritten reports whether err (or an error it wraps) was marked
// NotWritten.
func IsNotWritten(err error) bool {
	var n *notWrittenError
	return errors.As(err, &n)
}
