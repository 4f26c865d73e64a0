package questdb

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/runner"
)

// The issue compares against QuestDB's pandas benchmark, which prints how
// fast rows are serialised to ILP and how fast they are sent. tsload's input
// is ILP already, so "serialized" is the rate of everything but the
// database: reading, decompressing and cutting the same input into batches
// (a --do-load=false pass of the runner); "sent" is the load's rate.

// MiB is 2^20 bytes.
const MiB = 1 << 20

// SerializationOf combines a --do-load=false run and a load of the same
// input into the pandas benchmark's figures.
func SerializationOf(noLoad, sent *load.Results) *load.Serialization {
	s := &load.Serialization{}
	if noLoad != nil && noLoad.Seconds > 0 {
		s.SerializedRowsPerSec = float64(noLoad.RowsRead) / noLoad.Seconds
		s.SerializedMiBPerSec = float64(noLoad.Bytes) / MiB / noLoad.Seconds
	}
	if sent != nil && sent.Seconds > 0 {
		s.SentRowsPerSec = float64(sent.Rows) / sent.Seconds
		// Bytes counts the input read; all of it was sent only if every
		// row was acknowledged.
		s.SentMiBPerSec = float64(sent.Bytes) / MiB / sent.Seconds * frac(sent.Rows, sent.RowsRead)
	}
	return s
}

func frac(a, b int64) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// WriteSerialization prints s in the shape of the pandas benchmark.
func WriteSerialization(w io.Writer, s *load.Serialization) {
	fmt.Fprintf(w, "serialized: %12.0f rows/s %10.2f MiB/s  (read and split only, --do-load=false)\n", s.SerializedRowsPerSec, s.SerializedMiBPerSec)
	fmt.Fprintf(w, "sent:       %12.0f rows/s %10.2f MiB/s  (acknowledged by the server)\n", s.SentRowsPerSec, s.SentMiBPerSec)
}

// serialTarget wraps the Target of a run that made a serialisation pass
// first: its Close (which loadcli calls after the runner wrote the results)
// adds the figures to the results file and prints them.
type serialTarget struct {
	*Target
	noLoad  *load.Results
	results string
	stderr  io.Writer
}

// serializationPass runs the runner over cfg's inputs without loading.
func serializationPass(ctx context.Context, cfg runner.Config) (*load.Results, error) {
	if len(cfg.Inputs) == 0 {
		return nil, fmt.Errorf("--%s needs --file inputs (stdin cannot be read twice)", FlagSerializationPass)
	}
	pass := cfg
	pass.DoLoad, pass.Verify, pass.ResultsFile, pass.Progress = false, false, "", false
	pass.Stderr = io.Discard
	res, err := runner.Run(ctx, pass, nil)
	if err != nil {
		return nil, fmt.Errorf("serialization pass: %w", err)
	}
	return res, nil
}

func (t *serialTarget) Close() error {
	err := t.Target.Close()
	if t.results == "" {
		fmt.Fprintf(t.stderr, "(--%s: the sent figure needs --results-file)\n", FlagSerializationPass)
		WriteSerialization(t.stderr, SerializationOf(t.noLoad, nil))
		return err
	}
	raw, rerr := os.ReadFile(t.results)
	var res load.Results
	if rerr == nil {
		rerr = json.Unmarshal(raw, &res)
	}
	if rerr != nil {
		return fmt.Errorf("adding the serialization figures to %s: %w", t.results, rerr)
	}
	res.Serialization = SerializationOf(t.noLoad, &res)
	WriteSerialization(t.stderr, res.Serialization)
	if werr := runner.WriteResults(t.results, &res); werr != nil && err == nil {
		err = werr
	}
	return err
}
