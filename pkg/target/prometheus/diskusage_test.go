//go:build unix

package prometheus

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDiskUsageCountsBlocks: a sparse file (as Prometheus preallocates its
// WAL segments) counts the blocks it takes, not its length; a written one
// counts at least its bytes.
func TestDiskUsageCountsBlocks(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "sparse"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(128 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	sub := filepath.Join(dir, "wal")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "00000001"), make([]byte, 64<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	n, err := diskUsage(dir)
	if err != nil {
		t.Fatal(err)
	}
	if n < 64<<10 || n >= 128<<20 {
		t.Fatalf("diskUsage = %d bytes, want at least the 64 KiB written and less than the 128 MiB sparse file", n)
	}
}
