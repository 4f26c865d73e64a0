package load

import (
	"context"
	"errors"
	"time"

	"github.com/tsload/tsload/pkg/fingerprint"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/query"
	"github.com/tsload/tsload/pkg/results"
)

// Target is one database: its whole face. The first five methods load;
// the next seven are what every real target answers (a test target embeds
// Unsupported for them); Hooks declares the optional behaviours.
// docs/adding-a-target.md walks through writing one.
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
	// whatever the server needs to make acknowledged rows visible. It may be
	// called while Writers write: verification counts each table before the
	// load first writes to it, on the worker about to write, while other
	// workers write to other tables.
	Count(ctx context.Context, tables []string) (map[string]int64, error)
	// Close releases what Prepare and Count opened.
	Close() error

	// Ping checks, once and before Prepare, that the server answers at the
	// configured address. The runner does not retry it: a server that is
	// not there at the start (connection refused, an unknown host) fails
	// the run at once, while the same error in the middle of a load is a
	// retryable lost connection. It should take well under a second on a
	// reachable server.
	Ping(ctx context.Context) error
	// ServerVersion is the server's version as the server reports it (for
	// PostgreSQL also the TimescaleDB extension's). The runner asks once,
	// after Prepare, only when loading, under a short deadline; an error is
	// recorded in Environment.Server.Error and never fails the run.
	ServerVersion(ctx context.Context) (string, error)
	// ServerAddr is the host:port of the server written to, so the runner
	// can find the server's process when it runs on this machine (and say
	// "remote server" when it does not); "" when the target cannot say.
	ServerAddr() string
	// Describe says where the load went and what the target made of the
	// tables (nil: it says nothing). The runner asks once at the end of a
	// run that loaded (after verification) and records it as
	// Results.Setup; a key of Setup.Settings that names a recorded flag
	// replaces the flag's value, so the results record what was done
	// rather than what was asked.
	Describe() *results.Setup
	// Footprint is the bytes on disk of the named tables (for databases
	// that account per database rather than per table, such as InfluxDB,
	// of the database that holds them; Size.Method says so). The runner
	// asks after the last batch (after Finish) and again while waiting for
	// the size to settle; an error is recorded in Results.Cost and never
	// fails the run. errors.ErrUnsupported: the target has no accounting
	// (the footprint then says it was not measured, never 0).
	Footprint(ctx context.Context, tables []string) (Size, error)
	// Content computes the tables' fingerprints in the database (rows,
	// distinct series, time range, per field the non-NULL count and sum:
	// package fingerprint) so that verification proves the content and not
	// only the row count. It answers every query, after waiting as Count
	// does for acknowledged rows to be visible; a table that does not exist
	// comes back with zero rows. A field the database cannot aggregate
	// comes back with Count -1, and a string field whose lengths it cannot
	// sum with Len -1: verification then says what it could not check.
	// With no queries it answers at once, without asking the server: the
	// runner asks so to learn whether content can be verified at all
	// (errors.ErrUnsupported: only row counts can).
	Content(ctx context.Context, q []fingerprint.Query) (map[string]*fingerprint.Table, error)
	// InDoubt says how batches in doubt are settled when a stopped load is
	// resumed, for the load's tables (those the earlier runs wrote to; the
	// runner asks before Prepare), or returns an error saying why they
	// cannot be (a QuestDB table without DEDUP: a re-sent batch that was
	// written is stored twice). errors.ErrUnsupported: the target cannot
	// resume a load.
	InDoubt(ctx context.Context, tables []string) (InDoubt, error)

	// Hooks declares the target's optional behaviours. The runner reads
	// them once, at the start of Run.
	Hooks() Hooks
}

// Hooks are a target's optional behaviours in one value: a nil func, a
// false or a zero is a behaviour the target does not have.
type Hooks struct {
	// Finish is work that must follow the last write, such as building
	// indexes deferred until after the load. The runner calls it once, only
	// when it loaded (DoLoad) and nothing failed: after the last batch was
	// acknowledged and before Count. Its time is part of the load's wall
	// time (it delays Results.End). An error fails the run.
	Finish func(ctx context.Context) error
	// Report gives figures about the target's own work (set-up, what
	// Finish did), keyed with their unit, for the summary and
	// Results.TargetReport. Called once at the end of a run that loaded;
	// nil or an empty map reports nothing.
	Report func() map[string]float64
	// Await is for a target whose acknowledged rows become countable only
	// some time after (ILP over TCP acknowledges nothing). Before
	// verifying, the runner calls it with the rows it expects in each table
	// (counted before plus acknowledged); it returns once they are there,
	// or once it has waited as long as it allows for rows that have not
	// arrived (an error then only explains the wait: the count decides).
	Await func(ctx context.Context, want map[string]int64) error
	// Overwrites: the database may store a point identical in series and
	// timestamp to one it holds in place of it (InfluxDB; QuestDB tables
	// with DEDUP), so that loading points already there adds fewer rows to
	// a count than were acknowledged. Verification reports that instead of
	// a loss when the table held rows before the load.
	Overwrites bool
	// FoldName is for a database that keeps table names differing only in
	// case as one table (QuestDB): the key it keeps name under.
	// Verification adds up the rows of names with one key and counts that
	// table once.
	FoldName func(name string) string
	// Catalog says which columns a table already has in the database, so
	// that a table that exists decides how an input is loaded into it, not
	// a use case of the same name. It returns table name (as loaded, any
	// TablePrefix included) as the database has it, or nil, nil when the
	// table (or its database) does not exist. The runner asks before
	// Prepare (and with DoLoad false, when the server answers), for each
	// table an input names, with opts as Prepare will get them; it does not
	// ask when opts.DropDB drops the tables anyway.
	Catalog func(ctx context.Context, opts PrepareOptions, name string) (*CatalogTable, error)
	// Drops is for a target that drops tables one at a time under
	// PrepareOptions.DropDB and may leave some alone (QuestDB has no
	// database to drop: it drops the use-case tables it knows and leaves
	// any other table to the server): whether table was, or will be before
	// this run's first write to it, dropped. The runner counts the rows of
	// every other table before loading, so verification proves what this
	// run added to a table that kept its rows. Nil: DropDB drops
	// everything the target loads.
	Drops func(table string) bool
	// LineUnit is the unit in which a line-protocol target reads its
	// lines' timestamps when not nanoseconds (its Precision, parsed once
	// by the target): the one home of that unit. The runner writes the
	// lines it makes from tabular input (CSV) in it, and reads the input's
	// times in it for the content fingerprints and the query checks.
	LineUnit time.Duration
	// FlushStorage is for a target whose Footprint counts only what the
	// server has written to its files: it asks the server to write what it
	// holds in memory (and to publish the size), and says what it asked.
	// Called once, before waiting for the footprint to settle, and only
	// when asked to wait.
	FlushStorage func(ctx context.Context, tables []string) (string, error)
	// Settle is for a target whose InDoubt answers SettleInDoubt: it
	// reports, for each ticket a writer handed out (possibly in an earlier
	// process), whether its batch was written; it must make sure that a
	// batch it reports as not written cannot be written later (a
	// transaction still in flight on the server is ended first).
	Settle func(ctx context.Context, tickets []string) (written []bool, err error)
	// OnTicket, set with Settle, gives the target, once and before its
	// first NewWriter, the function every Writer's Write calls with the
	// batch and its ticket once the ticket is known and before the batch
	// can be committed (PostgreSQL: the transaction's id); an error from it
	// fails the Write (the batch is then not written). A batch sent again
	// (a retry) gets a new ticket; at most one of its tickets is ever
	// written.
	OnTicket func(note func(b *Batch, ticket string) error)
	// OnDurable, for a target whose acknowledgement may come before the
	// rows are durable (Ack.Volatile), gives the target, once and before
	// its first NewWriter, the function every Writer calls with each such
	// batch (the same Seq) once the server has made it durable
	// (PostgreSQL: a later synchronous commit flushed the WAL past it).
	OnDurable func(durable func(b *Batch))
	// NewQuerier opens query connection n (0-based, of --query-workers;
	// n = --query-workers is the final round's, after the load) for the
	// query load that runs beside the writers (--query-rate). It is
	// called after Prepare, and the runner closes each Querier when the
	// load ends. Nil: the target cannot be queried, and a --query-rate is
	// refused before anything is loaded.
	NewQuerier func(ctx context.Context, n int) (Querier, error)
	// QueryLag is how long after its acknowledgement a batch's rows may
	// take to be visible to a Querier (a server that applies writes
	// asynchronously, such as a QuestDB WAL table or VictoriaMetrics'
	// caches): a checked query's window covers only batches acknowledged
	// at least this long ago. Zero: visible once acknowledged.
	QueryLag time.Duration
	// AcksNotVisible: an acknowledged batch's rows may stay invisible to a
	// Querier for a time nobody bounds (ILP over TCP acknowledges nothing;
	// InfluxDB 3 acknowledges rows before they are all queryable). The
	// query load then checks an answer only over rows it has counted in
	// the database first (per field, on a querier of its own), as many as
	// the input holds. It is read after Prepare (Hooks is asked again
	// then).
	AcksNotVisible bool
}

// Querier answers queries over a connection of its own, apart from the
// writers'. It is used by one goroutine.
type Querier interface {
	// Query states q in the database's dialect, runs it and reads the
	// result back as a query.Answer (rows in any order; a bucket start
	// or a row time in Row.Time as package query defines it). A query
	// the target cannot state returns an error wrapping
	// errors.ErrUnsupported: the runner counts it apart from failures.
	Query(ctx context.Context, q *query.Query) (*query.Answer, error)
	Close() error
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

// Unsupported answers the seven methods of Target that every real target
// implements with "not supported" (errors.ErrUnsupported, "", nil) and
// declares no Hooks. A test target embeds it and writes only what it
// tests.
type Unsupported struct{}

func (Unsupported) Ping(context.Context) error { return errors.ErrUnsupported }

func (Unsupported) ServerVersion(context.Context) (string, error) {
	return "", errors.ErrUnsupported
}

func (Unsupported) ServerAddr() string { return "" }

func (Unsupported) Describe() *results.Setup { return nil }

func (Unsupported) Footprint(context.Context, []string) (Size, error) {
	return Size{}, errors.ErrUnsupported
}

func (Unsupported) Content(context.Context, []fingerprint.Query) (map[string]*fingerprint.Table, error) {
	return nil, errors.ErrUnsupported
}

func (Unsupported) InDoubt(context.Context, []string) (InDoubt, error) {
	return 0, errors.ErrUnsupported
}

func (Unsupported) Hooks() Hooks { return Hooks{} }
