package runner

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/results"
	"github.com/tsload/tsload/pkg/split"
	"github.com/tsload/tsload/pkg/usecase"
)

func TestRunCounts(t *testing.T) {
	path, perTable := ilpInput(t, 10007)
	f := newFake()
	cfg := baseConfig(path)
	cfg.Prepare = load.PrepareOptions{DBName: "bench", CreateDB: true}
	res, err := Run(context.Background(), cfg, f)
	if err != nil {
		t.Fatal(err)
	}
	if res.Rows != 10007 || res.RowsRead != 10007 || res.Metrics != 2*10007 || res.Batches != 11 || res.Status != results.StatusOK {
		t.Fatalf("results %+v", res)
	}
	if res.Verify == nil || !res.Verify.OK || fmt.Sprint(res.Verify.Expected) != fmt.Sprint(perTable) {
		t.Fatalf("verify %+v, want %v", res.Verify, perTable)
	}
	if f.prepared == nil || f.prepared.DBName != "bench" || len(f.prepared.Tables) != 0 || f.writers.Load() != 3 {
		t.Fatalf("prepare %+v writers %d", f.prepared, f.writers.Load())
	}
	if res.Format != "ilp" || res.Bytes == 0 || res.Latency.Max <= 0 {
		t.Errorf("format %s bytes %d latency %+v", res.Format, res.Bytes, res.Latency)
	}
}

func TestPrepareTablesFromHeader(t *testing.T) {
	data := "#tsload-csv v1\n#table cpu time:timestamptz,hostname:text,usage_user:float8\n#table mem time:timestamptz,hostname:text,used:int8\n#data mem\n2016-01-01T00:00:00Z,a,1\n"
	path := filepath.Join(t.TempDir(), "s.csv")
	os.WriteFile(path, []byte(data), 0o644)
	f := newFake()
	res, err := Run(context.Background(), baseConfig(path), f)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.prepared.Tables) != 2 || f.prepared.Tables[0].Name != "cpu" || res.Rows != 1 {
		t.Fatalf("tables %v rows %d", f.prepared.Tables, res.Rows)
	}
	if fmt.Sprint(f.counted) != "[mem]" {
		t.Errorf("counted %v", f.counted)
	}
}

func TestRetries(t *testing.T) {
	path, _ := ilpInput(t, 5000)
	f := newFake()
	f.fail = func(b *load.Batch, attempt int) (load.Ack, error) {
		if b.Seq%2 == 0 && attempt <= 2 {
			return load.Ack{}, load.Retryable(errors.New("503 busy"))
		}
		return load.Ack{Rows: b.Rows}, nil
	}
	res, err := Run(context.Background(), baseConfig(path), f)
	if err != nil {
		t.Fatal(err)
	}
	if res.Retries != 4 || res.Rows != 5000 || res.Errors != 0 {
		t.Fatalf("retries %d rows %d errors %d", res.Retries, res.Rows, res.Errors)
	}
}

// TestRetryAfter: a server's Retry-After is waited out before the re-send
// (the runner's own first back-off is 50-100ms), and counts against
// --retry-timeout.
func TestRetryAfter(t *testing.T) {
	path, _ := ilpInput(t, 10)
	f := newFake()
	var first, second time.Time
	f.fail = func(b *load.Batch, attempt int) (load.Ack, error) {
		if attempt == 1 {
			first = time.Now()
			return load.Ack{}, load.RetryableAfter(errors.New("429 too many requests"), 400*time.Millisecond)
		}
		second = time.Now()
		return load.Ack{Rows: b.Rows}, nil
	}
	res, err := Run(context.Background(), baseConfig(path), f)
	if err != nil || res.Retries != 1 {
		t.Fatalf("err %v retries %d", err, res.Retries)
	}
	if d := second.Sub(first); d < 400*time.Millisecond {
		t.Fatalf("re-sent after %s, before the server's Retry-After of 400ms", d)
	}
	cfg := baseConfig(path)
	cfg.RetryTimeout = 300 * time.Millisecond
	f.fail = func(b *load.Batch, attempt int) (load.Ack, error) {
		return load.Ack{}, load.RetryableAfter(errors.New("503 unavailable"), time.Second)
	}
	if _, err := Run(context.Background(), cfg, f); err == nil || !strings.Contains(err.Error(), "giving up after 0 retries") {
		t.Fatalf("a Retry-After beyond --retry-timeout: err %v", err)
	}
}

func TestRetryTimeout(t *testing.T) {
	path, _ := ilpInput(t, 10)
	f := newFake()
	f.fail = func(b *load.Batch, attempt int) (load.Ack, error) {
		return load.Ack{}, load.Retryable(errors.New("503 busy"))
	}
	cfg := baseConfig(path)
	cfg.RetryTimeout = 100 * time.Millisecond
	res, err := Run(context.Background(), cfg, f)
	if err == nil || !strings.Contains(err.Error(), "data.ilp: records 1-10 (line 1, byte offset 0): giving up after") || !strings.Contains(err.Error(), "503 busy") {
		t.Fatalf("err %v", err)
	}
	if res.Retries < 5 || res.Rows != 0 || res.Status != results.StatusFailed {
		t.Fatalf("retries %d rows %d status %s", res.Retries, res.Rows, res.Status)
	}
}

func TestNonRetryableStops(t *testing.T) {
	path, _ := ilpInput(t, 20000)
	f := newFake()
	f.fail = failAt(3)
	cfg := baseConfig(path)
	cfg.Workers = 1
	cfg.ResultsFile = filepath.Join(t.TempDir(), "r.json")
	res, err := Run(context.Background(), cfg, f)
	want := "data.ilp: records 2001-3000 (line 2001, byte offset"
	if err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, errDisk) {
		t.Fatalf("err %v", err)
	}
	if res.Rows != 2000 || res.Status != results.StatusFailed || res.Errors != 1 || f.attempts[3] != 1 {
		t.Fatalf("rows %d status %s errors %d attempts %d", res.Rows, res.Status, res.Errors, f.attempts[3])
	}
	// The reader stopped: far fewer than 20 batches were cut.
	if res.RowsRead > 10000 {
		t.Errorf("read %d rows after the failure", res.RowsRead)
	}
	var onDisk results.Results
	data, _ := os.ReadFile(cfg.ResultsFile)
	if err := json.Unmarshal(data, &onDisk); err != nil || onDisk.Status != results.StatusFailed || onDisk.Rows != 2000 || !strings.Contains(onDisk.Error, "disk full") {
		t.Fatalf("results file %v: %s", err, data)
	}
}

func TestPartialWrites(t *testing.T) {
	path, _ := ilpInput(t, 3000)
	reject := func(b *load.Batch, attempt int) (load.Ack, error) {
		if b.Seq == 2 {
			return load.Ack{Rows: b.Rows - 3, Rejected: []load.Rejection{{Line: b.FirstLine + 4, Reason: "field type conflict"}, {Line: b.FirstLine + 9, Reason: "field type conflict"}}, Dropped: 1}, nil
		}
		return load.Ack{Rows: b.Rows}, nil
	}
	f := newFake()
	f.fail = reject
	res, err := Run(context.Background(), baseConfig(path), f)
	if err == nil || !strings.Contains(err.Error(), "3 rows rejected by the server") || !strings.Contains(err.Error(), "data.ilp: line 1005: field type conflict") {
		t.Fatalf("err %v", err)
	}
	if res.Rows != 2997 || res.RejectedRows != 3 || res.Status != results.StatusFailed {
		t.Fatalf("rows %d rejected %d", res.Rows, res.RejectedRows)
	}
	// With --skip-invalid the run succeeds and verifies the total.
	f = newFake()
	f.fail = reject
	cfg := baseConfig(path)
	cfg.SkipInvalid = true
	res, err = Run(context.Background(), cfg, f)
	if err != nil || res.Rows != 2997 || !res.Verify.OK || res.Verify.Note == "" {
		t.Fatalf("skip-invalid: %v %+v", err, res.Verify)
	}
}

func TestVerifyMismatch(t *testing.T) {
	path, _ := ilpInput(t, 300)
	f := newFake()
	f.countErr = -1
	res, err := Run(context.Background(), baseConfig(path), f)
	if err == nil || !strings.Contains(err.Error(), "verify FAILED: row counts differ from the rows acknowledged: cpu: 0 rows before + 100 acknowledged = 100 expected, database has 99; disk: 0 rows before + 100 acknowledged = 100 expected, database has 99; mem: 0 rows before + 100 acknowledged = 100 expected, database has 99") {
		t.Fatalf("err %v", err)
	}
	if res.Status != results.StatusFailed || res.Verify.OK {
		t.Fatal(res.Status)
	}
}

func TestLimitAndDoLoadFalse(t *testing.T) {
	path, _ := ilpInput(t, 10007)
	cfg := baseConfig(path, path)
	cfg.Limit = 12345
	cfg.DoLoad = false
	res, err := Run(context.Background(), cfg, nil) // no target at all
	if err != nil {
		t.Fatal(err)
	}
	if res.Rows != 12345 || res.RowsRead != 12345 || res.Verify != nil {
		t.Fatalf("rows %d read %d", res.Rows, res.RowsRead)
	}
}

func TestHashWorkersKeepSeriesOnOneWorker(t *testing.T) {
	path, _ := ilpInput(t, 20000)
	f := newFake()
	cfg := baseConfig(path)
	cfg.HashWorkers = true
	cfg.BatchSize = 100
	res, err := Run(context.Background(), cfg, f)
	if err != nil {
		t.Fatal(err)
	}
	if f.orderErr != nil || res.Rows != 20000 {
		t.Fatalf("%v rows %d", f.orderErr, res.Rows)
	}
	// Without hashing the same input spreads series over workers.
	f = newFake()
	f.delay = time.Millisecond
	cfg.HashWorkers = false
	if _, err := Run(context.Background(), cfg, f); err != nil {
		t.Fatal(err)
	}
	if f.orderErr == nil {
		t.Fatal("the order check cannot fail")
	}
}

func TestMemoryBounded(t *testing.T) {
	path, _ := ilpInput(t, 50000)
	f := newFake()
	f.delay = 200 * time.Microsecond
	cfg := baseConfig(path)
	cfg.BatchSize = 100
	cfg.Workers = 2
	res, err := Run(context.Background(), cfg, f)
	if err != nil || res.Rows != 50000 {
		t.Fatal(err)
	}
	// 500 batches were written through at most 3*workers batch buffers.
	if n := len(f.batches); n > 3*cfg.Workers {
		t.Fatalf("%d distinct batch buffers", n)
	}
	if m := f.maxIn.Load(); m > int64(cfg.Workers) {
		t.Fatalf("%d writes in flight", m)
	}
}

func TestInterrupted(t *testing.T) {
	path, _ := ilpInput(t, 20000)
	f := newFake()
	f.block = make(chan struct{}) // each writer's second batch blocks
	cfg := baseConfig(path)
	cfg.Grace = 50 * time.Millisecond
	cfg.ResultsFile = filepath.Join(t.TempDir(), "r.json")
	ctx, cancel := context.WithCancel(context.Background())
	go func() { // interrupt once each worker's first batch is written
		for {
			f.mu.Lock()
			n := f.rows["cpu"] + f.rows["mem"] + f.rows["disk"]
			f.mu.Unlock()
			if n == 3000 {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		time.Sleep(20 * time.Millisecond)
		cancel()
	}()
	res, err := Run(ctx, cfg, f)
	if !errors.Is(err, errInterrupted) {
		t.Fatalf("err %v", err)
	}
	if res.Status != results.StatusInterrupted || res.Rows != 3000 {
		t.Fatalf("status %s rows %d", res.Status, res.Rows)
	}
	data, _ := os.ReadFile(cfg.ResultsFile)
	if !bytes.Contains(data, []byte(`"status": "interrupted"`)) {
		t.Fatalf("results %s", data)
	}
}

// A signal while the target prepares (a slow DROP DATABASE) is an
// interruption, not the error of the query it cut short.
func TestInterruptedWhilePreparing(t *testing.T) {
	path, _ := ilpInput(t, 2000)
	ctx, cancel := context.WithCancel(context.Background())
	f := &preparingTarget{fakeTarget: newFake(), started: make(chan struct{})}
	go func() {
		<-f.started
		cancel()
	}()
	res, err := Run(ctx, baseConfig(path), f)
	if !errors.Is(err, errInterrupted) || !strings.Contains(err.Error(), "nothing was sent") {
		t.Fatalf("err %v", err)
	}
	if res.Status != results.StatusInterrupted || res.Rows != 0 {
		t.Fatalf("status %s rows %d", res.Status, res.Rows)
	}
}

// preparingTarget's Prepare waits for its context, as a query does.
type preparingTarget struct {
	*fakeTarget
	started chan struct{}
}

func (p *preparingTarget) Prepare(ctx context.Context, opts load.PrepareOptions) error {
	close(p.started)
	<-ctx.Done()
	return fmt.Errorf("DROP DATABASE: %w", ctx.Err())
}

func TestResultsJSON(t *testing.T) {
	path, _ := ilpInput(t, 2500)
	cfg := baseConfig(path)
	cfg.ResultsFile = filepath.Join(t.TempDir(), "r.json")
	cfg.Flags = map[string]any{"batch-size": 1000, "postgres-password": "hunter2", "token": "", "db-name": "benchmark", "verify": true, "urls": []string{"http://u:hunter2@h:1"}}
	cfg.ReportingPeriod = 20 * time.Millisecond
	f := newFake()
	f.delay = 15 * time.Millisecond
	if _, err := Run(context.Background(), cfg, f); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(cfg.ResultsFile)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("hunter2")) {
		t.Fatal("secret in results")
	}
	var r map[string]any
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"loader", "target", "status", "flags", "inputs", "format", "start", "end", "seconds", "batch_size", "workers", "rows", "metrics", "batches", "bytes", "rows_per_sec", "metrics_per_sec", "rows_read", "retries", "errors", "rejected_rows", "skipped_records", "latency_ms", "periods", "verify"} {
		if _, ok := r[k]; !ok {
			t.Errorf("results lack %q", k)
		}
	}
	flags := r["flags"].(map[string]any)
	if flags["postgres-password"] != "REDACTED" || flags["token"] != "" || flags["db-name"] != "benchmark" {
		t.Errorf("flags %v", flags)
	}
	// Typed values (schema version 2): numbers and booleans, not text.
	if flags["batch-size"] != 1000.0 || flags["verify"] != true || fmt.Sprint(flags["urls"]) != "[http://u:REDACTED@h:1]" || r["schema_version"] != float64(results.SchemaVersion) {
		t.Errorf("flags %#v schema_version %v", flags, r["schema_version"])
	}
	// Read like the dataset files beside it (CreateTemp made it 0600).
	if st, err := os.Stat(cfg.ResultsFile); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("results file mode %v (%v), want 0644", st.Mode(), err)
	}
	if r["rows"].(float64) != 2500 || r["loader"] != "load_fake" || len(r["periods"].([]any)) == 0 {
		t.Errorf("rows %v loader %v periods %v", r["rows"], r["loader"], r["periods"])
	}
}

func TestMalformedInputStops(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.ilp")
	os.WriteFile(path, []byte("cpu f=1 1\ncpu f=2 2\ncpu,x f=3 3\n"), 0o644)
	f := newFake()
	res, err := Run(context.Background(), baseConfig(path), f)
	want := path + ": record 3 (line 3, byte offset 20): tag without key=value"
	if err == nil || err.Error() != want {
		t.Fatalf("err %v\nwant %s", err, want)
	}
	if res.Status != results.StatusFailed || res.Rows != 0 || res.Errors != 1 {
		t.Fatalf("status %s rows %d errors %d", res.Status, res.Rows, res.Errors)
	}
	cfg := baseConfig(path)
	cfg.SkipInvalid = true
	res, err = Run(context.Background(), cfg, newFake())
	if err != nil || res.Rows != 2 || res.SkippedRecords != 1 {
		t.Fatalf("skip: %v rows %d skipped %d", err, res.Rows, res.SkippedRecords)
	}
}

func TestStdinGzip(t *testing.T) {
	var raw bytes.Buffer
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&raw, "cpu,host=h%d v=1 %d\n", i%3, i)
	}
	cfg := baseConfig()
	cfg.Stdin = bytes.NewReader(gzipBytes(raw.Bytes()))
	res, err := Run(context.Background(), cfg, newFake())
	if err != nil || res.Rows != 100 || res.Inputs[0] != "stdin" {
		t.Fatalf("%v %+v", err, res)
	}
}

func BenchmarkRunNoLoad(b *testing.B) {
	var raw bytes.Buffer
	const n = 200_000
	for i := 0; i < n; i++ {
		fmt.Fprintf(&raw, "cpu,hostname=host_%d,region=eu-west-1,datacenter=eu-west-1c,rack=22,os=Ubuntu15.10,arch=x86,team=LON,service=11,service_version=0,service_environment=staging usage_user=2.26,usage_system=0.77,usage_idle=0.54,usage_nice=0,usage_iowait=1.89,usage_irq=0.54,usage_softirq=0.74,usage_steal=0,usage_guest=0,usage_guest_nice=1.21 %d\n", i%100, 1451606400000000000+int64(i)*10)
	}
	data := raw.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cfg := Config{Stdin: bytes.NewReader(data), BatchSize: 5000, Workers: 2, Stderr: &bytes.Buffer{}, ReportingPeriod: time.Hour}
		res, err := Run(context.Background(), cfg, nil)
		if err != nil || res.Rows != n {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkRunNoLoadPGCopy is the --do-load=false pipeline on a cpu pgcopy
// file: the loader's own overhead, the figure to set beside TSBS's load_timescaledb.
func BenchmarkRunNoLoadPGCopy(b *testing.B) {
	const n = 500_000
	cpu := usecase.LookupTable("cpu")
	var buf bytes.Buffer
	buf.WriteString("PGCOPY\n\377\r\n\x00")
	buf.Write(make([]byte, 8))
	for i := 0; i < n; i++ {
		binary.Write(&buf, binary.BigEndian, int16(len(cpu.Columns)))
		for j, c := range cpu.Columns {
			switch {
			case c.Tag:
				v := fmt.Sprintf("host_%d", i%100)
				if j > 1 {
					v = "eu-west-1"
				}
				binary.Write(&buf, binary.BigEndian, int32(len(v)))
				buf.WriteString(v)
			default:
				binary.Write(&buf, binary.BigEndian, int32(8))
				binary.Write(&buf, binary.BigEndian, int64(i))
			}
		}
	}
	buf.Write([]byte{0xff, 0xff})
	path := filepath.Join(b.TempDir(), "cpu.bin")
	os.WriteFile(path, buf.Bytes(), 0o644)
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cfg := Config{Inputs: []string{path}, BatchSize: 5000, Workers: 2, Stderr: &bytes.Buffer{}, ReportingPeriod: time.Hour}
		res, err := Run(context.Background(), cfg, nil)
		if err != nil || res.Rows != n {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

func TestVerifyRetriesCount(t *testing.T) {
	path, _ := ilpInput(t, 300)
	f := newFake()
	f.countFail = 2
	res, err := Run(context.Background(), baseConfig(path), f)
	if err != nil || !res.Verify.OK || res.Retries != 2 {
		t.Fatalf("%v retries %d", err, res.Retries)
	}
	f = newFake()
	f.countFail = 1000
	cfg := baseConfig(path)
	cfg.RetryTimeout = 50 * time.Millisecond
	var stderr bytes.Buffer
	cfg.Stderr = &stderr
	res, err = Run(context.Background(), cfg, f)
	// The count before the first write fails: nothing is loaded.
	if err == nil || !strings.Contains(err.Error(), "verify: counting cpu, disk, mem before loading: ") || !strings.Contains(err.Error(), "connection reset") || res.Status != results.StatusFailed || res.Rows != 0 {
		t.Fatalf("%v, %d rows", err, res.Rows)
	}
}

func TestProgressBar(t *testing.T) {
	var out bytes.Buffer
	r := &run{cfg: Config{Stderr: &out}, in: inputs{totalSize: 1000}, workers: []*workerStats{{tables: map[string]int64{}, hist: newHistogram(), rows: 250000}}}
	r.start = time.Unix(100, 0)
	r.in.doneSize.Store(250)
	r.drawBar(time.Unix(110, 0))
	want := "\r\033[K[=======                       ]  25% 250,000 rows of ~1,000,000, 25,000 rows/s, ETA 30s"
	if out.String() != want {
		t.Fatalf("got  %q\nwant %q", out.String(), want)
	}
}

// TestInFlightFinishAfterError: a batch being written when another worker
// fails is still acknowledged and counted (within Grace).
func TestInFlightFinishAfterError(t *testing.T) {
	path, _ := ilpInput(t, 5000)
	f := newFake()
	// Batch 2 fails only once batch 1 is being written: a worker that has
	// not started its batch when the run stops rightly abandons it.
	started := make(chan struct{})
	f.delayFor = func(b *load.Batch) time.Duration {
		switch b.Seq {
		case 1:
			close(started)
			return 200 * time.Millisecond
		case 2:
			<-started
		}
		return 0
	}
	f.fail = failAt(2)
	cfg := baseConfig(path)
	cfg.Workers = 2
	res, err := Run(context.Background(), cfg, f)
	if !errors.Is(err, errDisk) || res.Rows != 1000 || f.rows["cpu"]+f.rows["mem"]+f.rows["disk"] != 1000 {
		t.Fatalf("%v rows %d db %v", err, res.Rows, f.rows)
	}
	// With a short grace the slow write is cancelled and not counted.
	f = newFake()
	started = make(chan struct{})
	f.delayFor = func(b *load.Batch) time.Duration {
		switch b.Seq {
		case 1:
			close(started)
			return time.Second
		case 2:
			<-started
		}
		return 0
	}
	f.fail = failAt(2)
	cfg.Grace = 20 * time.Millisecond
	res, err = Run(context.Background(), cfg, f)
	if !errors.Is(err, errDisk) || res.Rows != 0 {
		t.Fatalf("%v rows %d", err, res.Rows)
	}
}

// TestWorkersCheckLines: the workers validate the lines (the reader only
// cuts them), yet a malformed line deep in a gzip'd input with comments
// and CRLF line ends is named by its exact record, line and byte offset,
// and with SkipInvalid the rows, metrics and skipped lines add up.
func TestWorkersCheckLines(t *testing.T) {
	var raw bytes.Buffer
	off := 0
	badOff := 0
	for i := 1; i <= 10000; i++ {
		line := fmt.Sprintf("cpu,host=h%d usage=%d,idle=1 %d\r\n", i%7, i, i)
		switch {
		case i == 7777:
			line = "cpu,host=h usage\r\n"
			badOff = off
		case i%1000 == 0:
			line = "# a comment\n"
		}
		raw.WriteString(line)
		off += len(line)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(raw.Bytes())
	zw.Close()
	path := filepath.Join(t.TempDir(), "bad.ilp.gz")
	os.WriteFile(path, z.Bytes(), 0o644)
	cfg := baseConfig(path)
	cfg.BatchSize, cfg.Workers, cfg.DoLoad, cfg.Verify = 100, 2, false, false
	_, err := Run(context.Background(), cfg, nil)
	want := fmt.Sprintf("%s: record 7770 (line 7777, byte offset %d): field without key=value", path, badOff)
	if err == nil || err.Error() != want {
		t.Fatalf("err %v\nwant %s", err, want)
	}
	cfg.SkipInvalid = true
	res, err := Run(context.Background(), cfg, nil)
	if err != nil || res.Rows != 9989 || res.RowsRead != 9989 || res.Metrics != 2*9989 || res.SkippedRecords != 1 {
		t.Fatalf("skip: %v rows %d read %d metrics %d skipped %d", err, res.Rows, res.RowsRead, res.Metrics, res.SkippedRecords)
	}
}

// TestResultsPathCheckedFirst: a results file that cannot be written (its
// directory is missing) fails the run before anything is read or sent, not
// after the whole load.
func TestResultsPathCheckedFirst(t *testing.T) {
	path, _ := ilpInput(t, 100)
	f := newFake()
	cfg := baseConfig(path)
	cfg.ResultsFile = filepath.Join(t.TempDir(), "missing", "r.json")
	res, err := Run(context.Background(), cfg, f)
	if err == nil || !strings.Contains(err.Error(), "cannot be written (checked before loading)") || !strings.Contains(err.Error(), cfg.ResultsFile) ||
		!strings.Contains(err.Error(), "directory "+filepath.Dir(cfg.ResultsFile)+" does not exist") || strings.Contains(err.Error(), ".results-") {
		t.Fatalf("err %v: want the missing directory named, not the probe's temporary file", err)
	}
	if res.Rows != 0 || res.RowsRead != 0 || f.prepared != nil {
		t.Fatalf("rows %d read %d prepared %v: the run went on", res.Rows, res.RowsRead, f.prepared)
	}
	cfg.ResultsFile = filepath.Join(t.TempDir(), "r.json")
	if _, err := Run(context.Background(), cfg, newFake()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(cfg.ResultsFile); err != nil {
		t.Fatal(err)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(cfg.ResultsFile), ".results-*"))
	if len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}

// A --batch-size the splitter's 32 MiB bound cuts short says so: the
// results record the batches cut and the size they really had, and the
// summary names both.
func TestCappedBatchSizeIsReported(t *testing.T) {
	var buf bytes.Buffer
	pad := strings.Repeat("x", 4000)
	rows := 0
	for buf.Len() < split.DefaultMaxBatchBytes*5/2 {
		fmt.Fprintf(&buf, "cpu,host=h%d s=\"%s\" %d\n", rows%7, pad, 1451606400000000000+int64(rows)*1e9)
		rows++
	}
	path := filepath.Join(t.TempDir(), "wide.ilp")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := baseConfig(path)
	cfg.BatchSize = 1_000_000_000
	res, err := Run(context.Background(), cfg, newFake())
	if err != nil {
		t.Fatal(err)
	}
	if res.Rows != int64(rows) || res.Batches != 3 || res.BatchesCapped != 2 || res.BatchSize != 1_000_000_000 {
		t.Fatalf("rows %d of %d, batches %d, capped %d, batch size %d", res.Rows, rows, res.Batches, res.BatchesCapped, res.BatchSize)
	}
	per := split.DefaultMaxBatchBytes / (buf.Len() / rows)
	if res.BatchSizeEffective < per-1 || res.BatchSizeEffective > per+1 {
		t.Errorf("batch_size_effective %d, want about %d", res.BatchSizeEffective, per)
	}
	out := cfg.Stderr.(*bytes.Buffer).String()
	if !strings.Contains(out, "batch size: 2 batches were cut at 32 MiB before --batch-size 1,000,000,000 rows: at most ") {
		t.Errorf("summary lacks the capped batch size:\n%s", out)
	}
}

// A library caller's setting out of range is refused as the command line's
// is, naming the field, before anything is read or prepared; a zero one
// takes its default.
func TestRunValidatesConfig(t *testing.T) {
	path, _ := ilpInput(t, 100)
	for _, tc := range []struct {
		set   func(*Config)
		field string
	}{
		{func(c *Config) { c.BatchSize = -1 }, "BatchSize"},
		{func(c *Config) { c.Workers = -2 }, "Workers"},
		{func(c *Config) { c.ReportingPeriod = -time.Second }, "ReportingPeriod"},
		{func(c *Config) { c.RetryTimeout = -time.Second }, "RetryTimeout"},
		{func(c *Config) { c.Grace = -time.Second }, "Grace"},
		{func(c *Config) { c.Limit = -5 }, "Limit"},
	} {
		f := newFake()
		cfg := baseConfig(path)
		tc.set(&cfg)
		res, err := Run(context.Background(), cfg, f)
		var se *load.SettingError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%s: err %v, want a setting error naming it", tc.field, err)
			continue
		}
		if res == nil || res.Status != results.StatusFailed || res.RowsRead != 0 || f.prepared != nil {
			t.Errorf("%s: results %+v, prepared %v: the run went on", tc.field, res, f.prepared)
		}
	}
	cfg := baseConfig(path)
	cfg.BatchSize, cfg.Workers = 0, 0
	res, err := Run(context.Background(), cfg, newFake())
	if err != nil || res.BatchSize != load.DefaultBatchSize || res.Workers != DefaultWorkers {
		t.Fatalf("zero settings: %v, batch size %d, workers %d: want the defaults", err, res.BatchSize, res.Workers)
	}
}
