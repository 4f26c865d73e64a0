package sqlquery_test

import (
	"fmt"
	"time"

	"github.com/tsload/tsload/pkg/query"
	"github.com/tsload/tsload/pkg/target/sqlquery"
)

// TSBS's single-groupby-1-1-1 (one metric, one host, one hour, by
// minute) in SQLite's SQL, whose times are integer nanoseconds.
func ExampleDialect_SQL() {
	start := time.Date(2016, 1, 4, 10, 0, 0, 0, time.UTC)
	q := &query.Query{
		Name: "single-groupby-1-1-1", Table: "cpu", Start: start, End: start.Add(time.Hour),
		Where:  []query.Match{{Tag: "hostname", Values: []string{"host_7"}}},
		Fields: []string{"usage_user"}, Agg: query.Max, Bucket: time.Minute,
	}
	stmt, lay, err := sqlquery.SQLite().SQL(q, "time")
	if err != nil {
		panic(err)
	}
	fmt.Println(stmt)
	fmt.Println(lay.Names())
	// Output:
	// SELECT tsq_bucket, CAST(max(tsq_v0) AS REAL) AS tsq_v0 FROM (SELECT ("time" / 60000000000) * 60000000000 AS tsq_bucket, CAST("usage_user" AS REAL) AS tsq_v0 FROM "cpu" WHERE "time" >= 1451901600000000000 AND "time" < 1451905200000000000 AND "hostname" IN ('host_7') AND "usage_user" IS NOT NULL) tsq_rows GROUP BY tsq_bucket
	// [tsq_bucket tsq_v0]
}

// TSBS's stationary-trucks (the trucks of a fleet whose mean velocity
// over ten minutes is below 1) in DuckDB's SQL: the aggregate, wrapped in
// its Having.
func ExampleDialect_Stages() {
	start := time.Date(2016, 1, 4, 10, 0, 0, 0, time.UTC)
	q := &query.Query{
		Name: "stationary-trucks", Table: "readings", Start: start, End: start.Add(10 * time.Minute),
		Where:  []query.Match{{Tag: "fleet", Values: []string{"East"}}},
		Fields: []string{"velocity"}, Agg: query.Avg, GroupBy: []string{"name", "driver"},
		Having: &query.Having{Field: "velocity", Value: 1, Below: true},
	}
	stmt, lay, err := sqlquery.DuckDB().SQL(q, "time")
	if err != nil {
		panic(err)
	}
	fmt.Println(stmt)
	fmt.Println(lay.Names())
	// Output:
	// SELECT tsq_g0, tsq_g1, tsq_v0 FROM (SELECT tsq_g0, tsq_g1, CAST(avg(tsq_v0) AS DOUBLE) AS tsq_v0 FROM (SELECT "name" AS tsq_g0, "driver" AS tsq_g1, CAST("velocity" AS DOUBLE) AS tsq_v0 FROM "readings" WHERE "time" >= TIMESTAMPTZ '2016-01-04 10:00:00.000000Z' AND "time" < TIMESTAMPTZ '2016-01-04 10:10:00.000000Z' AND "fleet" IN ('East') AND "velocity" IS NOT NULL) tsq_rows GROUP BY tsq_g0, tsq_g1) tsq_h WHERE tsq_v0 < 1
	// [tsq_g0 tsq_g1 tsq_v0]
}
