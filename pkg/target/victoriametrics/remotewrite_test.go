package victoriametrics

import (
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/internal/loadtest"
	"github.com/tsload/tsload/internal/vmtest"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// TestRemoteWriteSuite runs the conformance suite on the real
// VictoriaMetrics through the remote-write path (Protocol remote-write):
// faults and loader kills end with the exact count (a re-sent batch
// overwrites its samples); an integer float64 does not hold exactly is refused for good by
// the loader before anything is sent.
func TestRemoteWriteSuite(t *testing.T) {
	base, db := vmtest.RealDB(t)
	s := loadtest.TargetSuite{Loader: "load_victoriametrics", Upstream: base, Rows: suiteRows(base, db), Values: "VictoriaMetrics",
		New: func(t *testing.T, proxy string, timeout time.Duration) (load.Target, load.PrepareOptions) {
			tg, err := New(Config{Conn: httpwrite.Conn{URLs: []string{"http://" + proxy}, RequestTimeout: timeout}, Precision: "ns",
				DBName: db, Protocol: ProtocolRemoteWrite})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { tg.Close() })
			return tg, load.PrepareOptions{DBName: db, CreateDB: true, DropDB: true}
		}}
	s.Faults = &loadtest.FaultSuite{
		Refuse:    func(line string) string { return strings.Replace(line, ",n=", ",n=9007199254740993i,m=", 1) },
		RefuseErr: []string{"no exact float64"},
	}
	s.Resume = &loadtest.ResumeSuite{Args: func(_ *testing.T, proxy, _, _ string) []string {
		return []string{"--urls", "http://" + proxy, "--protocol", ProtocolRemoteWrite}
	}}
	s.Run(t, "rw")
}
