package gen

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/envinfo"
	"github.com/tsload/tsload/pkg/format"
)

// The loaders report the dataset from the description written beside the file.
func TestFileDescribed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.ilp.gz")
	st, err := Generate(context.Background(), Config{UseCase: "devops", Format: format.ILP, Seed: 9, Scale: 3,
		End: DefaultStart.Add(time.Minute), File: path, Workers: 2, Shard: Shard{1, 2}, Stderr: os.Stderr})
	if err != nil {
		t.Fatal(err)
	}
	d, err := envinfo.ReadDataset(path)
	if err != nil || d == nil {
		t.Fatalf("description: %+v, %v", d, err)
	}
	if d.UseCase != "devops" || d.Scale != 3 || d.Seed == nil || *d.Seed != 9 || d.Start != "2016-01-01T00:00:00Z" || d.End != "2016-01-01T00:01:00Z" ||
		d.Interval != "10s" || d.Shard != "1/2" || d.Format != "ilp" || d.Rows != st.Rows || d.Bytes != st.Bytes || d.Compression != "gzip level 1" {
		t.Errorf("description %+v, stats %+v", d, st)
	}
}
