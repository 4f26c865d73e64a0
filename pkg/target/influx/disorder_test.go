package influx

import (
	"context"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/disordertest"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/runner"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// disorder loads generate_data's out-of-order and repeated files into the
// server of cfg and verifies them, by count and by content: InfluxDB
// stores one point per (series, time) key, the last written.
func disorder(t *testing.T, cfg func(t *testing.T) Config) {
	disordertest.Run(t, func(t *testing.T) (load.Target, runner.Config) {
		c := cfg(t)
		c.RequestTimeout = 30 * time.Second
		tg, err := New(c)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			tg.Prepare(context.Background(), load.PrepareOptions{DBName: c.DBName, DropDB: true})
			tg.Close()
		})
		return tg, runner.Config{BatchSize: 500, Workers: 2,
			Prepare: load.PrepareOptions{DBName: c.DBName, CreateDB: true, DropDB: true},
			Loader:  "load_influx", Target: "influx"}
	}, false)
}

func TestDisorderV1(t *testing.T) {
	disorder(t, func(t *testing.T) Config {
		return Config{Conn: httpwrite.Conn{URLs: []string{influxURL(t)}}, API: APIv1, DBName: uniqueDB(t), Precision: "n"}
	})
}

func TestDisorderV2(t *testing.T) {
	disorder(t, func(t *testing.T) Config {
		c := influx2(t)
		c.DBName = uniqueDB(t)
		return c
	})
}

func TestDisorderV3(t *testing.T) {
	disorder(t, func(t *testing.T) Config {
		_, at := v3Real(t)
		return Config{Conn: httpwrite.Conn{URLs: []string{at.url}}, Token: at.token, DBName: at.db, Precision: "n"}
	})
}
