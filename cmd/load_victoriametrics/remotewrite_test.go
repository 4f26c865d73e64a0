package main

import (
	"testing"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/internal/vmtest"
)

// TestRemoteWrite_Load loads through the remote-write path (--protocol
// remote-write) and verifies by content; the samples are those the line
// path would store.
func TestRemoteWrite_Load(t *testing.T) {
	base, db := vmtest.RealDB(t)
	res := loadtest.RunOnInput(t, spec(), "in.ilp", "cpu,h=a v=1 1451606400000000000\ncpu,h=b v=2 1451606400000000000\nmem,h=a f=1i 1451606401000000000\n", "",
		"--urls", base, "--db-name", db, "--protocol", "remote-write", "--verify", "content").Verified(t, 3)
	if res.Setup == nil || res.Setup.API != "remote-write 1.0" {
		t.Errorf("setup %+v", res.Setup)
	}
	if n, _ := vmtest.Rows(t, base, db, "cpu_v"); n != 2 {
		t.Errorf("cpu_v holds %d samples, want 2", n)
	}
}

// TestRemoteWrite_Refused: a string field is refused before sending,
// naming the line, and nothing of its batch is counted.
func TestRemoteWrite_Refused(t *testing.T) {
	base, db := vmtest.RealDB(t)
	line := func(i int, v string) string {
		return "cpu,h=h" + v + " v=" + v + " " + "14516064000" + pad(i) + "000000"
	}
	loadtest.RefusedBatch(t, spec(), []string{"--urls", base, "--db-name", db, "--protocol", "remote-write"},
		func(i int) string { return line(i, "1") }, "cpu,h=x v=\"s\" 1451606400057000000",
		func(t testing.TB) int64 { n, _ := vmtest.Rows(t, base, db, "cpu_v"); return n }, "line 58", "a string")
}

func pad(i int) string { return string([]byte{'0' + byte(i/10), '0' + byte(i%10)}) }

func TestRemoteWrite_ErrorsNameFlags(t *testing.T) {
	loadtest.CLIErrors(t, spec(), []loadtest.CLIError{
		{[]string{"--protocol", "x"}, `invalid --protocol "x" (want line or remote-write)`},
	})
}
