// Package gen generates the tsload benchmark data sets (cpu-only, devops,
// iot, weather) in ILP, CSV or COPY binary, deterministically from a seed,
// on many cores and, with Shard, on many machines.
//
// # Determinism
//
// Nothing draws from a global random source. Every series (one table of one
// host, truck or grid location) owns a PCG stream seeded by hashing
// (seed, stream kind, table, entity index), and its tags come from another
// stream keyed by the entity alone. The value of any series at epoch e
// therefore depends only on the seed and on that series' own draws at
// epochs 0..e, never on which goroutine or process generates it.
//
// # Parallel pipeline
//
// The entities of the shard are cut into groups of a fixed size per use
// case (512 hosts or trucks, 4096 grid locations), per table: a unit of work
// is (epoch, table, group), and an epoch is the sequence of its units in
// table order, then group order, which is the output order (epoch-major;
// within an epoch table-major, then entity order). With W workers, worker w
// owns units w, w+W, w+2W, ... of every epoch: it keeps the state of its
// groups for the whole run and produces its units in output order, each
// into a byte buffer, which it sends on its own channel. The writer takes
// unit 0 from worker 0, unit 1 from worker 1, and so on round-robin, so it
// receives units in output order without sorting. Each worker has K+2
// buffers (K = 4 in flight), so memory is bounded by workers x buffers x
// unit size (a unit is at most one group's rows of one epoch: tens to
// hundreds of kilobytes) plus the series state, whatever the time span.
//
// The group size does not depend on the worker count, and multi-table
// framing (a CSV #data line or a pgcopy frame per unit) follows units, so
// the bytes are identical for every --workers value. A shard i/M owns
// entities [i*N/M, (i+1)*N/M): its rows are exactly the whole data set's
// rows of those entities, so the shards' rows together (sorted) are the
// whole data set's rows (sorted), and each shard does about 1/M of the work.
//
// With gzip, the writer cuts the stream into 1 MiB chunks that are
// compressed concurrently, each as its own gzip member, and written in
// order: a multi-member gzip file that gzip -d and Go's gzip.Reader decode as
// one stream. Each member declares its compressed size in its header
// (format.GzipSizeExtra), so the loaders find the members without
// inflating and decode them in parallel. With zstd, the chunks are 4 MiB,
// each an independent frame with its content size and checksum.
//
// # Out-of-order, late and repeated rows
//
// Config.Disorder (disorder.go) holds rows back to be written after later
// rows of their series, or writes them twice; its decisions come from one
// more stream per series, so the output stays the same for any worker
// count and shard, and the zero value writes exactly the ordered data set.
//
// # Data
//
// The use cases are those of pkg/usecase (docs/formats.md lists their
// tables and columns); how their values are drawn:
//   - cpu and mem percentages are rounded to 2 decimals when written (the
//     walk keeps full precision); devops integers are the walk truncated.
//     The cpu table of devops equals cpu-only's for the same seed and scale.
//   - iot: readings and diagnostics are separate series with their own
//     streams; latitude and longitude start U(0, 90); elevation and
//     current_load are written as integers, velocity, heading, grade,
//     fuel_consumption and fuel_state with 1 decimal, latitude and longitude
//     with 5. Irregularities: see the IoT* constants (missing runs ~1%,
//     single missing 10%, 5% of rows delayed by 1 to 6 epochs, 10% with one
//     NULL field, 1% with one NULL tag other than name). Delayed rows still
//     pending at the last epoch are written then.
//   - weather: scale N picks N grid locations spread evenly over the grid
//     (LocationID). Temperature = 27 - 52 sin²(lat) + a seasonal term of
//     amplitude 1 + 18|sin(lat)| (opposite in the two hemispheres, coldest
//     mid-January in the north) + a diurnal term of amplitude 1 + 5 cos(lat)
//     peaking at 15:00 local solar time + a fixed per-location offset +
//     an AR(1) anomaly. Winds: trades, westerlies and polar easterlies as
//     Gaussian bands plus AR(1) noise; cloud cover: a logistic of a latitude
//     bias plus AR(1); precipitation only when cover exceeds 0.8, with an
//     exponential amount; snowfall equals precipitation below 0 °C, else 0.
package gen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/klauspost/compress/gzip"
	"golang.org/x/sync/errgroup"

	"github.com/tsload/tsload/pkg/envinfo"
	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/format/csv"
	"github.com/tsload/tsload/pkg/format/ilp"
	"github.com/tsload/tsload/pkg/format/pgcopy"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/schema"
	"github.com/tsload/tsload/pkg/usecase"
)

// Defaults (as in TSBS, except the weather interval and scale).
var (
	DefaultStart           = time.Date(2016, 1, 1, 0, 0, 0, 0, time.UTC)
	DefaultEnd             = time.Date(2016, 1, 2, 0, 0, 0, 0, time.UTC)
	DefaultInterval        = 10 * time.Second
	DefaultWeatherInterval = time.Hour
)

// DefaultGzipLevel is the gzip level when none is given: 1, the fastest
// (benchmark files are large and written once).
const DefaultGzipLevel = 1

// Config is everything generate_data takes.
type Config struct {
	UseCase string        // cpu-only, devops, iot, weather
	Format  format.Format // ilp, csv, pgcopy
	Seed    uint64
	// Scale is the number of hosts (cpu-only, devops), trucks (iot) or grid
	// locations (weather). 0 means the default: 1, or the whole grid for
	// weather.
	Scale int
	// Start and End bound the time range [Start, End); zero means the
	// defaults. Epochs = floor((End - Start) / Interval).
	Start, End time.Time
	// Interval between epochs; 0 means 10s (weather: 1h).
	Interval time.Duration
	// MaxRows caps the rows written (all tables together); 0: no cap.
	MaxRows int64
	// Disorder writes rows out of order, late or twice; the zero value
	// writes every series in time order, each row once.
	Disorder Disorder
	// File is the output path; "" or "-" is Stdout. A ".gz" suffix
	// implies Gzip, a ".zst" suffix Zstd.
	File string
	// OutDir, instead of File, receives one single-table file per table
	// (<table>.ilp|.csv|.pgcopy, plus .gz) and schema.sql.
	OutDir string
	// Gzip compresses the output; GzipLevel 0 means DefaultGzipLevel.
	Gzip      bool
	GzipLevel int
	// Zstd compresses the output with zstd (format.DefaultZstdLevel);
	// exclusive with Gzip.
	Zstd bool
	// RowGroupRows is the rows of a Parquet row group (Parquet output
	// only; 0: parquet.DefaultRowGroupRows).
	RowGroupRows int64
	// Workers generating in parallel; 0 means runtime.NumCPU().
	Workers int
	// Shard is this process's share; the zero value means the whole.
	Shard Shard
	// Progress prints progress on Stderr; ProgressTTY rewrites one line
	// (a terminal) instead of printing a line every 10 seconds.
	Progress    bool
	ProgressTTY bool
	Stdout      io.Writer
	Stderr      io.Writer
}

// Stats is what a run wrote.
type Stats struct {
	Rows    int64
	Bytes   int64 // uncompressed
	Tables  []load.TableRows
	Epochs  int64
	Elapsed time.Duration
}

// ErrBrokenPipe wraps the error of a write to a closed pipe.
var ErrBrokenPipe = errors.New("broken pipe")

func (c *Config) normalize() error {
	if _, err := usecase.Tables(c.UseCase); err != nil {
		return err
	}
	if c.Format == format.Unknown {
		return fmt.Errorf("no output format (want ilp, csv, pgcopy or parquet)")
	}
	if c.Scale < 0 {
		return fmt.Errorf("scale %d: must be positive", c.Scale)
	}
	if c.Scale == 0 {
		c.Scale = 1
		if c.UseCase == usecase.Weather {
			c.Scale = GridLocations
		}
	}
	if c.UseCase == usecase.Weather && c.Scale > GridLocations {
		return fmt.Errorf("scale %d: the weather grid has %d locations", c.Scale, GridLocations)
	}
	if c.Scale > 1<<30 {
		return fmt.Errorf("scale %d: too large", c.Scale)
	}
	if c.Start.IsZero() {
		c.Start = DefaultStart
	}
	if c.End.IsZero() {
		c.End = DefaultEnd
	}
	if c.Interval == 0 {
		c.Interval = DefaultInterval
		if c.UseCase == usecase.Weather {
			c.Interval = DefaultWeatherInterval
		}
	}
	if c.Interval < 0 || c.Interval%time.Microsecond != 0 {
		return fmt.Errorf("interval %v: must be a positive whole number of microseconds", c.Interval)
	}
	if !c.End.After(c.Start) {
		return fmt.Errorf("timestamp end %s is not after start %s", c.End.Format(time.RFC3339Nano), c.Start.Format(time.RFC3339Nano))
	}
	if c.Start.Before(Earliest) || c.End.After(Latest) {
		return fmt.Errorf("time range %s to %s: outside %s..%s", c.Start.Format(time.RFC3339), c.End.Format(time.RFC3339), Earliest.Format("2006"), Latest.Format("2006"))
	}
	if c.End.Sub(c.Start) < c.Interval {
		return fmt.Errorf("time range %s to %s is shorter than one interval (%v)", c.Start.Format(time.RFC3339Nano), c.End.Format(time.RFC3339Nano), c.Interval)
	}
	if err := c.Disorder.normalize(c.Interval); err != nil {
		return err
	}
	if c.MaxRows < 0 {
		return fmt.Errorf("max-rows %d: must not be negative", c.MaxRows)
	}
	if c.Workers < 0 {
		return fmt.Errorf("workers %d: must be positive", c.Workers)
	}
	if c.Workers == 0 {
		c.Workers = runtime.NumCPU()
	}
	if c.Shard.Count == 0 {
		c.Shard = Shard{0, 1}
	}
	if c.Shard.Index < 0 || c.Shard.Index >= c.Shard.Count {
		return fmt.Errorf("shard %s: want 0 <= i < M", c.Shard)
	}
	if c.File == "-" {
		c.File = ""
	}
	if c.OutDir != "" && c.File != "" {
		return fmt.Errorf("--file and --out-dir are exclusive")
	}
	if strings.HasSuffix(c.File, ".gz") {
		c.Gzip = true
	}
	if strings.HasSuffix(c.File, ".zst") {
		c.Zstd = true
	}
	if c.Gzip && c.Zstd {
		return fmt.Errorf("gzip and zstd are exclusive")
	}
	if c.GzipLevel == 0 {
		c.GzipLevel = DefaultGzipLevel
	}
	if c.GzipLevel < gzip.HuffmanOnly || c.GzipLevel > gzip.BestCompression {
		return fmt.Errorf("gzip level %d: want -2 (Huffman only), -1 (default) or 1 to 9", c.GzipLevel)
	}
	if c.Stdout == nil {
		c.Stdout = os.Stdout
	}
	if c.Stderr == nil {
		c.Stderr = os.Stderr
	}
	return nil
}

// Epochs returns the number of epochs of a normalized config.
func (c *Config) epochs() int64 { return int64(c.End.Sub(c.Start) / c.Interval) }

// Run generates the data set that cfg describes.
func Run(ctx context.Context, cfg Config) error {
	_, err := Generate(ctx, cfg)
	return err
}

type unitSpec struct{ table, lo, hi int }

// Generate is Run, returning what was written.
func Generate(ctx context.Context, cfg Config) (Stats, error) {
	if err := cfg.normalize(); err != nil {
		return Stats{}, err
	}
	m, err := newModel(cfg.UseCase, params{seed: cfg.Seed, scale: cfg.Scale, start: cfg.Start, interval: cfg.Interval})
	if err != nil {
		return Stats{}, err
	}
	tables := m.tables()
	n := m.entities()
	lo := int(int64(n) * int64(cfg.Shard.Index) / int64(cfg.Shard.Count))
	hi := int(int64(n) * int64(cfg.Shard.Index+1) / int64(cfg.Shard.Count))
	gs := m.groupSize()
	if testGroupSize > 0 {
		gs = testGroupSize
	}
	var specs []unitSpec
	for t := range tables {
		for a := lo; a < hi; a += gs {
			specs = append(specs, unitSpec{t, a, min(a+gs, hi)})
		}
	}
	p := &pipeline{cfg: &cfg, m: m, tables: tables, specs: specs, epochs: cfg.epochs()}
	return p.run(ctx)
}

// newEncoders returns one encoder per table and the row's table index for
// it: a shared stream encoder, or one single-table encoder per table.
func newEncoders(f format.Format, tables []*schema.Table, perTable bool) ([]format.Encoder, []int, error) {
	mk := func(ts []*schema.Table) (format.Encoder, error) {
		multi := len(ts) > 1
		switch f {
		case format.ILP:
			return ilp.New(ts)
		case format.CSV:
			return csv.New(ts, multi)
		case format.PGCopy:
			return pgcopy.New(ts, multi)
		case format.Parquet:
			return newTupleEncoder(ts) // parquet.go
		}
		return nil, fmt.Errorf("unknown format %v", f)
	}
	encs := make([]format.Encoder, len(tables))
	idx := make([]int, len(tables))
	if perTable {
		for i, t := range tables {
			e, err := mk([]*schema.Table{t})
			if err != nil {
				return nil, nil, err
			}
			encs[i] = e
		}
		return encs, idx, nil
	}
	e, err := mk(tables)
	if err != nil {
		return nil, nil, err
	}
	for i := range tables {
		encs[i], idx[i] = e, i
	}
	return encs, idx, nil
}

// Extension returns the file name extension of a format: its name after a
// dot (.ilp, .csv, .pgcopy, .parquet).
func Extension(f format.Format) string { return "." + f.String() }

// testGroupSize, when positive, replaces the model's group size (tests use
// tiny groups to exercise many workers on little data).
var testGroupSize int

// inFlight is the number of units a worker may have sent but the writer not
// yet written.
const inFlight = 4

type pipeline struct {
	cfg    *Config
	m      model
	tables []*schema.Table
	specs  []unitSpec
	epochs int64

	rows, bytes, epochsDone atomic.Int64
}

func (p *pipeline) run(ctx context.Context) (Stats, error) {
	cfg := p.cfg
	began := time.Now()
	perTable := cfg.OutDir != ""
	if err := cfg.checkParquet(len(p.tables)); err != nil { // parquet.go
		return Stats{}, err
	}
	// validate the encoders before opening any output
	encs, idx, err := newEncoders(cfg.Format, p.tables, perTable)
	if err != nil {
		return Stats{}, err
	}
	outs, err := openOutputs(cfg, p.tables)
	if err != nil {
		return Stats{}, err
	}
	if err := wrapParquet(cfg, outs, p.tables); err != nil { // parquet.go
		for _, o := range outs {
			o.close()
		}
		return Stats{}, err
	}
	outOf := func(table int) *output {
		if perTable {
			return outs[table]
		}
		return outs[0]
	}
	stopProgress := p.startProgress()
	st, err := p.generate(ctx, encs, idx, outs, outOf)
	for _, o := range outs {
		if cerr := o.close(); cerr != nil && err == nil {
			err = cerr
		}
	}
	st.Elapsed = time.Since(began)
	if err == nil && cfg.File != "" {
		err = envinfo.WriteDataset(cfg.File, cfg.dataset(st))
	}
	stopProgress(err == nil, st)
	return st, err
}

// dataset describes what a run wrote, for the loaders' results files.
func (c *Config) dataset(st Stats) envinfo.Dataset {
	seed := c.Seed
	d := envinfo.Dataset{
		UseCase:     c.UseCase,
		Scale:       c.Scale,
		Seed:        &seed,
		Start:       c.Start.Format(time.RFC3339Nano),
		End:         c.End.Format(time.RFC3339Nano),
		Interval:    c.Interval.String(),
		MaxRows:     c.MaxRows,
		Format:      c.Format.String(),
		Rows:        st.Rows,
		Bytes:       st.Bytes,
		Compression: "none",
	}
	if c.Shard.Count > 1 {
		d.Shard = c.Shard.String()
	}
	if x := c.Disorder; x.Enabled() {
		d.Disorder = &envinfo.Disorder{OutOfOrder: x.OutOfOrder, Late: x.Late, Repeat: x.Repeat, RepeatChanges: x.RepeatChanges}
		if x.OutOfOrder > 0 {
			d.Disorder.OutOfOrderWindow = x.OutOfOrderWindow.String()
		}
		if x.Late > 0 {
			d.Disorder.LateBy = x.LateBy.String()
		}
	}
	if c.Gzip {
		d.Compression = fmt.Sprintf("gzip level %d", c.GzipLevel)
	}
	return d
}

func (p *pipeline) generate(ctx context.Context, encs []format.Encoder, idx []int, outs []*output, outOf func(int) *output) (Stats, error) {
	cfg := p.cfg
	st := Stats{Tables: make([]load.TableRows, len(p.tables))}
	for i, t := range p.tables {
		st.Tables[i].Name = t.Name
	}
	var scratch []byte
	for i, o := range outs {
		e := encs[0]
		if len(outs) > 1 {
			e = encs[i]
		}
		scratch = e.StreamHeader(scratch[:0])
		if err := o.write(scratch); err != nil {
			return st, err
		}
	}
	W := min(cfg.Workers, len(p.specs))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	eg, ectx := errgroup.WithContext(ctx)
	ch := make([]chan *unit, W)
	free := make([]chan *unit, W)
	for w := 0; w < W; w++ {
		ch[w] = make(chan *unit, inFlight)
		free[w] = make(chan *unit, inFlight+2)
		for i := 0; i < inFlight+2; i++ {
			free[w] <- &unit{}
		}
		w := w
		eg.Go(func() error { return p.work(ectx, w, W, ch[w], free[w]) })
	}
	done, werr := func() (bool, error) {
		if W == 0 {
			p.epochsDone.Store(p.epochs)
			st.Epochs = p.epochs
			return true, nil
		}
		for e := int64(0); e < p.epochs; e++ {
			for ui := range p.specs {
				w := ui % W
				var u *unit
				select {
				case u = <-ch[w]:
				case <-ectx.Done():
					return false, nil // a worker failed or ctx ended: reported below
				}
				if u.err != nil {
					return false, u.err
				}
				rows := u.rows()
				n := len(u.buf)
				capped := false
				if cfg.MaxRows > 0 && st.Rows+int64(rows) >= cfg.MaxRows {
					rows = int(cfg.MaxRows - st.Rows)
					n = 0
					if rows > 0 {
						n = int(u.ends[rows-1])
					}
					capped = true
				}
				if rows > 0 {
					o := outOf(u.table)
					scratch = encs[u.table].ChunkHeader(scratch[:0], idx[u.table], n)
					if err := o.write(scratch); err != nil {
						return false, err
					}
					if err := o.write(u.buf[:n]); err != nil {
						return false, err
					}
					st.Rows += int64(rows)
					st.Tables[u.table].Rows += int64(rows)
					p.rows.Store(st.Rows)
					p.bytes.Add(int64(n + len(scratch)))
				}
				free[w] <- u
				if capped {
					return true, nil
				}
			}
			st.Epochs = e + 1
			p.epochsDone.Store(e + 1)
		}
		return true, nil
	}()
	cancel()
	gerr := eg.Wait()
	if werr != nil {
		return st, werr
	}
	if !done {
		if gerr != nil && !errors.Is(gerr, context.Canceled) {
			return st, gerr
		}
		if err := ctx.Err(); err != nil {
			return st, err
		}
		return st, gerr
	}
	for i, o := range outs {
		e := encs[0]
		if len(outs) > 1 {
			e = encs[i]
		}
		scratch = e.StreamTrailer(scratch[:0])
		if err := o.write(scratch); err != nil {
			return st, err
		}
	}
	st.Bytes = p.bytes.Load()
	return st, nil
}

// work runs worker w of W: it owns units w, w+W, ... of every epoch.
func (p *pipeline) work(ctx context.Context, w, W int, out chan<- *unit, free <-chan *unit) error {
	encs, idx, err := newEncoders(p.cfg.Format, p.tables, p.cfg.OutDir != "")
	if err != nil {
		return err
	}
	var groups []group
	var dis []*disorder
	for ui := w; ui < len(p.specs); ui += W {
		s := p.specs[ui]
		groups = append(groups, p.m.newGroup(s.table, s.lo, s.hi))
		if p.cfg.Disorder.Enabled() {
			dis = append(dis, newDisorder(&p.cfg.Disorder, p.cfg.Seed, p.cfg.Interval, s.table, s.lo, s.hi))
		}
	}
	c := epochCtx{start: p.cfg.Start.UnixNano(), step: int64(p.cfg.Interval)}
	for e := int64(0); e < p.epochs; e++ {
		c.e, c.ns, c.last = e, c.start+e*c.step, e == p.epochs-1
		for gi, ui := 0, w; ui < len(p.specs); gi, ui = gi+1, ui+W {
			var u *unit
			select {
			case u = <-free:
			case <-ctx.Done():
				return ctx.Err()
			}
			t := p.specs[ui].table
			u.reset(t)
			c.enc, c.table = encs[t], idx[t]
			if dis != nil {
				c.dis = dis[gi]
			}
			u.err = groups[gi].epoch(&c, u)
			if u.err == nil && c.dis != nil {
				u.err = c.dis.finish(&c, u)
			}
			select {
			case out <- u:
			case <-ctx.Done():
				return ctx.Err()
			}
			if u.err != nil {
				return nil
			}
		}
	}
	return nil
}

// output is one destination: stdout, a file, or a file of --out-dir.
type output struct {
	name   string
	w      io.Writer
	flush  func() error // flush buffers and compressor
	file   *os.File     // nil for stdout
	stdout bool
	err    error
}

func (o *output) write(b []byte) error {
	if o.err != nil {
		return o.err
	}
	if len(b) == 0 {
		return nil
	}
	if _, err := o.w.Write(b); err != nil {
		o.err = o.wrap(err)
	}
	return o.err
}

func (o *output) wrap(err error) error {
	if errors.Is(err, errPipe) {
		return fmt.Errorf("write %s: %w: %w", o.name, ErrBrokenPipe, err)
	}
	return fmt.Errorf("write %s: %w", o.name, err)
}

func (o *output) close() error {
	err := o.err
	if ferr := o.flush(); ferr != nil && err == nil {
		err = o.wrap(ferr)
	}
	if o.file != nil {
		if cerr := o.file.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close %s: %w", o.name, cerr)
		}
	}
	o.err = err
	return err
}

func openOutputs(cfg *Config, tables []*schema.Table) ([]*output, error) {
	if cfg.OutDir == "" {
		if cfg.File == "" {
			return []*output{newOutput(cfg, "stdout", cfg.Stdout, nil)}, nil
		}
		f, err := os.Create(cfg.File)
		if err != nil {
			return nil, fmt.Errorf("cannot write output: %w", err)
		}
		return []*output{newOutput(cfg, cfg.File, f, f)}, nil
	}
	if err := os.MkdirAll(cfg.OutDir, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create output directory: %w", err)
	}
	var ddl strings.Builder
	for _, t := range tables {
		ddl.WriteString(t.PostgresDDL(false))
		ddl.WriteString(";\n")
	}
	if err := os.WriteFile(filepath.Join(cfg.OutDir, "schema.sql"), []byte(ddl.String()), 0o644); err != nil {
		return nil, fmt.Errorf("cannot write schema: %w", err)
	}
	var outs []*output
	for _, t := range tables {
		name := filepath.Join(cfg.OutDir, t.Name+Extension(cfg.Format))
		if cfg.Gzip {
			name += ".gz"
		}
		if cfg.Zstd {
			name += ".zst"
		}
		f, err := os.Create(name)
		if err != nil {
			for _, o := range outs {
				o.file.Close()
			}
			return nil, fmt.Errorf("cannot write output: %w", err)
		}
		outs = append(outs, newOutput(cfg, name, f, f))
	}
	return outs, nil
}

func newOutput(cfg *Config, name string, w io.Writer, f *os.File) *output {
	o := &output{name: name, file: f, stdout: f == nil}
	if cfg.Gzip {
		z := newParallelGzip(w, cfg.GzipLevel, cfg.Workers)
		o.w, o.flush = z, z.Close
		return o
	}
	if cfg.Zstd {
		// The options are constant and valid: NewWriter cannot fail.
		z, _ := newParallelZstd(w, format.DefaultZstdLevel, cfg.Workers)
		o.w, o.flush = z, z.Close
		return o
	}
	b := newBufWriter(w, 1<<20)
	o.w, o.flush = b, b.Flush
	return o
}
