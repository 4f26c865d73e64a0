package influx

import (
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/query"
)

var fuzzQuery = &query.Query{Name: "f", Table: "cpu", Fields: []string{"usage_user", "usage_system"}, Agg: query.Max,
	GroupBy: []string{"hostname"}, Bucket: time.Minute, Limit: 2,
	Start: time.Date(2016, 1, 4, 0, 0, 0, 0, time.UTC), End: time.Date(2016, 1, 4, 1, 0, 0, 0, time.UTC)}

// FuzzReadInfluxQL: any /query answer is read or refused, never a panic;
// each row read has a value per field and its bucket's start.
func FuzzReadInfluxQL(f *testing.F) {
	f.Add([]byte(`{"results":[{"statement_id":0,"series":[{"name":"cpu","tags":{"hostname":"host_0"},"columns":["time","v0","v1"],"values":[[1451865600000000000,21.5,null],[1451865660000000000,3,4]]}]}]}`))
	f.Add([]byte(`{"results":[{"statement_id":0,"error":"field not found"}]}`))
	f.Add([]byte(`{"results":[{"series":[{"columns":["v0"],"values":[[1]]}]}]}`))
	f.Add([]byte(`{"results":[{"series":[{"columns":["time","v9","v-1"],"values":[[1,true],[]]}]}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		ans, err := readInfluxQL(body, fuzzQuery)
		if err != nil {
			return
		}
		for _, r := range ans.Rows {
			if len(r.Values) != len(fuzzQuery.Fields) || len(r.Group) != 1 || !r.Time.Equal(query.BucketStart(r.Time, time.Minute)) {
				t.Fatalf("row %v", r)
			}
		}
	})
}

// FuzzReadFlux: any Flux CSV answer is read or refused, never a panic;
// each row read has a value per field and its bucket's start, at most
// Limit per group.
func FuzzReadFlux(f *testing.F) {
	f.Add([]byte(",result,table,_time,_field,_value,hostname\r\n,_result,0,2016-01-04T00:00:00Z,usage_user,21.5,host_0\r\n,_result,1,2016-01-04T00:01:00Z,usage_system,3,host_0\r\n\r\n"))
	f.Add([]byte(",result,table,_time,usage_user,usage_system,hostname\r\n,_result,0,2016-01-04T00:00:10Z,1,,host_1\r\n"))
	f.Add([]byte(",error,reference\r\n,\"runtime error @3:6-3:40: filter: type error\",\r\n"))
	f.Add([]byte(",_result,0,x\r\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		ans, err := readFlux(body, fuzzQuery)
		if err != nil {
			return
		}
		per := map[string]int{}
		for _, r := range ans.Rows {
			if len(r.Values) != len(fuzzQuery.Fields) || len(r.Group) != 1 || !r.Time.Equal(query.BucketStart(r.Time, time.Minute)) {
				t.Fatalf("row %v", r)
			}
			if per[r.Group[0]]++; per[r.Group[0]] > fuzzQuery.Limit {
				t.Fatalf("more than %d rows of group %q", fuzzQuery.Limit, r.Group[0])
			}
		}
	})
}
