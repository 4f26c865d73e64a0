package csv

import (
	"fmt"
)

// ParseRecord parses the RFC 4180 record at data[off:] (Scanner's grammar)
// into fields, which must have room for exactly the record's field count.
// An empty unquoted field is NULL (nil); a quoted empty field is a non-nil
// empty value. Unquoted fields and quoted fields without doubled quotes point
// into data; the others are unescaped into *scratch, which the caller sizes
// (cap >= len(data)) so that appending never moves earlier fields.
// It returns the offset after the record and the number of '\n' consumed.
// Errors give the byte offset within data.
func ParseRecord(data []byte, off int, fields [][]byte, scratch *[]byte) (next, lines int, err error) {
	var p RecordParser
	return p.ParseRecord(data, off, fields, scratch)
}

// RecordParser is ParseRecord for many records: it keeps its Scanner's
// field list from one record to the next (a hot loop allocates nothing).
type RecordParser struct{ sc Scanner }

// ParseRecord is the package's ParseRecord.
func (p *RecordParser) ParseRecord(data []byte, off int, fields [][]byte, scratch *[]byte) (next, lines int, err error) {
	sc := &p.sc
	sc.Spans = true
	sc.Reset()
	rec := data[off:]
	if !sc.Scan(rec) {
		if sc.Open() {
			return off, 0, fmt.Errorf("batch byte offset %d: unterminated quoted field", off)
		}
		return off, 0, fmt.Errorf("batch byte offset %d: record does not end in a newline", len(data))
	}
	lines = 1
	for _, c := range rec[:sc.End] {
		if c == '\n' {
			lines++
		}
	}
	switch {
	case sc.Reason != "":
		return off, lines, fmt.Errorf("batch byte offset %d: %s", off, sc.Reason)
	case len(sc.Fields) > len(fields):
		return off, lines, fmt.Errorf("batch byte offset %d: more than %d fields", off, len(fields))
	case len(sc.Fields) < len(fields):
		return off, lines, fmt.Errorf("batch byte offset %d: record has %d fields, table has %d columns", off, len(sc.Fields), len(fields))
	}
	for i, f := range sc.Fields {
		raw := rec[f.Start:f.End:f.End]
		switch {
		case f.Empty():
			fields[i] = nil
		case !f.Quoted:
			fields[i] = raw
		case !f.Escaped:
			fields[i] = raw[1 : len(raw)-1 : len(raw)-1]
		default:
			s := len(*scratch)
			raw = raw[1 : len(raw)-1]
			for j := 0; j < len(raw); j++ {
				*scratch = append(*scratch, raw[j])
				if raw[j] == '"' {
					j++ // skip the doubled quote
				}
			}
			fields[i] = (*scratch)[s:len(*scratch):len(*scratch)]
		}
	}
	return off + sc.pos, lines, nil
}
