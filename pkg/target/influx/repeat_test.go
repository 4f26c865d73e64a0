package influx

import (
	"testing"

	"github.com/tsload/tsload/internal/gentest"
	"github.com/tsload/tsload/internal/loadtest"
)

// TestRunnerRepeatedKeysV1: an input that repeats (series, time) keys
// (with other values) loads into InfluxDB 1.x with the default count
// verification: the database holds the distinct keys, and the load
// passes saying how many rows repeated (it failed "row counts differ"
// before the distinct-key pass).
func TestRunnerRepeatedKeysV1(t *testing.T) {
	path, rows := gentest.RepeatedKeys(t)
	res, err, log := runLoad(t, influxURL(t), path, 500, 2, nil)
	loadtest.RepeatedKeysVerified(t, res, err, log, rows)
}
