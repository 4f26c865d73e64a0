//go:build !tonbo || !cgo

package tonbo

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"testing"
	"unicode/utf8"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/schema"
)

// TestNoBridge: built without the bridge, the target is made (flags are
// checked) and every load says how to get the bridge.
func TestNoBridge(t *testing.T) {
	tg, err := New(Config{Path: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := tg.Ping(ctx); !errors.Is(err, ErrNoBridge) {
		t.Errorf("Ping: %v", err)
	}
	if err := tg.Prepare(ctx, load.PrepareOptions{CreateDB: true}); !errors.Is(err, ErrNoBridge) {
		t.Errorf("Prepare: %v", err)
	}
	if _, err := tg.NewWriter(ctx, 0); !errors.Is(err, ErrNoBridge) {
		t.Errorf("NewWriter: %v", err)
	}
}

// FuzzEncodeILP: whatever the input, the encoder returns an error or row
// buffers that the bridge's decode_rows reads exactly (lib.rs): as many
// rows as the group says, valid UTF-8 strings, every byte used, each key
// ending in its row's time. (Without the bridge: a line naming another
// table than cpu fails on opening it.)
func FuzzEncodeILP(f *testing.F) {
	for _, s := range []string{
		"cpu,host=a usage=1.5,n=3i 1\n",
		"cpu,host=a,region=eu usage=-2,n=-9i,s=\"x\" -5\ncpu usage=1 2\n",
		"cpu,host=\"\\,\" n=1u,b=t 3\n# comment\n\ncpu n=2i\n",
		"cpu,host=\xff n=1i 1\n",
		"cpu s=\"\xff\" 1\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tg, err := New(Config{Path: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		tb, err := newTable("x", &schema.Table{Name: "cpu", Columns: []schema.Column{
			{Name: "time", Type: schema.Timestamp}, {Name: "host", Type: schema.Text, Tag: true},
			{Name: "region", Type: schema.Text, Tag: true}, {Name: "usage", Type: schema.Float8},
			{Name: "n", Type: schema.Int8}, {Name: "s", Type: schema.Text}, {Name: "b", Type: schema.Int4},
		}})
		if err != nil {
			t.Fatal(err)
		}
		tb.h = &handle{}
		tg.tables["cpu"] = tb
		var e encoder
		groups, err := e.decode(context.Background(), tg, &load.Batch{Format: format.ILP, Data: data, Source: "fuzz", FirstLine: 1})
		if err != nil {
			return
		}
		for _, g := range groups {
			if n := decodeRows(t, g.tb, g.buf); n != g.rows {
				t.Fatalf("%d rows in the buffer, the group says %d", n, g.rows)
			}
		}
	})
}

// decodeRows reads buf as lib.rs's decode_rows does and returns the rows.
func decodeRows(t *testing.T, tb *table, buf []byte) int {
	at := 0
	take := func(n int) []byte {
		if len(buf)-at < n {
			t.Fatalf("the buffer ends at byte %d, wanted %d more", at, n)
		}
		b := buf[at : at+n]
		at += n
		return b
	}
	str := func() []byte {
		s := take(int(binary.LittleEndian.Uint32(take(4))))
		if !utf8.Valid(s) {
			t.Fatalf("a string before byte %d is not UTF-8: %q", at, s)
		}
		return s
	}
	rows := 0
	for at < len(buf) {
		key := str()
		ns := binary.LittleEndian.Uint64(take(8))
		if want := fmt.Sprintf("%016x", ns^(1<<63)); len(key) < 16 || string(key[len(key)-16:]) != want {
			t.Fatalf("key %q does not end in its time %s", key, want)
		}
		for _, k := range tb.kinds {
			switch take(1)[0] {
			case 0:
			case 1:
				if k == 's' {
					str()
				} else {
					take(8)
				}
			default:
				t.Fatalf("presence byte %d", buf[at-1])
			}
		}
		rows++
	}
	return rows
}
