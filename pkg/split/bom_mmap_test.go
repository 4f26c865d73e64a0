//go:build unix

package split

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestBOMMappedFile: a mapped ILP file with a byte-order mark is cut by the
// parallel scan from the byte after it.
func TestBOMMappedFile(t *testing.T) {
	smallWindows(t)
	data := mappedILPFrom(3000, false, 3000)
	dir := t.TempDir()
	var outs [2]outcome
	var scanned int
	for i, b := range [][]byte{data, append([]byte(utf8BOM), data...)} {
		path := filepath.Join(dir, "d.ilp")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		in, err := Open(path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		outs[i], _, scanned = splitFileScanned(t, in, Config{BatchSize: 100})
		in.Close()
		if outs[i].err != "" {
			t.Fatal(outs[i].err)
		}
	}
	if scanned == 0 {
		t.Fatalf("no batch from the parallel scan")
	}
	if !bytes.Equal(outs[0].data, outs[1].data) || outs[0].rows != outs[1].rows || outs[1].tables["cpu"] != outs[0].tables["cpu"] || len(outs[0].tables) != len(outs[1].tables) || outs[1].tables["\ufeffcpu"] != 0 {
		t.Fatalf("with the mark %+v\nwithout %+v", outs[1], outs[0])
	}
}
