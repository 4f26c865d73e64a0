package runner

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestFirstMalformedNamed: with two workers checking lines, the malformed
// record named is the first in the file, however quickly the worker with a
// later one gets to it. Batch 3 ends in a bad line and batch 4 starts with
// one: the worker checking batch 4 finds its own at once, before batch 3's.
func TestFirstMalformedNamed(t *testing.T) {
	const batch = 20000
	var raw bytes.Buffer
	off, badOff := 0, 0
	for i := 1; i <= 6*batch; i++ {
		line := fmt.Sprintf("cpu,host=h%d usage=%d,idle=1 %d\n", i%7, i, i)
		if i == 3*batch || i == 3*batch+1 || i == 5*batch {
			line = "cpu,host=h usage\n"
			if badOff == 0 {
				badOff = off
			}
		}
		raw.WriteString(line)
		off += len(line)
	}
	dir := t.TempDir()
	plain := filepath.Join(dir, "bad.ilp")
	gz := filepath.Join(dir, "bad.ilp.gz")
	os.WriteFile(plain, raw.Bytes(), 0o644)
	os.WriteFile(gz, gzipBytes(raw.Bytes()), 0o644)
	for _, path := range []string{plain, gz} {
		want := fmt.Sprintf("%s: record %d (line %d, byte offset %d): field without key=value", path, 3*batch, 3*batch, badOff)
		for i := 0; i < 10; i++ {
			cfg := baseConfig(path)
			cfg.BatchSize, cfg.Workers, cfg.DoLoad, cfg.Verify = batch, 2, false, false
			_, err := Run(context.Background(), cfg, nil)
			if err == nil || err.Error() != want {
				t.Fatalf("run %d: err %v\nwant %s", i, err, want)
			}
		}
	}
}
