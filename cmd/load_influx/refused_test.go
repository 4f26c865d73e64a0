package main

import (
	"context"
	"testing"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/target/httpwrite"
	"github.com/tsload/tsload/pkg/target/influx"
)

// TestRefusedInputDropsNothing: a pgcopy file with --drop-db leaves the
// database as it was (InfluxDB takes line protocol only).
func TestRefusedInputDropsNothing(t *testing.T) {
	url := influxURL(t)
	db := influxDB(t, url)
	tg, err := influx.New(influx.Config{Conn: httpwrite.Conn{URLs: []string{url}}, DBName: db, Precision: "n"})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	loadtest.RefusedInput{
		Spec:    spec(),
		Args:    []string{"--urls", url, "--db-name", db},
		Table:   "refused",
		WantErr: "InfluxDB takes line protocol, not pgcopy",
		PGCopy:  true, // CSV is written as lines
		Count: func(t testing.TB) int64 {
			n, err := tg.Count(context.Background(), []string{"refused"})
			if err != nil {
				t.Fatal(err)
			}
			return n["refused"]
		},
	}.Run(t)
}
