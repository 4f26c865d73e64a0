package timescale

import (
	"net/url"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/querytest"
)

// TestQueries checks the querier's answers against query.Eval on the real
// server (internal/querytest), on hypertables when the server has
// TimescaleDB (time_bucket) and on plain tables (date_bin).
func TestQueries(t *testing.T) {
	requireServer(t)
	u, err := url.Parse(pgURL())
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []Hypertable{hypertableMode(), HypertableOff} {
		t.Run("hypertable="+string(mode), func(t *testing.T) {
			querytest.Suite{Loader: "load_timescale", Upstream: u.Host, New: faultTarget(mode)}.Run(t, "q")
		})
	}
}

// TestOddNames: a table prefix and name, tag names and values and a field
// name that need quoting are queried right.
func TestOddNames(t *testing.T) {
	requireServer(t)
	u, err := url.Parse(pgURL())
	if err != nil {
		t.Fatal(err)
	}
	tg, prep := faultTarget(HypertableOff)(t, u.Host, 30*time.Second)
	querytest.CheckOdd(t, tg, "load_timescale", prep)
}
