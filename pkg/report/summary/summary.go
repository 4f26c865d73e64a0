// Package summary writes the text a load prints on stderr about its
// results (results.Results): the end-of-run summary and the paced part of
// a progress line. It reads the results only, the figures the results
// file records, so what the text says and what the file holds cannot
// differ; pkg/report's renderers compare many such files.
package summary

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Rate formats a per-second rate with thousands separators.
func Rate(v float64) string { return Count(int64(v + 0.5)) }

// Count formats an integer with thousands separators.
func Count(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// seconds converts float seconds to a Duration, saturating.
func seconds(f float64) time.Duration {
	if f >= math.MaxInt64/float64(time.Second) {
		return math.MaxInt64
	}
	return time.Duration(f * float64(time.Second))
}
