package split

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/gen"
	"github.com/tsload/tsload/pkg/schema"
	"github.com/tsload/tsload/pkg/usecase"
)

// TestCSVTableFromHeader: a single-table CSV without --table or a usable
// file name (stdin) is the use-case table whose columns are its header's.
func TestCSVTableFromHeader(t *testing.T) {
	// generated single-table files of every table, as --out-dir writes them
	files := map[string][]byte{}
	for _, uc := range usecase.Names {
		dir := t.TempDir()
		generate(t, gen.Config{UseCase: uc, Format: format.CSV, Seed: 1, Scale: 2, Workers: 1,
			Start: gen.DefaultStart, End: gen.DefaultStart.Add(time.Hour), OutDir: dir})
		tables, _ := usecase.Tables(uc)
		for _, tb := range tables {
			files[tb.Name] = readFile(t, dir, tb.Name+".csv")
		}
	}
	if len(files) != len(usecase.TableNames()) {
		t.Fatalf("%d files for %d tables", len(files), len(usecase.TableNames()))
	}
	for name, data := range files {
		t.Run(name, func(t *testing.T) {
			for _, source := range []string{"stdin", "/tmp/out-1.csv"} {
				bs, _, sp, err := splitAll(source, data, Config{})
				if err != nil {
					t.Fatal(err)
				}
				if sp.Tables()[0] != usecase.LookupTable(name) {
					t.Fatalf("%s: table %s, want the use case's %s", source, sp.Tables()[0].Name, name)
				}
				if len(bs) == 0 || bs[0].Tables[0].Name != name {
					t.Fatalf("%s: batches %d", source, len(bs))
				}
			}
		})
	}

	cpu := files["cpu"]
	twin := &schema.Table{Name: "cpu_twin", Columns: usecase.LookupTable("cpu").Columns}
	tests := []struct {
		name, source string
		cfg          Config
		table, err   string
	}{
		{name: "--table still names it", source: "stdin", cfg: Config{Table: "cpu2"}, table: "cpu2"},
		{name: "the header names it before the file name", source: "/d/hosts.csv", table: "cpu"},
		{name: "ambiguous", source: "stdin", cfg: Config{Lookup: func(n string) *schema.Table {
			if n == "mem" { // a Lookup under which two tables share cpu's columns
				return twin
			}
			return usecase.LookupTable(n)
		}}, err: "stdin: cannot tell the table from the input's name or its header (its columns are those of tables cpu, cpu_twin): pass --table"},
		{name: "columns in another order", source: "stdin", err: "its columns are those of no use-case table"},
		{name: "columns in another order, named by the file", source: "/d/hosts.csv", table: "hosts"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := cpu
			if strings.HasPrefix(tc.name, "columns in another order") {
				data = []byte(strings.Replace(string(cpu), "hostname,region", "region,hostname", 1))
			}
			_, _, sp, err := splitAll(tc.source, data, tc.cfg)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if sp.Tables()[0].Name != tc.table {
				t.Fatalf("table %s, want %s", sp.Tables()[0].Name, tc.table)
			}
		})
	}
}

func readFile(t *testing.T, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("time,")) {
		t.Fatalf("%s: no header", name)
	}
	return b
}

// TestCSVGivenLinesProtocol: --format csv on a file of line protocol says
// so, instead of asking for --table or naming a table without fields
// (issue 43 item 15); a CSV header with spaces but no '=' is a header.
func TestCSVGivenLinesProtocol(t *testing.T) {
	_, _, _, err := splitAll("x.ilp", ilpLines(3), Config{Format: format.CSV})
	if err == nil || !strings.Contains(err.Error(), "x.ilp: --format csv given but the input looks like line protocol") || !strings.Contains(err.Error(), "--format ilp") {
		t.Fatalf("err %v", err)
	}
	batches, _, _, err := splitAll("m.csv", []byte("time,kwh used\n2024-01-01T00:00:00Z,1\n"), Config{Format: format.CSV})
	if err != nil || len(batches) != 1 || batches[0].Rows != 1 {
		t.Fatalf("a header with a space: %d batches, err %v", len(batches), err)
	}
}

// TestCSVEmptyRecord: a record whose every field is empty is no row of
// anything (NoValue): skipped and counted whatever SkipInvalid says, told
// to OnSkip, and the batch is cut before it so a batch's rows stay
// consecutive records (issue 43 item 13).
func TestCSVEmptyRecord(t *testing.T) {
	var skips []Skipped
	data := "time,device,kwh\n2024-01-01T00:00:00Z,d1,1\n2024-01-01T00:00:01Z,d1,2\n,,\n2024-01-01T00:00:03Z,d1,4\n"
	batches, _, sp, err := splitAll("m.csv", []byte(data), Config{Format: format.CSV, OnSkip: func(s Skipped) { skips = append(skips, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(batches) != 2 || batches[0].Rows != 2 || batches[1].Rows != 1 || batches[1].FirstRecord != 4 || batches[1].FirstLine != 5 {
		t.Fatalf("batches %+v", batches)
	}
	if sp.Skipped() != 1 || len(skips) != 1 || skips[0].Record != 3 || skips[0].Line != 4 || skips[0].Offset != 68 || skips[0].Reason != NoValue {
		t.Fatalf("skipped %d: %+v", sp.Skipped(), skips)
	}
}
