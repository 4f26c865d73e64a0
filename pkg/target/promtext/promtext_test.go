package promtext

import (
	"strings"
	"testing"
)

const exposition = `# HELP storage_shard_disk_size Gauge of the disk size for the shard
# TYPE storage_shard_disk_size gauge
storage_shard_disk_size{bucket="0a1b",engine="tsm1",id="1",path="/e/data/0a1b/autogen/1"} 1234
storage_shard_disk_size{bucket="0a1b",id="2",path="/odd \"dir}\", here"} 1.5e+06 1700000000000
storage_shard_series{bucket="0a1b"} 7
up 1
`

func TestSamples(t *testing.T) {
	s, err := Samples([]byte(exposition), "storage_shard_disk_size", "up")
	if err != nil {
		t.Fatal(err)
	}
	if len(s) != 3 || s[0].Value != 1234 || s[0].Labels["bucket"] != "0a1b" || s[0].Labels["id"] != "1" ||
		s[1].Value != 1.5e6 || s[1].Labels["path"] != `/odd "dir}", here` || s[2].Value != 1 || len(s[2].Labels) != 0 {
		t.Errorf("Samples = %+v", s)
	}
	for _, bad := range []string{`m{a="x"} x`, `m{a="x"`, `m{a=x} 1`, `m{a="x} 1`, `m`} {
		if _, err := Samples([]byte(bad), "m"); err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	// Other metrics are not parsed.
	if s, err := Samples([]byte("other{broken\nm 2\n"), "m"); err != nil || len(s) != 1 || s[0].Value != 2 {
		t.Errorf("%+v, %v", s, err)
	}
}

func FuzzSamples(f *testing.F) {
	f.Add([]byte(exposition))
	f.Add([]byte(`m{a="\\"} 1`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Samples(b, "storage_shard_disk_size", "m")
		if err != nil && s != nil {
			t.Errorf("samples and an error")
		}
	})
}
