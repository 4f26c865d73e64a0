package influx

import (
	"context"
	"strings"
	"testing"
)

// The results files name the server as it names itself.
func TestIntegrationServerVersion(t *testing.T) {
	tg := newTarget(t, influxURL(t), Config{})
	v, err := tg.ServerVersion(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(v, "InfluxDB 1.") {
		t.Errorf("version %q, want InfluxDB 1.x (the server of scripts/start_influxdb.sh)", v)
	}
}
