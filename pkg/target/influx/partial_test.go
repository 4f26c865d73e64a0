package influx

import (
	"reflect"
	"strings"
	"testing"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
)

func batch(data string, firstLine int64) *load.Batch {
	rows := 0
	for _, l := range strings.Split(data, "\n") {
		if t := strings.TrimSpace(l); t != "" && t[0] != '#' {
			rows++
		}
	}
	return &load.Batch{Format: format.ILP, Data: []byte(data), Rows: rows, Source: "test.ilp",
		FirstLine: firstLine, FirstRecord: firstLine, Tables: []load.TableRows{{Name: "m", Rows: int64(rows)}}}
}

// The messages are InfluxDB 1.6.7's, as returned by the server (see the
// integration tests, which check them again).
func TestPartialAck(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		msg     string
		want    load.Ack
		wantErr string
	}{
		{
			name: "parse failures named",
			data: "m,h=a v=1 11\nm,h=b v=oops x 12\nm,h=c v=3 13\n",
			msg:  "partial write: unable to parse 'm,h=b v=oops x 12': invalid boolean dropped=0",
			want: load.Ack{Rows: 2, Dropped: 1, Rejected: []load.Rejection{{Line: 101, Reason: "unable to parse: invalid boolean"}}},
		},
		{
			name: "two parse failures, duplicate lines, comment and indentation",
			data: "# c\nbad\nm v=1 1\n  bad\nworse x\n",
			msg:  "partial write: unable to parse 'bad': missing fields\nunable to parse 'bad': missing fields\nunable to parse 'worse x': invalid field format dropped=0",
			want: load.Ack{Rows: 1, Dropped: 3, Rejected: []load.Rejection{
				{Line: 101, Reason: "unable to parse: missing fields"},
				{Line: 103, Reason: "unable to parse: missing fields"},
				{Line: 104, Reason: "unable to parse: invalid field format"}}},
		},
		{
			name: "quoted line containing the separator",
			data: "m s=\"a': b\" 1\nm v=1 2\n",
			msg:  "partial write: unable to parse 'm s=\"a': b\" 1': some reason dropped=0",
			want: load.Ack{Rows: 1, Dropped: 1, Rejected: []load.Rejection{{Line: 100, Reason: "unable to parse: some reason"}}},
		},
		{
			name: "line not found in the batch",
			data: "m v=1 1\nm v=2 2\n",
			msg:  "partial write: unable to parse 'zzz': missing fields dropped=0",
			want: load.Ack{Rows: 1, Dropped: 1, Rejected: []load.Rejection{{Line: 0, Reason: "unable to parse 'zzz': missing fields"}}},
		},
		{
			name: "type conflict, unnamed",
			data: "m,h=a v=1 21\nm,h=b v=\"s\" 22\nm,h=c v=3 23\n",
			msg:  `partial write: field type conflict: input field "v" on measurement "m" is type string, already exists as type float dropped=1`,
			want: load.Ack{Rows: 2, Dropped: 1, Rejected: []load.Rejection{{Reason: `field type conflict: input field "v" on measurement "m" is type string, already exists as type float (1 points; the server does not name the lines)`}}},
		},
		{
			name: "type conflict hides a parse failure",
			data: "m,h=a v=1 31\nm,h=b v=\"s\" 32\nm,h=c v=3 33\nm,h=d v=oops x 34\n",
			msg:  `partial write: field type conflict: input field "v" on measurement "m" is type string, already exists as type float dropped=1`,
			want: load.Ack{Rows: 2, Dropped: 2, Rejected: []load.Rejection{
				{Line: 103, Reason: "unable to parse (found by the loader; the server's partial-write message named only its storage error): "},
				{Reason: `field type conflict: input field "v" on measurement "m" is type string, already exists as type float (1 points; the server does not name the lines)`}}},
		},
		{
			name: "beyond retention",
			data: "m v=1 1\nm v=2 2\n",
			msg:  "partial write: points beyond retention policy dropped=2",
			want: load.Ack{Rows: 0, Dropped: 2, Rejected: []load.Rejection{{Reason: "points beyond retention policy (2 points; the server does not name the lines)"}}},
		},
		{
			name: "every line unparsable (no partial write prefix)",
			data: "bad line\nworse\n",
			msg:  "unable to parse 'bad line': invalid field format\nunable to parse 'worse': missing fields",
			want: load.Ack{Rows: 0, Dropped: 2, Rejected: []load.Rejection{
				{Line: 100, Reason: "unable to parse: invalid field format"},
				{Line: 101, Reason: "unable to parse: missing fields"}}},
		},
		{
			name:    "whole write failed",
			data:    "m,h=a v=1 1\nm,h=d v=\"str\" 4\n",
			msg:     "field type conflict",
			wantErr: "server refused the batch (400: field type conflict)",
		},
		{
			name:    "more dropped than rows",
			data:    "m v=1 1\n",
			msg:     "partial write: points beyond retention policy dropped=5",
			wantErr: "5 dropped points in a batch of 1 rows",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := batch(tc.data, 100)
			ack, err := partialAck(b, []byte(tc.msg))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			// The decoder's own wording is not ours to pin: compare the prefix.
			for i := range ack.Rejected {
				if i < len(tc.want.Rejected) && strings.HasSuffix(tc.want.Rejected[i].Reason, "): ") &&
					strings.HasPrefix(ack.Rejected[i].Reason, tc.want.Rejected[i].Reason) {
					ack.Rejected[i].Reason = tc.want.Rejected[i].Reason
				}
			}
			if !reflect.DeepEqual(ack, tc.want) {
				t.Fatalf("ack =\n%+v\nwant\n%+v", ack, tc.want)
			}
			if ack.Rows+ack.Dropped != b.Rows {
				t.Fatalf("Rows %d + Dropped %d != batch rows %d", ack.Rows, ack.Dropped, b.Rows)
			}
		})
	}
}

func FuzzParseWriteError(f *testing.F) {
	f.Add([]byte("partial write: unable to parse 'm,h=b v=oops x 12': invalid boolean dropped=0"), []byte("m,h=b v=oops x 12\n"))
	f.Add([]byte(`partial write: field type conflict: input field "v" on measurement "m" is type string, already exists as type float dropped=1`), []byte("m v=\"s\" 1\nm v=oops 2\n"))
	f.Add([]byte("unable to parse 'bad line': invalid field format\nunable to parse 'worse': missing fields"), []byte("bad line\nworse\n"))
	f.Add([]byte("partial write: unable to parse '': x\nunable to parse ''"), []byte("\n\n"))
	f.Fuzz(func(t *testing.T, msg, data []byte) {
		b := batch(string(data), 1)
		ack, err := partialAck(b, msg)
		if err != nil {
			return
		}
		if ack.Rows < 0 || ack.Rows+ack.Dropped != b.Rows {
			t.Fatalf("rows %d + dropped %d != %d for %q", ack.Rows, ack.Dropped, b.Rows, msg)
		}
		for _, r := range ack.Rejected {
			if r.Line != 0 && (r.Line < 1 || r.Line > int64(strings.Count(string(data), "\n")+1)) {
				t.Fatalf("rejection line %d outside the batch", r.Line)
			}
		}
	})
}
