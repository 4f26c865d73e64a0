package split

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/influxdata/line-protocol/v2/lineprotocol"

	"github.com/tsload/tsload/pkg/format"
)

// lineProtocolRows reads data with line-protocol/v2's decoder and returns the rows
// per measurement, or ok false when the decoder refuses any of it or reads
// a string field value with a newline in it (the splitter reads one record
// per line and refuses that: docs/formats.md).
func lineProtocolRows(data []byte) (rows map[string]int64, ok bool) {
	rows = map[string]int64{}
	dec := lineprotocol.NewDecoderWithBytes(data)
	for dec.Next() {
		m, err := dec.Measurement()
		if err != nil {
			return nil, false
		}
		name := string(m)
		for {
			k, _, err := dec.NextTag()
			if err != nil {
				return nil, false
			}
			if k == nil {
				break
			}
		}
		for {
			k, v, err := dec.NextField()
			if err != nil {
				return nil, false
			}
			if k == nil {
				break
			}
			if v.Kind() == lineprotocol.String && strings.ContainsRune(v.StringV(), '\n') {
				return nil, false
			}
		}
		if _, err := dec.Time(lineprotocol.Nanosecond, time.Time{}); err != nil {
			return nil, false
		}
		rows[name]++
	}
	return rows, true
}

// FuzzILPAgainstLineProtocol: input that line-protocol/v2's decoder reads
// whole, the splitter cuts into as many rows, per measurement. Seeds longer
// than 64 bytes a line reach the AVX2 kernel on amd64 (the generic kernel
// elsewhere).
func FuzzILPAgainstLineProtocol(f *testing.F) {
	f.Add([]byte(oneILPLine))
	f.Add(ilpLines(20))
	f.Add([]byte("# comment\n\ncpu\\ x,a=b\\,c f=\"q\\\"s\" 1\r\nm f=1i\n"))
	f.Add([]byte("weather,location_id=1441,region=north\\ sea latitude=89.75,longitude=0.25,temperature=-3.2,note=\"a,b=c d\" 1451606400000000000\n"))
	f.Add([]byte("m,t=v f=1u,g=true,h=\"x\\\\\" 9\nm f=-1.5e10\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		want, ok := lineProtocolRows(data)
		if !ok || len(want) == 0 || bytes.IndexByte(data, 0) >= 0 {
			// The splitter refuses an input without rows, and NUL bytes, on
			// purpose; the decoder reads both.
			return
		}
		if bytes.Contains(data, []byte(`\\`)) || leadingSpace(data) {
			// Where the servers themselves disagree, the splitter keeps its
			// own rule (docs/formats.md, "ILP the loaders read"): it takes
			// `\\` as one escaped backslash, so `m\\ x f=1` ends the
			// measurement before the space, where line-protocol/v2 reads
			// measurement `m\ x` and InfluxDB 1.6.7 `m x`; a line that starts
			// with a space or tab is skipped by the decoder, refused by the
			// splitter.
			return
		}
		bs, _, _, err := splitAll("f.ilp", data, Config{Format: format.ILP, BatchSize: 1 << 20, MaxRecordBytes: 1 << 20})
		if err != nil {
			t.Fatalf("line-protocol reads %v, the splitter refuses: %v\n%q", want, err, data)
		}
		got := map[string]int64{}
		for _, b := range bs {
			for _, tr := range b.Tables {
				got[tr.Name] += tr.Rows
			}
		}
		var nw, ng int64
		for _, n := range want {
			nw += n
		}
		for _, n := range got {
			ng += n
		}
		if nw != ng {
			t.Fatalf("line-protocol reads %d rows %v, the splitter %d %v\n%q", nw, want, ng, got, data)
		}
		for m, n := range want {
			if !strings.ContainsAny(m, "\\ ,") && got[m] != n {
				t.Fatalf("measurement %q: line-protocol %d rows, splitter %d\n%q", m, n, got[m], data)
			}
		}
	})
}

// leadingSpace reports whether a line of data starts with a space or tab.
func leadingSpace(data []byte) bool {
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(line) > 0 && (line[0] == ' ' || line[0] == '\t') {
			return true
		}
	}
	return false
}
