package verify

import "fmt"

// KeyCount is what the distinct-key pass found, per table as verified
// (prefixed, case-folded where the target folds names).
type KeyCount struct {
	Rows     map[string]int64 // rows read
	Distinct map[string]int64 // distinct (series, timestamp) keys, plus rows without a timestamp
	NoTime   map[string]int64 // rows without a timestamp (the server gives them one)
	Seconds  float64
	PeakKeys int   // key hashes held in memory at most
	Spilled  int64 // bytes written to temporary files
}

// of returns the distinct keys of table k when the pass read the rows the
// load acknowledged there (known false otherwise, or without a pass).
func (kc *KeyCount) of(k string, acked int64) (d int64, known bool) {
	if kc == nil || kc.Rows[k] != acked {
		return 0, false
	}
	return kc.Distinct[k], true
}

// shortBy says, for a lost table's message, what the distinct keys show.
func (kc *KeyCount) shortBy(k string, acked, before, after int64) string {
	if kc == nil {
		return ""
	}
	d, known := kc.of(k, acked)
	if !known {
		return fmt.Sprintf(" (the input read again holds %d rows for it, not the rows acknowledged: changed since, or not all sent)", kc.Rows[k])
	}
	return fmt.Sprintf(" (the input holds %d distinct (series, time) keys: %d points missing)", d, max(before, d)-after)
}

// anyShort reports whether a table holds fewer rows than its rows
// before plus those acknowledged.
func anyShort(keys []string, before, acked, after map[string]int64) bool {
	for _, k := range keys {
		if after[k]-before[k] < acked[k] {
			return true
		}
	}
	return false
}

// Cost says what the pass did and what it took.
func (kc *KeyCount) Cost() string {
	s := fmt.Sprintf("found by reading the input again: %.2fs, at most %d keys (%d MiB) in memory", kc.Seconds, kc.PeakKeys, (kc.PeakKeys*8+(1<<20)-1)>>20)
	if kc.Spilled > 0 {
		s += fmt.Sprintf(", %d MiB in temporary files", (kc.Spilled+(1<<20)-1)>>20)
	}
	return s
}
