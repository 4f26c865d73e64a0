package csv

import (
	"bytes"
	"fmt"
)

// ParseRecord parses the RFC 4180 record at data[off:] (fields separated by
// ',', records ending in '\n' or "\r\n", quoted fields with doubled quotes)
// into fields, which must have room for exactly the record's field count.
// An empty unquoted field is NULL (nil); a quoted empty field is a non-nil
// empty value. Unquoted fields and quoted fields without doubled quotes point
// into data; the others are unescaped into *scratch, which the caller sizes
// (cap >= len(data)) so that appending never moves earlier fields.
// It returns the offset after the record and the number of '\n' consumed.
// Errors give the byte offset within data.
func ParseRecord(data []byte, off int, fields [][]byte, scratch *[]byte) (next, lines int, err error) {
	p := off
	nf := 0
	for {
		if nf == len(fields) {
			return off, lines, fmt.Errorf("batch byte offset %d: more than %d fields", p, len(fields))
		}
		var f []byte
		if p < len(data) && data[p] == '"' {
			// Quoted field.
			start := p + 1
			q := start
			escaped := false
			for {
				i := bytes.IndexByte(data[q:], '"')
				if i < 0 {
					return off, lines, fmt.Errorf("batch byte offset %d: unterminated quoted field", p)
				}
				lines += bytes.Count(data[q:q+i], []byte{'\n'})
				q += i + 1
				if q < len(data) && data[q] == '"' {
					escaped = true
					q++
					continue
				}
				break
			}
			raw := data[start : q-1]
			if escaped {
				s := len(*scratch)
				for i := 0; i < len(raw); i++ {
					*scratch = append(*scratch, raw[i])
					if raw[i] == '"' {
						i++ // skip the doubled quote
					}
				}
				f = (*scratch)[s:len(*scratch):len(*scratch)]
			} else {
				f = raw[:len(raw):len(raw)]
			}
			p = q
			if p < len(data) && data[p] == '\r' && p+1 < len(data) && data[p+1] == '\n' {
				p++
			}
			if p < len(data) && data[p] != ',' && data[p] != '\n' {
				return off, lines, fmt.Errorf("batch byte offset %d: unexpected %q after a quoted field", p, data[p])
			}
		} else {
			start := p
			for p < len(data) && data[p] != ',' && data[p] != '\n' {
				if data[p] == '"' {
					return off, lines, fmt.Errorf("batch byte offset %d: bare quote in an unquoted field", p)
				}
				p++
			}
			end := p
			if p < len(data) && data[p] == '\n' && end > start && data[end-1] == '\r' {
				end--
			}
			if end > start {
				f = data[start:end:end]
			}
		}
		fields[nf] = f
		nf++
		if p >= len(data) {
			return off, lines, fmt.Errorf("batch byte offset %d: record does not end in a newline", p)
		}
		if data[p] == '\n' {
			p++
			lines++
			break
		}
		p++ // ','
	}
	if nf != len(fields) {
		return off, lines, fmt.Errorf("batch byte offset %d: record has %d fields, table has %d columns", off, nf, len(fields))
	}
	return p, lines, nil
}
