package questdb

import (
	"bytes"
	"fmt"
	"math"

	"github.com/tsload/tsload/pkg/format/ilp"
)

// QuestDB has no NULL bit: a LONG column stores NULL as int64's least
// value and a DOUBLE column stores NULL as NaN. Sent as is, either value
// loads without a word and reads back as NULL (count() skips it), so
// nullValue refuses them before the batch is sent.

// longNull is the text of the integer QuestDB stores as NULL.
var longNull = []byte("-9223372036854775808i")

// nullValue returns the 1-based line of data holding a field value QuestDB
// would store as NULL, and why; 0, "" when there is none. Only batches
// that could hold one (the integer's text, or an "nan" in any case) are
// parsed.
func nullValue(data []byte) (int64, string) {
	if !bytes.Contains(data, longNull) && !mayHoldNaN(data) {
		return 0, ""
	}
	var n int64
	for len(data) > 0 {
		n++
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		r := ilp.ScanCareful(line)
		if !r.Row || r.Reason != "" {
			continue // the server answers a malformed line itself
		}
		reason := ""
		_, _ = ilp.Fields(line, r, false, func(key []byte, v ilp.Value) {
			if reason != "" {
				return
			}
			switch {
			case v.Kind == ilp.KindInt && v.I == math.MinInt64:
				reason = fmt.Sprintf("field %s: integer %d is QuestDB's NULL of a LONG column (it would store NULL)", key, v.I)
			case v.Kind == ilp.KindFloat && math.IsNaN(v.F):
				reason = fmt.Sprintf("field %s: NaN is QuestDB's NULL of a DOUBLE column (it would store NULL)", key)
			}
		})
		if reason != "" {
			return n, reason
		}
	}
	return 0, ""
}

// mayHoldNaN reports whether data has "nan" in any case.
func mayHoldNaN(data []byte) bool {
	for i := 0; i+2 < len(data); i++ {
		if data[i]|0x20 == 'n' && data[i+1]|0x20 == 'a' && data[i+2]|0x20 == 'n' {
			return true
		}
	}
	return false
}
