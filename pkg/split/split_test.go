package split

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/tsload/tsload/pkg/format"
)

const oneILPLine = "cpu,hostname=host_0,region=eu-west-1 usage_user=2.26,usage_system=0.77,usage_idle=1i 1451606400000000000\n"

func ilpLines(n int) []byte {
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "cpu,hostname=host_%d,region=eu usage_user=%d.5,usage_system=1i %d\n", i%5, i, 1451606400000000000+int64(i))
	}
	return b.Bytes()
}

func cpuCSV(n int, quoteTag bool) []byte {
	var b bytes.Buffer
	b.WriteString("time,hostname,region,datacenter,rack,os,arch,team,service,service_version,service_environment," +
		"usage_user,usage_system,usage_idle,usage_nice,usage_iowait,usage_irq,usage_softirq,usage_steal,usage_guest,usage_guest_nice\n")
	for i := 0; i < n; i++ {
		host := fmt.Sprintf("host_%d", i%4)
		if quoteTag {
			host = fmt.Sprintf("\"host\n%d\"", i%4)
		}
		fmt.Fprintf(&b, "2016-01-01T00:00:%02dZ,%s,eu,eu-1a,1,Ubuntu,x86,LON,1,0,test,1.5,2,3,4,5,6,7,8,9,\n", i%60, host)
	}
	return b.Bytes()
}

// pgFlags sets the flags field of a single-table pgcopy file.
func pgFlags(file []byte, flags uint32) []byte {
	binary.BigEndian.PutUint32(file[11:], flags)
	return file
}

// TestMalformed is the hostile-input table: each input and the
// exact error (or, for inputs that are valid, the rows they load).
func TestMalformed(t *testing.T) {
	cpu := mustTable(t, "cpu")
	ilpGz := gz(ilpLines(50))
	long := append([]byte(oneILPLine), append(bytes.Repeat([]byte("x"), 2000), '\n')...)
	tests := []struct {
		name, source string
		data         []byte
		cfg          Config
		err          string // "" = valid
		rows         int
	}{
		{"truncated gzip", "d.ilp.gz", ilpGz[:len(ilpGz)-12], Config{}, "d.ilp.gz: truncated gzip stream (unexpected end of file) (compressed byte offset " + fmt.Sprint(len(ilpGz)-12) + ")", 0},
		{"gzip member then garbage", "d.ilp.gz", append(gz(ilpLines(3)), []byte("garbage after the member!")...), Config{}, "d.ilp.gz: invalid gzip header (garbage after a gzip member?) (compressed byte offset", 0},
		{"two gzip members", "d.ilp.gz", gz(ilpLines(3), ilpLines(4)), Config{}, "", 7},
		{"empty file", "empty.ilp", nil, Config{}, "empty.ilp: empty input (no data)", 0},
		{"empty gzip", "empty.ilp.gz", gz(nil), Config{}, "empty.ilp.gz: empty input (no data)", 0},
		{"csv header only", "cpu.csv", cpuCSV(0, false), Config{}, "", 0},
		{"ilp CRLF", "d.ilp", []byte(strings.ReplaceAll(string(ilpLines(5)), "\n", "\r\n")), Config{}, "", 5},
		{"csv CRLF", "cpu.csv", []byte(strings.ReplaceAll(string(cpuCSV(5, false)), "\n", "\r\n")), Config{}, "", 5},
		{"line longer than the buffer", "d.ilp", long, Config{MaxRecordBytes: 1024}, "d.ilp: record 2 (line 2, byte offset 105): line longer than the 1024-byte limit", 0},
		{"csv record longer than the buffer", "cpu.csv", append(cpuCSV(1, false), append([]byte("\""), bytes.Repeat([]byte("x\n"), 1000)...)...), Config{MaxRecordBytes: 1024}, "cpu.csv: record 2 (line 3, byte offset 302): record longer than the 1024-byte limit", 0},
		{"NUL byte in ILP tag", "d.ilp", []byte("cpu,host=a\x00b f=1 1\n"), Config{}, "d.ilp: record 1 (line 1, byte offset 0): NUL byte in tag", 0},
		{"NUL byte in CSV", "cpu.csv", append(cpuCSV(1, false), []byte("2016-01-01T00:00:00Z,h\x00,eu,eu-1a,1,Ubuntu,x86,LON,1,0,test,1,2,3,4,5,6,7,8,9,10\n")...), Config{}, "cpu.csv: record 2 (line 3, byte offset 302): NUL byte", 0},
		{"invalid UTF-8 in ILP tag", "d.ilp", []byte("cpu,host=a\xffb f=1 1\n"), Config{}, "d.ilp: record 1 (line 1, byte offset 0): invalid UTF-8 in measurement or tags", 0},
		{"invalid UTF-8 in CSV tag", "cpu.csv", append(cpuCSV(1, false), []byte("2016-01-01T00:00:00Z,h\xc3,eu,eu-1a,1,Ubuntu,x86,LON,1,0,test,1,2,3,4,5,6,7,8,9,10\n")...), Config{}, "cpu.csv: record 2 (line 3, byte offset 302): invalid UTF-8", 0},
		{"unterminated CSV quote", "cpu.csv", append(cpuCSV(2, false), []byte("2016-01-01T00:00:00Z,\"host,eu\n")...), Config{}, "cpu.csv: record 3 (line 4, byte offset 386): unterminated quoted field", 0},
		{"CSV quoted newlines", "cpu.csv", cpuCSV(7, true), Config{}, "", 7},
		{"CSV field count mismatch", "cpu.csv", append(cpuCSV(1, false), []byte("2016-01-01T00:00:00Z,h,1\n")...), Config{}, "cpu.csv: record 2 (line 3, byte offset 302): 3 fields, table cpu has 21 columns", 0},
		{"CSV quote inside a field", "cpu.csv", append(cpuCSV(1, false), []byte("2016-01-01T00:00:00Z,h\"x,eu,eu-1a,1,Ubuntu,x86,LON,1,0,test,1,2,3,4,5,6,7,8,9,10\n")...), Config{}, "cpu.csv: record 2 (line 3, byte offset 302): quote inside an unquoted field", 0},
		{"pgcopy bad signature", "cpu.bin", append([]byte("PGCOPY\n\377\r\n\x01"), make([]byte, 8)...), Config{}, "cpu.bin: byte offset 0: bad pgcopy signature (want PGCOPY\\n\\377\\r\\n\\0)", 0},
		{"pgcopy flag bit 3 (backwards-compatible: ignored, as PostgreSQL does)", "cpu.bin", pgFlags(pgFile(rowFor(cpu, "h")), 1<<3), Config{}, "", 1},
		{"pgcopy flag bit 16 (OIDs)", "cpu.bin", pgFlags(pgFile(rowFor(cpu, "h")), 1<<16), Config{}, "cpu.bin: byte offset 11: pgcopy flags 0x10000: bit 16 (OIDs in the tuples) is not supported", 0},
		{"pgcopy flag bit 17 (critical)", "cpu.bin", pgFlags(pgFile(rowFor(cpu, "h")), 1<<17|1<<3), Config{}, "cpu.bin: byte offset 11: pgcopy flags 0x20008: unknown critical flag bits 0x20000 (bits 17-31)", 0},
		{"pgcopy garbage with --format", "cpu.bin", []byte("hello world\n"), Config{Format: format.PGCopy}, "cpu.bin: byte offset 0: bad pgcopy signature", 0},
		{"pgcopy field count mismatch", "cpu.bin", pgFile(rowFor(cpu, "h"), pgTuple([]byte("a"), nil, []byte("b"))), Config{}, fmt.Sprintf("cpu.bin: record 2 (byte offset %d): 3 fields, table cpu has 21 columns", 19+len(rowFor(cpu, "h"))), 0},
		{"pgcopy length past the end", "cpu.bin", cat(pgHeader(), rowFor(cpu, "h"), []byte{0, 21, 0, 0, 0, 100, 1, 2}), Config{}, fmt.Sprintf("cpu.bin: record 2 (byte offset %d): field length 100 (field 1) past the end of the input", 19+len(rowFor(cpu, "h"))), 0},
		{"pgcopy data after the trailer", "cpu.bin", append(pgFile(rowFor(cpu, "h")), 0), Config{}, fmt.Sprintf("cpu.bin: byte offset %d: data after the pgcopy trailer", 21+len(rowFor(cpu, "h"))), 0},
		{"pgcopy missing trailer", "cpu.bin", cat(pgHeader(), rowFor(cpu, "h")), Config{}, "missing pgcopy trailer (truncated file?)", 0},
		{"pgcopy unknown table", "thing.bin", pgFile(rowFor(cpu, "h")), Config{}, "thing.bin: unknown table \"thing\": a pgcopy file without a tsload table chunk carries no column names, pass --table with a table of a use case", 0},
		{"pgcopy table from flag", "stdin", pgFile(rowFor(cpu, "h"), rowFor(cpu, "i", 12)), Config{Table: "cpu"}, "", 2},
		{"csv from stdin without --table", "stdin", cpuCSV(1, false), Config{}, "", 1},
		{"csv from stdin, an unknown header", "stdin", []byte("time,v\n2016-01-01T00:00:00Z,1\n"), Config{}, "stdin: cannot tell the table from the input's name or its header (its columns are those of no use-case table): pass --table", 0},
		{"ILP escaped spaces and commas in tags", "d.ilp", []byte("cpu\\ load,host=a\\ b\\,c,dc=x\\=y f=1,s=\"a \\\"q\\\", b\" 1\n"), Config{}, "", 1},
		{"ILP missing timestamp", "d.ilp", []byte("cpu,host=a f=1\n"), Config{}, "", 1},
		{"ILP timestamp out of range", "d.ilp", []byte("cpu,host=a f=1 99999999999999999999\n"), Config{}, "d.ilp: record 1 (line 1, byte offset 0): timestamp out of range (int64 nanoseconds)", 0},
		{"ILP bad timestamp", "d.ilp", []byte("cpu,host=a f=1 12x\n"), Config{}, "d.ilp: record 1 (line 1, byte offset 0): invalid timestamp", 0},
		{"ILP missing fields", "d.ilp", []byte("cpu,host=a f=1 1\ncpu,host=a 1\n"), Config{}, "d.ilp: record 2 (line 2, byte offset 17): field without key=value", 0},
		{"ILP tag without value", "d.ilp", []byte("cpu,host f=1 1\n"), Config{}, "d.ilp: record 1 (line 1, byte offset 0): tag without key=value", 0},
		{"ILP no field section", "d.ilp", []byte("cpu,host=a\n"), Config{Format: format.ILP}, "d.ilp: record 1 (line 1, byte offset 0): missing field section", 0},
		{"ILP unterminated string", "d.ilp", []byte("cpu s=\"abc 1\n"), Config{}, "d.ilp: record 1 (line 1, byte offset 0): unterminated string field value", 0},
		{"ILP comments and blank lines", "d.ilp", []byte("# hello\n\ncpu f=1 1\n# mid\ncpu f=2 2\n\n"), Config{}, "", 2},
		{"ILP last line without newline", "d.ilp", []byte("cpu f=1 1\ncpu f=2 2"), Config{}, "", 2},
		{"multi-table csv record before #data", "s.csv", []byte("#tsload-csv v1\n#table t time:timestamptz,v:float8\n2016-01-01T00:00:00Z,1\n"), Config{}, "s.csv: record 1 (line 3, byte offset 50): record before the first #data line", 0},
		{"multi-table csv undeclared table", "s.csv", []byte("#tsload-csv v1\n#table t time:timestamptz,v:float8\n#data u\n"), Config{}, "s.csv: line 3 (byte offset 50): #data names undeclared table \"u\"", 0},
		{"multi-table csv bad type", "s.csv", []byte("#tsload-csv v1\n#table t time:timestamptz,v:double\n"), Config{}, "s.csv: line 2 (byte offset 15): #table t: unknown column type \"double\"", 0},
		{"tslcopy frame table out of range", "s.bin", cat(tslHeader(cpu), tslFrame(3)), Config{}, fmt.Sprintf("s.bin: byte offset %d: frame names table 3, the stream declares 1", len(tslHeader(cpu))), 0},
		{"tslcopy missing end marker", "s.bin", cat(tslHeader(cpu), tslFrame(0, rowFor(cpu, "h"))), Config{}, "missing end marker (ff ff) of the multi-table pgcopy stream (truncated?)", 0},
		{"tslcopy data after end marker", "s.bin", cat(tslHeader(cpu), tslFrame(0, rowFor(cpu, "h")), []byte{0xff, 0xff, 1}), Config{}, "data after the pgcopy trailer", 0},
		{"tslcopy tuple crosses frame", "s.bin", cat(tslHeader(cpu), []byte{0, 0, 0, 0, 0, 10}, rowFor(cpu, "h"), []byte{0xff, 0xff}), Config{}, "tuple crosses the end of its frame", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			bs, _, _, err := splitAll(tc.source, tc.data, tc.cfg)
			rows := 0
			for _, b := range bs {
				rows += b.Rows
			}
			if tc.err == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if rows != tc.rows {
					t.Fatalf("rows = %d, want %d", rows, tc.rows)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want %q (rows %d)", tc.err, rows)
			}
			if !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("error\n  %q\nwant it to contain\n  %q", err, tc.err)
			}
		})
	}
}
