package influx

import (
	"context"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/contenttest"
	"github.com/tsload/tsload/internal/influx3test"
	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// BenchmarkContent compares content verification with a count on a
// cpu-only measurement, on each InfluxDB version
// (scripts/bench_content.sh).
func BenchmarkContent(b *testing.B) {
	contenttest.BenchFile(b)
	b.Run("v1", func(b *testing.B) {
		u := loadtest.HTTPServer(b, "InfluxDB", "TSLOAD_INFLUX_URL", "http://127.0.0.1:8086", "scripts/start_influxdb.sh")
		benchContent(b, Config{Conn: httpwrite.Conn{URLs: []string{u}}, API: APIv1})
	})
	b.Run("v2", func(b *testing.B) {
		u := loadtest.HTTPServer(b, "InfluxDB 2", "TSLOAD_INFLUX2_URL", "http://127.0.0.1:8087", "scripts/start_influxdb.sh --version 2")
		benchContent(b, Config{Conn: httpwrite.Conn{URLs: []string{u}}, API: APIv2, Token: "tsload-test-token", Org: "tsload"})
	})
	b.Run("v3", func(b *testing.B) {
		r := influx3test.RealServer(b)
		benchContent(b, Config{Conn: httpwrite.Conn{URLs: []string{r.URL}}, API: APIv3, Token: r.Token})
	})
}

func benchContent(b *testing.B, cfg Config) {
	cfg.DBName = loadtest.UniqueDB(b)
	cfg.Precision, cfg.Gzip, cfg.GzipLevel, cfg.RequestTimeout = "n", true, 1, 10*time.Minute
	tg, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		tg.Prepare(context.Background(), load.PrepareOptions{DBName: cfg.DBName, DropDB: true})
		tg.Close()
	})
	rows := contenttest.BenchLoad(b, tg, "load_influx", cfg.DBName)
	contenttest.BenchVerify(b, tg, rows)
}
