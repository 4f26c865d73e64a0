package journal

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tsload/tsload/pkg/load"
)

// A snapshot taken after a batch was sent and before its ticket lists it
// without tables; its ticket log line has them: the batch in doubt keeps
// them, so a batch found written counts its rows in its tables (a resume
// on PostgreSQL once verified 1,000 rows short of the journal's total).
func TestGatherInDoubtKeepsTables(t *testing.T) {
	dir := t.TempDir()
	jp := filepath.Join(dir, "r.json.journal")
	tables := []load.TableRows{{Name: "cpu", Rows: 1000}}
	line, _ := json.Marshal(Batch{Input: 0, Batch: 7, Rows: 1000, Tables: tables, Tickets: []string{"42"}})
	os.WriteFile(jp+".tickets.3", append(line, '\n'), 0o644)
	jr := &Live{path: jp, j: Journal{Inputs: []Input{{}}}}
	old := &Journal{InDoubt: []Batch{{Input: 0, Batch: 7, Rows: 1000}}, TicketsFrom: 3}
	if err := jr.GatherInDoubt(old); err != nil {
		t.Fatal(err)
	}
	if len(jr.pending) != 1 || fmt.Sprint(jr.pending[0].Tables) != fmt.Sprint(tables) || fmt.Sprint(jr.pending[0].Tickets) != "[42]" || jr.gen != 4 || !jr.unsettled {
		t.Fatalf("pending %+v, gen %d, unsettled %v", jr.pending, jr.gen, jr.unsettled)
	}
}
