package influx

import (
	"context"
	"fmt"
	"net/http"

	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// ServerVersion (load.Target.ServerVersion) is "InfluxDB " and the version the
// first URL's /ping reports in X-Influxdb-Version, with X-Influxdb-Build
// when present, e.g. "InfluxDB 1.6.7~rc0" or "InfluxDB v2.7.12 (OSS)".
func (t *Target) ServerVersion(ctx context.Context) (string, error) {
	res, err := t.query.Post(ctx, httpwrite.Request{Method: http.MethodGet, Path: "/ping"})
	if err != nil {
		return "", err
	}
	v := res.Header.Get("X-Influxdb-Version")
	if v == "" {
		return "", fmt.Errorf("influx: /ping answered %d without X-Influxdb-Version", res.Status)
	}
	s := "InfluxDB " + v
	if b := res.Header.Get("X-Influxdb-Build"); b != "" {
		s += " (" + b + ")"
	}
	return s, nil
}
