-- lastpoint: last(usage_user,usage_idle) from cpu [2016-01-04T00:00:00Z, 2016-01-04T01:00:00Z) region in (eu-west-1,it's) by hostname -> tsq_g0,tsq_time,tsq_v0,tsq_v1
SELECT "hostname" AS tsq_g0, "timestamp" AS tsq_time, CAST("usage_user" AS double) AS tsq_v0, CAST("usage_idle" AS double) AS tsq_v1 FROM "cpu" WHERE "timestamp" >= CAST('2016-01-04T00:00:00.000000Z' AS timestamp) AND "timestamp" < CAST('2016-01-04T01:00:00.000000Z' AS timestamp) AND "region" IN ('eu-west-1', 'it''s') AND ("usage_user" IS NOT NULL OR "usage_idle" IS NOT NULL) LATEST ON "timestamp" PARTITION BY "hostname";

-- last-one: last(usage_user) from cpu [2016-01-04T00:00:00Z, 2016-01-04T01:00:00Z) -> tsq_time,tsq_v0
SELECT tsq_time, tsq_v0 FROM (SELECT "timestamp" AS tsq_time, CAST("usage_user" AS double) AS tsq_v0 FROM "cpu" WHERE "timestamp" >= CAST('2016-01-04T00:00:00.000000Z' AS timestamp) AND "timestamp" < CAST('2016-01-04T01:00:00.000000Z' AS timestamp) AND "usage_user" IS NOT NULL) tsq_rows ORDER BY tsq_time DESC LIMIT 1;

-- last-per-half-hour: last(usage_user) from cpu [2016-01-04T00:00:00Z, 2016-01-04T01:00:00Z) by hostname every 30m0s -> tsq_g0,tsq_bucket,tsq_v0
SELECT tsq_g0, tsq_bucket, tsq_v0 FROM (SELECT tsq_g0, tsq_bucket, tsq_time, tsq_v0, row_number() OVER (PARTITION BY tsq_g0, tsq_bucket ORDER BY tsq_time DESC) AS tsq_n FROM (SELECT "hostname" AS tsq_g0, timestamp_floor('30m', "timestamp") AS tsq_bucket, "timestamp" AS tsq_time, CAST("usage_user" AS double) AS tsq_v0 FROM "cpu" WHERE "timestamp" >= CAST('2016-01-04T00:00:00.000000Z' AS timestamp) AND "timestamp" < CAST('2016-01-04T01:00:00.000000Z' AS timestamp) AND "usage_user" IS NOT NULL) tsq_rows) tsq_ranked WHERE tsq_n = 1;

-- groupby-orderby-limit: max(usage_user) from cpu [2016-01-04T00:00:00Z, 2016-01-04T01:00:00Z) every 1m0s newest 5 -> tsq_bucket,tsq_v0
SELECT tsq_bucket, CAST(max(tsq_v0) AS double) AS tsq_v0 FROM (SELECT timestamp_floor('1m', "timestamp") AS tsq_bucket, CAST("usage_user" AS double) AS tsq_v0 FROM "cpu" WHERE "timestamp" >= CAST('2016-01-04T00:00:00.000000Z' AS timestamp) AND "timestamp" < CAST('2016-01-04T01:00:00.000000Z' AS timestamp) AND "usage_user" IS NOT NULL) tsq_rows GROUP BY tsq_bucket ORDER BY tsq_bucket DESC LIMIT 5;

