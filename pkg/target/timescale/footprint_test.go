package timescale

import (
	"context"
	"testing"
	"time"
)

// TestFootprint loads N rows, then 2N, through the runner: the results
// carry the tables' size (above zero, growing), and the server's CPU and
// memory when it runs on this machine.
func TestFootprint(t *testing.T) {
	requireServer(t)
	var sizes [2]int64
	for i, days := range []int{1, 2} {
		file, st := genDays(t, 5, days)
		r, tg := loadResults(t, file, Config{ChunkTime: 24 * time.Hour}, 2000, 2)
		if r.Rows != st.Rows || r.Cost == nil || r.Cost.Footprint == nil {
			t.Fatalf("rows %d (generated %d), cost %+v", r.Rows, st.Rows, r.Cost)
		}
		fp := r.Cost.Footprint
		if fp.NotMeasured != "" || fp.AfterLoadBytes <= 0 || fp.SettledBytes != fp.AfterLoadBytes || fp.Method != sizeMethod(tg.Hypertables()) ||
			fp.Rows != st.Rows || fp.BytesPerRow <= 0 || fp.InputRatio <= 0 {
			t.Fatalf("footprint %+v", fp)
		}
		// The same accounting as the target's own report, read a moment
		// earlier (Finish): equal, or a few pages more if autovacuum
		// added a free-space or visibility map in between (a busy CI
		// machine saw 8,192 bytes more); another accounting (without
		// indexes, say) would be hundreds of KiB off.
		if d := float64(fp.AfterLoadBytes) - r.TargetReport["size_bytes"]; d < 0 || d > 128<<10 {
			t.Errorf("footprint %d bytes, size_bytes %v", fp.AfterLoadBytes, r.TargetReport["size_bytes"])
		}
		sizes[i] = fp.AfterLoadBytes
		s := r.Cost.Server
		switch {
		case s == nil:
			t.Fatal("no server cost")
		case s.NotMeasured != "":
			t.Logf("server not measured: %s", s.NotMeasured)
		case s.CPUSeconds <= 0 || s.RSSPeakBytes <= 0 || s.Procs < 2:
			t.Errorf("server %+v: a local PostgreSQL took a load for nothing?", s)
		}
		t.Logf("%d rows: %d bytes (%.1f bytes/row), server %+v", fp.Rows, fp.AfterLoadBytes, fp.BytesPerRow, s)
	}
	if sizes[1] <= sizes[0] {
		t.Errorf("2N rows take %d bytes, N rows %d", sizes[1], sizes[0])
	}
}

// TestFootprintAfterCompression: with --compress-after-load the footprint
// is the compressed size, smaller than before compression.
func TestFootprintAfterCompression(t *testing.T) {
	requireTimescale(t)
	file, _ := genDays(t, 5, 1)
	r, _ := loadResults(t, file, Config{ChunkTime: 6 * time.Hour, CompressAfter: true}, 2000, 2)
	fp := r.Cost.Footprint
	d := float64(fp.AfterLoadBytes) - r.TargetReport["size_bytes"] // as in TestFootprint
	if fp.NotMeasured != "" || fp.AfterLoadBytes <= 0 || d < 0 || d > 128<<10 ||
		float64(fp.AfterLoadBytes) >= r.TargetReport["size_before_compress_bytes"] {
		t.Fatalf("footprint %+v, report %v", fp, r.TargetReport)
	}
}

// TestFootprintPlainTable: a plain table that existed before a load with
// hypertables on has no hypertable_size() (NULL): its footprint is its
// pg_total_relation_size(), not 0 with a hint to wait that cannot help.
func TestFootprintPlainTable(t *testing.T) {
	requireTimescale(t)
	tg := newTestTarget(t, Config{UseHypertable: "true"})
	ctx := context.Background()
	conn := dbConn(t, tg.cfg.DBName)
	if _, err := conn.Exec(ctx, "CREATE TABLE plain (time timestamptz NOT NULL, v float8); "+
		"INSERT INTO plain SELECT '2016-01-01'::timestamptz + i * interval '1 second', i FROM generate_series(1, 2000) i"); err != nil {
		t.Fatal(err)
	}
	var want int64
	if err := conn.QueryRow(ctx, "SELECT pg_total_relation_size('plain')").Scan(&want); err != nil || want <= 0 {
		t.Fatalf("pg_total_relation_size %d, %v", want, err)
	}
	sz, err := tg.Footprint(ctx, []string{"plain"})
	if err != nil || sz.Bytes != want {
		t.Fatalf("footprint %+v, %v; want %d bytes (pg_total_relation_size)", sz, err, want)
	}
}

func TestServerAddr(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{URL: "postgres://u@db.example:6543/x"}, "db.example:6543"},
		{Config{Host: "10.1.2.3", Port: 5433}, "10.1.2.3:5433"},
		{Config{URL: "host=/var/run/postgresql port=5432 user=postgres"}, "localhost:5432"},
	} {
		tg := &Target{cfg: tc.cfg}
		if got := tg.ServerAddr(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.cfg, got, tc.want)
		}
	}
}
