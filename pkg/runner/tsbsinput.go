package runner

import (
	"errors"
	"fmt"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/format/tsbs"
	"github.com/tsload/tsload/pkg/split"
)

// openInput opens input path; a file of TSBS's data generator in its
// TimescaleDB format (pkg/format/tsbs, found from its first line when the
// format is not given or is CSV) is read as the tsload CSV stream of the
// tables TSBS's loader makes.
func (r *run) openInput(path string) (*split.Input, error) {
	in, err := split.Open(path, r.cfg.Stdin, r.cfg.MaxRecordBytes)
	if err != nil || r.cfg.Format != format.Unknown && r.cfg.Format != format.CSV {
		return in, err
	}
	head, _ := in.Peek(4096)
	if !tsbs.Sniff(head) {
		return in, nil
	}
	if len(r.cfg.Inputs) > 1 || r.cfg.Loop {
		in.Close()
		// Each file numbers its series from 1: two would give two series one id.
		return nil, errors.New(in.Source + ": a TSBS file is loaded alone (one file, no loop): its series are numbered from 1 in the tags table")
	}
	maxLine := r.cfg.MaxRecordBytes
	if maxLine <= 0 {
		maxLine = split.DefaultMaxRecordBytes
	}
	tr, err := tsbs.NewReader(in.Reader(), maxLine)
	if err != nil {
		in.Close()
		return nil, fmt.Errorf("%s: %w", in.Source, err)
	}
	w, err := split.Wrap(in, &tsbsErrors{r: tr, source: in.Source}, r.cfg.MaxRecordBytes)
	if err != nil {
		in.Close()
		return nil, err
	}
	return w, nil
}

// tsbsErrors names the file in the Reader's refusals.
type tsbsErrors struct {
	r      *tsbs.Reader
	source string
}

func (e *tsbsErrors) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	var te *tsbs.Error
	if errors.As(err, &te) {
		err = fmt.Errorf("%s: %w", e.source, err)
	}
	return n, err
}
