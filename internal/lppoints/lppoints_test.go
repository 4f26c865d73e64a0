package lppoints

import (
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/query"
)

func TestEach(t *testing.T) {
	data := "cpu,host=a u=1.5,n=2i,w=3u,s=\"x\",b=t 1000\n\nmem,host=b free=4 2000\ncpu,host=c u=5 3000\n"
	var tables []string
	var got []query.Point
	if err := Each([]byte(data), func(table string, p query.Point) bool {
		tables, got = append(tables, table), append(got, p)
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if strings.Join(tables, ",") != "cpu,mem,cpu" {
		t.Fatalf("tables %v", tables)
	}
	p := got[0]
	if p.Tags["host"] != "a" || len(p.Fields) != 3 || p.Fields["u"] != 1.5 || p.Fields["n"] != 2 || p.Fields["w"] != 3 ||
		!p.Time.Equal(time.Unix(0, 1000)) || p.Time.Location() != time.UTC {
		t.Errorf("first point %+v", p)
	}
	n := 0
	if err := Each([]byte(data), func(string, query.Point) bool { n++; return n < 2 }); err != nil || n != 2 {
		t.Errorf("stopped after %d points, error %v; want 2", n, err)
	}
	if err := Each([]byte("cpu u=1 1\ncpu,host u=1 2\n"), func(string, query.Point) bool { return true }); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("a bad tag: error %v, want one naming line 2", err)
	}
}
