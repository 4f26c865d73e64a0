package querytest

import (
	"time"

	"github.com/tsload/tsload/pkg/query"
)

// More are queries beyond Queries, for a dialect's own tests: a threshold
// under every aggregate, Last per bucket of several fields (iot's NULL
// fields make the newest row's values differ from each field's newest),
// Last (of one host: rows of a group never share a time) and Min
// without groups, Rows without a limit (of one host: Answer.Sort leaves rows of one
// group and time in the order they came). Their names say
// what they use, for a target's Unsupported list.
func More(uc, prefix string, points map[string][]query.Point) []*query.Query {
	end := start.Add(2 * time.Hour)
	whole := func(q *query.Query) *query.Query { q.Start, q.End = start, end; return q }
	if uc == "iot" {
		readings, diag := prefix+"readings", prefix+"diagnostics"
		fleets := tagValues(points[diag], "fleet")
		// A row has one of these NULL one time in ten: the newest row of a
		// bucket often lacks one.
		seven := []string{"latitude", "longitude", "elevation", "velocity", "heading", "grade", "fuel_consumption"}
		return []*query.Query{
			whole(&query.Query{Name: "last2-per-bucket-iot", Table: readings, Fields: []string{"latitude", "longitude"}, Agg: query.Last,
				GroupBy: []string{"name"}, Bucket: 20 * time.Minute, Limit: 2}),
			whole(&query.Query{Name: "last7-per-bucket-iot", Table: readings, Fields: seven, Agg: query.Last,
				GroupBy: []string{"name"}, Bucket: 5 * time.Minute}),
			whole(&query.Query{Name: "last7-iot", Table: readings, Fields: seven, Agg: query.Last, GroupBy: []string{"name"}}),
			whole(&query.Query{Name: "count-filter-iot", Table: diag, Fields: []string{"fuel_state", "current_load"}, Agg: query.Count,
				GroupBy: []string{"fleet"}, Bucket: time.Hour, Filter: &query.Threshold{Field: "current_load", Value: median(points[diag], "current_load")}}),
			whole(&query.Query{Name: "last-filter-iot", Table: diag, Fields: []string{"fuel_state"}, Agg: query.Last,
				Where: []query.Match{{Tag: "fleet", Values: fleets[:2]}}, GroupBy: []string{"name"},
				Filter: &query.Threshold{Field: "fuel_state", Value: median(points[diag], "fuel_state"), Below: true}}),
		}
	}
	cpu := prefix + "cpu"
	hosts := tagValues(points[cpu], "hostname")
	above := &query.Threshold{Field: "usage_system", Value: median(points[cpu], "usage_system")}
	return []*query.Query{
		whole(&query.Query{Name: "max-filter-by-host-10m", Table: cpu, Fields: []string{"usage_user", "usage_idle"}, Agg: query.Max,
			GroupBy: []string{"hostname"}, Bucket: 10 * time.Minute, Filter: above}),
		whole(&query.Query{Name: "min-filter-same-field", Table: cpu, Fields: []string{"usage_system"}, Agg: query.Min,
			GroupBy: []string{"region"}, Filter: above}),
		whole(&query.Query{Name: "avg-filter-below", Table: cpu, Fields: []string{"usage_user"}, Agg: query.Avg,
			Filter: &query.Threshold{Field: "usage_user", Value: median(points[cpu], "usage_user"), Below: true}}),
		whole(&query.Query{Name: "count-filter-same-field", Table: cpu, Fields: []string{"usage_system"}, Agg: query.Count,
			GroupBy: []string{"region"}, Bucket: 30 * time.Minute, Filter: above}),
		whole(&query.Query{Name: "max-filter-same-field", Table: cpu, Fields: []string{"usage_system"}, Agg: query.Max,
			GroupBy: []string{"hostname"}, Bucket: 10 * time.Minute, Filter: above}),
		whole(&query.Query{Name: "count-below-same-field", Table: cpu, Fields: []string{"usage_user"}, Agg: query.Count,
			GroupBy: []string{"hostname"}, Filter: &query.Threshold{Field: "usage_user", Value: median(points[cpu], "usage_user"), Below: true}}),
		whole(&query.Query{Name: "count-filter-by-region", Table: cpu, Fields: []string{"usage_nice"}, Agg: query.Count,
			GroupBy: []string{"region"}, Filter: above}),
		whole(&query.Query{Name: "last-filter", Table: cpu, Fields: []string{"usage_user", "usage_system"}, Agg: query.Last,
			GroupBy: []string{"hostname"}, Filter: above}),
		whole(&query.Query{Name: "last2-per-bucket", Table: cpu, Fields: []string{"usage_user", "usage_system"}, Agg: query.Last,
			GroupBy: []string{"hostname"}, Bucket: 15 * time.Minute, Limit: 3}),
		whole(&query.Query{Name: "last-no-group", Table: cpu, Fields: []string{"usage_iowait"}, Agg: query.Last,
			Where: []query.Match{{Tag: "hostname", Values: hosts[2:3]}}}),
		whole(&query.Query{Name: "min-no-group", Table: cpu, Fields: []string{"usage_steal", "usage_irq"}, Agg: query.Min}),
		{Name: "rows-one-host", Table: cpu, Fields: []string{"usage_user", "usage_softirq"}, Agg: query.Rows,
			Where: []query.Match{{Tag: "hostname", Values: hosts[3:4]}}, Start: start.Add(5 * time.Minute), End: start.Add(8*time.Minute + 5*time.Second)},
		whole(&query.Query{Name: "max-two-tags", Table: cpu, Fields: []string{"usage_user"}, Agg: query.Max,
			Where: []query.Match{{Tag: "hostname", Values: hosts[1:3]}}, GroupBy: []string{"hostname", "region"}, Bucket: 30 * time.Minute, Limit: 2}),
	}
}

// Sample is a few rows of each table of cpu-only and iot (loaded with
// prefix): enough for Queries and More to pick their tag values and
// thresholds from, for tests of the query text a dialect makes without
// a server.
func Sample(prefix string) map[string][]query.Point {
	out := map[string][]query.Point{}
	for i, host := range []string{"host_0", "host_1", "host_2", "host_3"} {
		at := start.Add(time.Duration(i) * 10 * time.Second)
		tags := map[string]string{"hostname": host, "region": []string{"eu-west-1", "us-east-1"}[i%2]}
		out[prefix+"cpu"] = append(out[prefix+"cpu"], query.Point{Time: at, Tags: tags, Fields: map[string]float64{
			"usage_user": float64(10 * i), "usage_system": float64(5 * i), "usage_idle": 50, "usage_guest": 1, "usage_nice": 2}})
		truck := map[string]string{"name": "truck_" + host[5:], "fleet": []string{"East", "West"}[i%2], "model": "F-150"}
		out[prefix+"readings"] = append(out[prefix+"readings"], query.Point{Time: at, Tags: truck, Fields: map[string]float64{
			"latitude": float64(i), "longitude": float64(-i), "velocity": float64(20 * i)}})
		out[prefix+"diagnostics"] = append(out[prefix+"diagnostics"], query.Point{Time: at, Tags: truck, Fields: map[string]float64{
			"fuel_state": 0.25 * float64(i), "current_load": float64(100 * i), "status": 1}})
	}
	return out
}
