package split

import "io"

// InOrder reports whether the rows of each batch are consecutive records
// of the input on consecutive lines, so that a row's line is the batch's
// FirstLine plus the lines of the rows before it: an unrouted (Parts 1)
// input that is not a multi-table CSV stream (whose batches gather a
// table's rows from between other tables' and the #data lines).
func (s *Splitter) InOrder() bool { return s.cfg.Parts <= 1 && !s.csv.multi }

// Peek returns the next n bytes of the decompressed input without
// consuming them (fewer at its end).
func (in *Input) Peek(n int) ([]byte, error) { return in.br.Peek(n) }

// Reader reads the decompressed input.
func (in *Input) Reader() io.Reader { return in.br }

// Wrap returns an input of the bytes r makes of in's (a format written as
// another: TSBS's files as CSV), read as a stream; its Close closes in.
func Wrap(in *Input, r io.Reader, bufSize int) (*Input, error) {
	w, err := NewInput(in.Source, r, -1, bufSize)
	if err != nil {
		return nil, err
	}
	w.Gzip, w.Zstd, w.closer = in.Gzip, in.Zstd, closerFunc(in.Close)
	return w, nil
}

type closerFunc func() error

func (f closerFunc) Close() error { return f() }
