package runner

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/pace"
	"github.com/tsload/tsload/pkg/results"
)

// A serialization pass compares how fast tsload gets rows ready to send
// with how fast the database takes them, in the shape of QuestDB's pandas
// benchmark ("serialized" vs "sent"). The input is ILP (or another wire
// format) already, so "serialized" is everything but the database: reading,
// decompressing and cutting the same inputs into batches, a DoLoad=false
// pass made before the load; "sent" is the load's own rate.

// mib is 2^20 bytes.
const mib = 1 << 20

// serializationPass runs cfg's inputs through the runner without loading
// (t only says how its input is written: CSV as lines; it is not sent to).
func serializationPass(ctx context.Context, cfg Config, t load.Target) (*results.Results, error) {
	if len(cfg.Inputs) == 0 {
		return nil, errors.New("a serialization pass needs file inputs (stdin cannot be read twice)")
	}
	pass := cfg
	pass.DoLoad, pass.Verify, pass.SerializationPass, pass.Progress = false, false, false, false
	pass.ResultsFile = ""
	pass.Pace = pace.Pace{} // serialising alone runs flat out
	pass.QueryRate = 0      // no database to query
	// One pass of the files: a rate, not a second long run.
	pass.Loop, pass.Duration = false, 0
	pass.Stderr = io.Discard
	res, err := Run(ctx, pass, t)
	if err != nil {
		return nil, fmt.Errorf("serialization pass: %w", err)
	}
	return res, nil
}

// serializationOf combines a DoLoad=false run and a load of the same input
// into the "serialized" and "sent" figures.
func serializationOf(noLoad, sent *results.Results) *results.Serialization {
	s := &results.Serialization{}
	if noLoad != nil && noLoad.Seconds > 0 {
		s.SerializedRowsPerSec = float64(noLoad.RowsRead) / noLoad.Seconds
		s.SerializedMiBPerSec = float64(noLoad.Bytes) / mib / noLoad.Seconds
	}
	if sent != nil && sent.Seconds > 0 {
		s.SentRowsPerSec = float64(sent.Rows) / sent.Seconds
		// Bytes counts the input read; all of it was sent only if every
		// row was acknowledged.
		s.SentMiBPerSec = float64(sent.Bytes) / mib / sent.Seconds * frac(sent.Rows, sent.RowsRead)
	}
	return s
}

func frac(a, b int64) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}
