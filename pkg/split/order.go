package split

// InOrder reports whether the rows of each batch are consecutive records
// of the input on consecutive lines, so that a row's line is the batch's
// FirstLine plus the lines of the rows before it: an unrouted (Parts 1)
// input that is not a multi-table CSV stream (whose batches gather a
// table's rows from between other tables' and the #data lines).
func (s *Splitter) InOrder() bool { return s.cfg.Parts <= 1 && !s.csv.multi }
