package gen

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/usecase"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

var formats = []format.Format{format.ILP, format.CSV, format.PGCopy}

// small returns a small config of a use case: a few entities, a few epochs.
func small(uc string, f format.Format) Config {
	cfg := Config{UseCase: uc, Format: f, Seed: 42, Scale: 3, Workers: 2,
		Start: DefaultStart, End: DefaultStart.Add(40 * time.Second)}
	switch uc {
	case usecase.Weather:
		cfg.Scale = 5
		cfg.End = DefaultStart.Add(4 * time.Hour)
	case usecase.IoT:
		cfg.Scale = 4
		cfg.End = DefaultStart.Add(200 * time.Second)
	}
	return cfg
}

func generate(t testing.TB, cfg Config) []byte {
	t.Helper()
	var out bytes.Buffer
	cfg.Stdout = &out
	cfg.Stderr = io.Discard
	if err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func withGroupSize(t *testing.T, n int) {
	old := testGroupSize
	testGroupSize = n
	t.Cleanup(func() { testGroupSize = old })
}

func TestGolden(t *testing.T) {
	for _, uc := range usecase.Names {
		for _, f := range formats {
			name := uc + "." + f.String()
			t.Run(name, func(t *testing.T) {
				golden(t, name, generate(t, small(uc, f)))
			})
		}
	}
}

// golden compares got with testdata/name, rewriting it first with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("output differs from %s (%d vs %d bytes); run go test -update if the change is intended", path, len(got), len(want))
	}
}

// TestDeterminism: the same config gives the same bytes on every run and
// for every worker count (with tiny groups so that several workers share
// every epoch).
func TestDeterminism(t *testing.T) {
	withGroupSize(t, 2)
	for _, uc := range usecase.Names {
		for _, f := range formats {
			t.Run(uc+"."+f.String(), func(t *testing.T) {
				cfg := small(uc, f)
				cfg.Scale = 7
				cfg.Workers = 1
				one := generate(t, cfg)
				if again := generate(t, cfg); !bytes.Equal(one, again) {
					t.Fatal("two runs differ")
				}
				for _, w := range []int{2, 3, 16} {
					cfg.Workers = w
					if got := generate(t, cfg); !bytes.Equal(one, got) {
						t.Fatalf("workers %d differ from workers 1", w)
					}
				}
				// without the series-key cache (as at large scales)
				old := maxCachedSeries
				maxCachedSeries = 0
				defer func() { maxCachedSeries = old }()
				if got := generate(t, cfg); !bytes.Equal(one, got) {
					t.Fatal("output without the series-key cache differs")
				}
			})
		}
	}
}

// rowsOf returns the data rows of an ILP or CSV stream (no header, no
// directives).
func rowsOf(f format.Format, b []byte) []string {
	var rows []string
	for i, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if line == "" || strings.HasPrefix(line, "#") || (f == format.CSV && i == 0 && strings.HasPrefix(line, "time,")) {
			continue
		}
		rows = append(rows, line)
	}
	return rows
}

// TestShards: the shards' rows together are the whole data set's rows, and
// every shard gets a share.
func TestShards(t *testing.T) {
	for _, uc := range usecase.Names {
		for _, f := range []format.Format{format.ILP, format.CSV} {
			t.Run(uc+"."+f.String(), func(t *testing.T) {
				cfg := small(uc, f)
				cfg.Scale = 10
				whole := rowsOf(f, generate(t, cfg))
				var parts []string
				const m = 3
				for i := 0; i < m; i++ {
					cfg.Shard = Shard{i, m}
					part := rowsOf(f, generate(t, cfg))
					if len(part) == 0 {
						t.Errorf("shard %d/%d is empty", i, m)
					}
					parts = append(parts, part...)
				}
				sort.Strings(whole)
				sort.Strings(parts)
				if strings.Join(whole, "\n") != strings.Join(parts, "\n") {
					t.Fatalf("shards (%d rows) != whole (%d rows)", len(parts), len(whole))
				}
			})
		}
	}
}

func TestMaxRows(t *testing.T) {
	for _, f := range formats {
		cfg := small(usecase.DevOps, f)
		cfg.MaxRows = 13
		b := generate(t, cfg)
		switch f {
		case format.PGCopy:
			if n := countMultiCopy(t, b); n != 13 {
				t.Errorf("pgcopy: %d rows, want 13", n)
			}
		default:
			if n := len(rowsOf(f, b)); n != 13 {
				t.Errorf("%v: %d rows, want 13", f, n)
			}
		}
	}
}

// countMultiCopy walks a TSLCOPY stream by its lengths and counts tuples.
func countMultiCopy(t *testing.T, b []byte) int {
	t.Helper()
	if !bytes.HasPrefix(b, []byte("TSLCOPY\n\xff\r\n")) {
		t.Fatalf("no TSLCOPY magic")
	}
	p := 11
	u16 := func() int { v := int(binary.BigEndian.Uint16(b[p:])); p += 2; return v }
	nt := u16()
	for i := 0; i < nt; i++ {
		p += u16()
		nc := u16()
		for j := 0; j < nc; j++ {
			p += u16()
			p += 2
		}
	}
	rows := 0
	for {
		ti := u16()
		if ti == 0xffff {
			break
		}
		if ti >= nt {
			t.Fatalf("frame table %d >= %d", ti, nt)
		}
		l := int(binary.BigEndian.Uint32(b[p:]))
		p += 4
		end := p + l
		for p < end {
			nf := u16()
			for k := 0; k < nf; k++ {
				fl := int32(binary.BigEndian.Uint32(b[p:]))
				p += 4
				if fl > 0 {
					p += int(fl)
				}
			}
			rows++
		}
		if p != end {
			t.Fatalf("tuple crosses a frame end")
		}
	}
	if p != len(b) {
		t.Fatalf("%d bytes after the end marker", len(b)-p)
	}
	return rows
}

func TestGzip(t *testing.T) {
	cfg := small(usecase.CPUOnly, format.CSV)
	cfg.Scale = 300
	cfg.End = DefaultStart.Add(10 * time.Minute) // several MiB: many gzip members
	raw := generate(t, cfg)
	dir := t.TempDir()
	cfg.File = filepath.Join(dir, "out.csv.gz")
	cfg.Workers = 3
	generate(t, cfg)
	f, err := os.Open(cfg.File)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, raw) {
		t.Fatalf("gunzipped output (%d bytes) != raw output (%d bytes)", len(got), len(raw))
	}
	// Every member declares its whole size in its header (TL subfield).
	z, err := os.ReadFile(cfg.File)
	if err != nil {
		t.Fatal(err)
	}
	members := 0
	for p := 0; p < len(z); members++ {
		m := z[p:]
		if len(m) < 20 || m[3]&4 == 0 || m[12] != 'T' || m[13] != 'L' {
			t.Fatalf("member %d at %d: no size subfield", members, p)
		}
		size := int(binary.LittleEndian.Uint32(m[16:]))
		if size < 20 || size > len(m) {
			t.Fatalf("member %d at %d: size %d of %d bytes left", members, p, size, len(m))
		}
		if _, err := gzip.NewReader(bytes.NewReader(m[:size])); err != nil {
			t.Fatal(err)
		}
		p += size
	}
	if members < 3 {
		t.Fatalf("%d members", members)
	}
}

// TestZstd: --zstd (and a .zst name) write independent frames, with their
// content sizes, that decode to the raw output; smaller than --gzip's.
func TestZstd(t *testing.T) {
	cfg := small(usecase.CPUOnly, format.ILP)
	cfg.Scale = 300
	cfg.End = DefaultStart.Add(10 * time.Minute)
	raw := generate(t, cfg)
	dir := t.TempDir()
	cfg.Workers = 3
	cfg.File = filepath.Join(dir, "out.ilp.gz")
	generate(t, cfg)
	cfg.File = filepath.Join(dir, "out.ilp.zst")
	generate(t, cfg)
	z, err := os.ReadFile(cfg.File)
	if err != nil {
		t.Fatal(err)
	}
	zd, _ := zstd.NewReader(nil)
	defer zd.Close()
	// The first frame declares its content size (a 4 MiB chunk) and a
	// checksum; the chunks are frames of their own (pkg/split's tests walk
	// the frames exactly).
	var h zstd.Header
	if err := h.Decode(z); err != nil || !h.HasFCS || h.FrameContentSize != zstdChunk || !h.HasCheckSum {
		t.Fatalf("first frame: %+v %v", h, err)
	}
	frames := bytes.Count(z, []byte{0x28, 0xb5, 0x2f, 0xfd})
	got, err := zd.DecodeAll(z, nil)
	if err != nil || !bytes.Equal(got, raw) {
		t.Fatalf("decoded %d bytes (raw %d): %v", len(got), len(raw), err)
	}
	if frames < 2 {
		t.Fatalf("%d frames", frames)
	}
	gzInfo, _ := os.Stat(filepath.Join(dir, "out.ilp.gz"))
	if gzInfo == nil || int64(len(z)) > gzInfo.Size() {
		t.Fatalf("zstd %d bytes, larger than gzip's", len(z))
	}
}

func TestOutDir(t *testing.T) {
	for _, f := range formats {
		t.Run(f.String(), func(t *testing.T) {
			dir := t.TempDir()
			cfg := small(usecase.IoT, f)
			cfg.OutDir = dir
			if err := Run(context.Background(), cfg); err != nil {
				t.Fatal(err)
			}
			ddl, err := os.ReadFile(filepath.Join(dir, "schema.sql"))
			if err != nil || !strings.Contains(string(ddl), `CREATE TABLE IF NOT EXISTS "readings"`) {
				t.Fatalf("schema.sql: %v %q", err, ddl)
			}
			stream := generate(t, small(usecase.IoT, f))
			total := 0
			for _, tb := range []string{"readings", "diagnostics"} {
				b, err := os.ReadFile(filepath.Join(dir, tb+Extension(f)))
				if err != nil {
					t.Fatal(err)
				}
				switch f {
				case format.CSV:
					if !strings.HasPrefix(string(b), "time,name,fleet,") {
						t.Errorf("%s: no header", tb)
					}
					total += len(rowsOf(f, b))
				case format.ILP:
					total += len(rowsOf(f, b))
				case format.PGCopy:
					if !bytes.HasPrefix(b, []byte("PGCOPY\n\xff\r\n\x00")) || !bytes.HasSuffix(b, []byte{0xff, 0xff}) {
						t.Errorf("%s: not a COPY binary file", tb)
					}
				}
			}
			if f != format.PGCopy && total != len(rowsOf(f, stream)) {
				t.Errorf("out-dir rows %d != stream rows %d", total, len(rowsOf(f, stream)))
			}
		})
	}
}

func TestConfigErrors(t *testing.T) {
	base := small(usecase.CPUOnly, format.ILP)
	tests := []struct {
		name string
		mod  func(*Config)
		want string
	}{
		{"unknown use case", func(c *Config) { c.UseCase = "cpu" }, "unknown use case"},
		{"no format", func(c *Config) { c.Format = format.Unknown }, "format"},
		{"end before start", func(c *Config) { c.End = c.Start.Add(-time.Hour) }, "not after start"},
		{"end equals start", func(c *Config) { c.End = c.Start }, "not after start"},
		{"shorter than interval", func(c *Config) { c.End = c.Start.Add(time.Second) }, "shorter than one interval"},
		{"negative interval", func(c *Config) { c.Interval = -time.Second }, "interval"},
		{"sub-microsecond interval", func(c *Config) { c.Interval = 1500 * time.Nanosecond }, "microseconds"},
		{"negative scale", func(c *Config) { c.Scale = -1 }, "scale"},
		{"weather scale", func(c *Config) { c.UseCase = usecase.Weather; c.Scale = GridLocations + 1 }, "grid"},
		{"shard", func(c *Config) { c.Shard = Shard{3, 2} }, "shard"},
		{"file and dir", func(c *Config) { c.File = "x"; c.OutDir = "y" }, "exclusive"},
		{"gzip level", func(c *Config) { c.GzipLevel = 12 }, "gzip level"},
		{"unwritable file", func(c *Config) { c.File = "/nonexistent/dir/out.ilp" }, "cannot write output"},
		{"negative max rows", func(c *Config) { c.MaxRows = -1 }, "max-rows"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := base
			tt.mod(&cfg)
			cfg.Stdout, cfg.Stderr = io.Discard, io.Discard
			err := Run(context.Background(), cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// errWriter fails every write.
type errWriter struct{ err error }

func (w errWriter) Write([]byte) (int, error) { return 0, w.err }

func TestWriteError(t *testing.T) {
	for _, gz := range []bool{false, true} {
		cfg := small(usecase.CPUOnly, format.ILP)
		cfg.Scale = 100
		cfg.End = DefaultStart.Add(time.Hour)
		cfg.Gzip = gz
		cfg.Stdout = errWriter{errPipe}
		cfg.Stderr = io.Discard
		done := make(chan error, 1)
		go func() { done <- Run(context.Background(), cfg) }()
		select {
		case err := <-done:
			if !errors.Is(err, ErrBrokenPipe) || !strings.Contains(err.Error(), "write stdout") {
				t.Fatalf("gzip %v: err = %v, want a broken pipe on stdout", gz, err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("gzip %v: Run did not stop after a write error", gz)
		}
	}
}

func TestOutDirGzip(t *testing.T) {
	dir := t.TempDir()
	cfg := small(usecase.DevOps, format.PGCopy)
	cfg.OutDir, cfg.Gzip = dir, true
	generate(t, cfg)
	for _, tb := range []string{"cpu", "redis"} {
		f, err := os.Open(filepath.Join(dir, tb+".pgcopy.gz"))
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(zr)
		f.Close()
		if err != nil || !bytes.HasPrefix(b, []byte("PGCOPY\n\xff\r\n\x00")) || !bytes.HasSuffix(b, []byte{0xff, 0xff}) {
			t.Fatalf("%s: %v, %d bytes", tb, err, len(b))
		}
	}
}

func TestCancel(t *testing.T) {
	cfg := small(usecase.CPUOnly, format.ILP)
	cfg.Scale = 100
	cfg.End = DefaultStart.Add(240 * time.Hour)
	cfg.Stdout, cfg.Stderr = io.Discard, io.Discard
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := Run(ctx, cfg); err == nil {
		t.Fatal("Run finished a 10-day data set in 100ms or ignored the cancellation")
	}
}

func TestProgress(t *testing.T) {
	cfg := small(usecase.CPUOnly, format.ILP)
	var errb bytes.Buffer
	cfg.Progress = true
	cfg.Stdout, cfg.Stderr = io.Discard, &errb
	if err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if want := "generate_data: 12 rows,"; !strings.HasPrefix(errb.String(), want) {
		t.Fatalf("progress %q, want prefix %q", errb.String(), want)
	}
}

func ExampleRun() {
	var out bytes.Buffer
	err := Run(context.Background(), Config{UseCase: "cpu-only", Format: format.CSV, Seed: 1, Scale: 1,
		MaxRows: 2, Stdout: &out})
	if err != nil {
		panic(err)
	}
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		fmt.Println(sc.Text()[:60])
	}
	// Output:
	// time,hostname,region,datacenter,rack,os,arch,team,service,se
	// 2016-01-01T00:00:00Z,host_0,eu-central-1,eu-central-1a,49,Ub
	// 2016-01-01T00:00:10Z,host_0,eu-central-1,eu-central-1a,49,Ub
}
