package loadtest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tsload/tsload/pkg/results"
)

// RepeatedKeysVerified fails the test unless a load of gentest.RepeatedKeys'
// file (rows rows) with the default count verification passed, the database
// holding the 2,160 distinct keys, with the note that says so.
func RepeatedKeysVerified(t testing.TB, res *results.Results, err error, log string, rows int64) {
	t.Helper()
	want := fmt.Sprintf("cpu: %d rows acknowledged, 2160 distinct (series, time) keys, %d rows repeat one", rows, rows-2160)
	if err != nil || res.Verify == nil || !res.Verify.OK || res.Verify.Actual["cpu"] != 2160 || !strings.Contains(res.Verify.Note, want) {
		t.Fatalf("err %v verify %+v, want a pass saying %q\n%s", err, res.Verify, want, log)
	}
}
