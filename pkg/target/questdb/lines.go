package questdb

import "bytes"

// QuestDB's ILP parser has no comment lines ("# ..." is a parse error) and
// refuses a line of only blanks, while the load contract allows both in a
// batch. It skips empty lines without counting them when it numbers lines in
// an error. So a Writer sends the batch without skippable lines, and the
// server's line N is the N-th unskippable line of the batch.

// skippable reports whether line (without its '\n') is blank or a comment.
func skippable(line []byte) bool {
	for _, c := range line {
		switch c {
		case ' ', '\t', '\r':
			continue
		case '#':
			return true
		default:
			return false
		}
	}
	return true
}

// needsClean reports whether data holds a line that QuestDB would refuse
// but the load contract allows (a comment or a line of blanks). Empty lines
// do not count: the server skips them.
func needsClean(data []byte) bool {
	for i := 0; i < len(data); {
		switch data[i] {
		case '#', ' ', '\t', '\r':
			return true
		}
		nl := bytes.IndexByte(data[i:], '\n')
		if nl < 0 {
			return false
		}
		i += nl + 1
	}
	return false
}

// appendClean appends data without its skippable lines to dst.
func appendClean(dst, data []byte) []byte {
	for len(data) > 0 {
		nl := bytes.IndexByte(data, '\n')
		line := data
		if nl >= 0 {
			line = data[:nl+1]
		}
		data = data[len(line):]
		if !skippable(bytes.TrimSuffix(line, []byte{'\n'})) {
			dst = append(dst, line...)
		}
	}
	return dst
}

// inputLine maps the server's 1-based line number n within a request built
// from data to the 1-based line number within data: the n-th line that is
// not skippable. It returns 0 when data has fewer such lines.
func inputLine(data []byte, n int64) int64 {
	if n <= 0 {
		return 0
	}
	var phys, seen int64
	for len(data) > 0 {
		nl := bytes.IndexByte(data, '\n')
		line := data
		if nl >= 0 {
			line = data[:nl]
			data = data[nl+1:]
		} else {
			data = nil
		}
		phys++
		if !skippable(line) {
			seen++
			if seen == n {
				return phys
			}
		}
	}
	return 0
}

// lineText returns the 1-based line n of data (without '\n'), or nil.
func lineText(data []byte, n int64) []byte {
	for i := int64(1); len(data) > 0; i++ {
		nl := bytes.IndexByte(data, '\n')
		line := data
		if nl >= 0 {
			line = data[:nl]
			data = data[nl+1:]
		} else {
			data = nil
		}
		if i == n {
			return line
		}
	}
	return nil
}
