package victoriametrics

import (
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/query"
)

// FuzzReadPoints: any answer body is read or refused, never a panic; a
// range answer's points are named by their bucket's start.
func FuzzReadPoints(f *testing.F) {
	f.Add([]byte(`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"hostname":"host_0"},"values":[[1451866260,"21.5"],[1451866320,"3"]]}]}}`))
	f.Add([]byte(`{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1451872800,"1451872790.5"]}]}}`))
	f.Add([]byte(`{"data":{"result":[{"values":[[1,2,3]]}]}}`))
	f.Add([]byte(`{"data":{"result":[{"value":["x","1"]}]}}`))
	sp := span{from: 1451866200000, to: 1451869800000, step: 60000}
	f.Fuzz(func(t *testing.T, body []byte) {
		pts, err := readPoints(body, sp)
		if err != nil {
			return
		}
		for _, p := range pts {
			if p.bucket.IsZero() {
				t.Fatalf("bucket %s", p.bucket)
			}
		}
	})
}

// FuzzReadExport: any export body is read or refused, never a panic; the
// rows read are in the window, one value per field.
func FuzzReadExport(f *testing.F) {
	f.Add([]byte(`{"metric":{"__name__":"cpu_usage_user","db":"d","hostname":"host_0"},"values":[21.5,3],"timestamps":[1451865600000,1451865610000]}
{"metric":{"__name__":"cpu_usage_system","db":"d","hostname":"host_0"},"values":[1],"timestamps":[1451865600000]}
`))
	f.Add([]byte("{}\n\n{\"values\":[1],\"timestamps\":[]}"))
	f.Add([]byte(`{"metric":{"__name__":"cpu_usage_user"},"values":[1,2],"timestamps":[1451865600000]}`))
	q := &query.Query{Name: "f", Table: "cpu", Fields: []string{"usage_user", "usage_system"}, Agg: query.Rows, Limit: 1,
		Start: time.UnixMilli(1451865600000), End: time.UnixMilli(1451865605000), Filter: &query.Threshold{Field: "usage_user", Value: 2}}
	sp := span{from: 1451865600000, to: 1451865605000}
	f.Fuzz(func(t *testing.T, body []byte) {
		ans, err := readExport(body, q, sp)
		if err != nil {
			return
		}
		if len(ans.Rows) > q.Limit {
			t.Fatalf("%d rows, limit %d", len(ans.Rows), q.Limit)
		}
		for _, r := range ans.Rows {
			if len(r.Values) != len(q.Fields) || r.Time.Before(q.Start) || !r.Time.Before(q.End) {
				t.Fatalf("row %v", r)
			}
		}
	})
}
