package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	"github.com/tsload/tsload/pkg/results"
)

// Run is one results file.
type Run struct {
	Path string
	*results.Results
}

// ReadFiles reads results.Results JSON files in the order given.
func ReadFiles(paths []string) ([]Run, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("no results files given")
	}
	runs := make([]Run, 0, len(paths))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		r, err := Decode(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		runs = append(runs, Run{Path: p, Results: r})
	}
	return runs, nil
}

// Decode parses one results document. A document without a status is
// rejected: every loader writes one, and a table must not guess.
func Decode(b []byte) (*results.Results, error) {
	var r results.Results
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&r); err != nil {
		if se, ok := err.(*json.SyntaxError); ok {
			return nil, fmt.Errorf("byte offset %d: %v", se.Offset, err)
		}
		return nil, err
	}
	if r.Status == "" {
		return nil, fmt.Errorf("not a results file: no \"status\"")
	}
	return &r, nil
}
