package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/pkg/loadcli"
)

func TestMain_BadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--precision", "ns"},
		{"--consistency", "most"},
		{"--gzip-level", "0"},
	} {
		var stderr bytes.Buffer
		err := loadcli.Run(context.Background(), spec(), append([]string{"load_influx", "--file", "/nonexistent"}, args...), nil, &stderr)
		if err == nil || !strings.Contains(err.Error(), "invalid") {
			t.Errorf("%v: err = %v", args, err)
		}
	}
}

// TestMain_Load runs the command against the InfluxDB of
// scripts/start_influxdb.sh (skipped when unreachable and CI is unset).
func TestMain_Load(t *testing.T) {
	url := influxURL(t)
	var b strings.Builder
	for i := 0; i < 2500; i++ {
		fmt.Fprintf(&b, "cpu,host=h%d usage=%d.5 %d\n", i%25, i, int64(i/25)*1000)
	}
	db := influxDB(t, url)
	r := loadtest.RunOnInput(t, spec(), "in.ilp", b.String(), "", "--urls", url+","+url,
		"--db-name", db, "--drop-db", "--precision", "ms", "--batch-size", "300", "--workers", "3", "--table-prefix", "t_", "--verify", "content")
	// The results record the API detected (1.x speaks v1), typed.
	res := r.Decoded(t)
	if s := res.Setup; s == nil || s.API != "v1" || s.Database != db || res.Flags["gzip"] != true || res.Flags["batch-size"] != 300.0 {
		t.Errorf("setup %+v flags %v", res.Setup, res.Flags)
	}
	if !strings.Contains(r.Stderr, "into influx at "+url+","+url+" (v1), database "+db+", tables t_cpu; server InfluxDB") {
		t.Errorf("the summary does not say where the load went:\n%s", r.Stderr)
	}
	// --table-prefix: the measurement is t_cpu, in the data and the count;
	// the content's time range is read in --precision's unit.
	if !strings.Contains(r.Stderr, "verify content OK") || !strings.Contains(r.Stderr, "verify OK") || !strings.Contains(r.Stderr, " t_cpu 2500/2500") {
		t.Fatalf("no exact verify in the summary:\n%s", r.Stderr)
	}
}
