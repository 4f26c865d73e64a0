-- rows: rows(usage_user) from p_cpu [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) -> tsq_time,tsq_v0
SELECT "time" AS tsq_time, CAST("usage_user" AS DOUBLE) AS tsq_v0 FROM "p_cpu" WHERE "time" >= CAST('2016-01-04T00:00:00Z' AS TIMESTAMP) AND "time" < CAST('2016-01-04T02:00:00Z' AS TIMESTAMP) AND "usage_user" IS NOT NULL;

-- rows-newest: rows(usage_user,usage_system) from p_cpu [2016-01-04T00:00:00.0000015Z, 2016-01-04T02:00:00Z) hostname in (host_0,it's "odd") usage_user < 42.5 newest 3 -> tsq_time,tsq_v0,tsq_v1
SELECT "time" AS tsq_time, CAST("usage_user" AS DOUBLE) AS tsq_v0, CAST("usage_system" AS DOUBLE) AS tsq_v1 FROM "p_cpu" WHERE "time" >= CAST('2016-01-04T00:00:00.0000015Z' AS TIMESTAMP) AND "time" < CAST('2016-01-04T02:00:00Z' AS TIMESTAMP) AND "hostname" IN ('host_0', 'it''s "odd"') AND "usage_user" < 42.5 AND ("usage_user" IS NOT NULL OR "usage_system" IS NOT NULL) ORDER BY tsq_time DESC LIMIT 3;

-- max-bucket: max(usage_user) from p_cpu [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) hostname in (host_0) every 1m0s -> tsq_bucket,tsq_v0
SELECT tsq_bucket, CAST(max(tsq_v0) AS DOUBLE) AS tsq_v0 FROM (SELECT date_bin(INTERVAL '60 seconds', "time", CAST('1970-01-01T00:00:00Z' AS TIMESTAMP)) AS tsq_bucket, CAST("usage_user" AS DOUBLE) AS tsq_v0 FROM "p_cpu" WHERE "time" >= CAST('2016-01-04T00:00:00Z' AS TIMESTAMP) AND "time" < CAST('2016-01-04T02:00:00Z' AS TIMESTAMP) AND "hostname" IN ('host_0') AND "usage_user" IS NOT NULL) tsq_rows GROUP BY tsq_bucket;

-- avg-group-bucket: avg(usage_user,usage_system) from p_cpu [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) by hostname every 1h0m0s -> tsq_g0,tsq_bucket,tsq_v0,tsq_v1
SELECT tsq_g0, tsq_bucket, CAST(avg(tsq_v0) AS DOUBLE) AS tsq_v0, CAST(avg(tsq_v1) AS DOUBLE) AS tsq_v1 FROM (SELECT "hostname" AS tsq_g0, date_bin(INTERVAL '3600 seconds', "time", CAST('1970-01-01T00:00:00Z' AS TIMESTAMP)) AS tsq_bucket, CAST("usage_user" AS DOUBLE) AS tsq_v0, CAST("usage_system" AS DOUBLE) AS tsq_v1 FROM "p_cpu" WHERE "time" >= CAST('2016-01-04T00:00:00Z' AS TIMESTAMP) AND "time" < CAST('2016-01-04T02:00:00Z' AS TIMESTAMP) AND ("usage_user" IS NOT NULL OR "usage_system" IS NOT NULL)) tsq_rows GROUP BY tsq_g0, tsq_bucket;

-- min-no-bucket: min(usage_guest) from p_cpu [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) usage_user > 1e+21 by region,hostname -> tsq_g0,tsq_g1,tsq_v0
SELECT tsq_g0, tsq_g1, CAST(min(tsq_v0) AS DOUBLE) AS tsq_v0 FROM (SELECT "region" AS tsq_g0, "hostname" AS tsq_g1, CAST("usage_guest" AS DOUBLE) AS tsq_v0 FROM "p_cpu" WHERE "time" >= CAST('2016-01-04T00:00:00Z' AS TIMESTAMP) AND "time" < CAST('2016-01-04T02:00:00Z' AS TIMESTAMP) AND "usage_user" > 1000000000000000000000 AND "usage_guest" IS NOT NULL) tsq_rows GROUP BY tsq_g0, tsq_g1;

-- count: count(usage_nice) from p_cpu [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) -> tsq_v0
SELECT CAST(count(tsq_v0) AS DOUBLE) AS tsq_v0 FROM (SELECT CAST("usage_nice" AS DOUBLE) AS tsq_v0 FROM "p_cpu" WHERE "time" >= CAST('2016-01-04T00:00:00Z' AS TIMESTAMP) AND "time" < CAST('2016-01-04T02:00:00Z' AS TIMESTAMP) AND "usage_nice" IS NOT NULL) tsq_rows;

-- max-limit: max(usage_user) from p_cpu [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) every 1m0s newest 5 -> tsq_bucket,tsq_v0
SELECT tsq_bucket, CAST(max(tsq_v0) AS DOUBLE) AS tsq_v0 FROM (SELECT date_bin(INTERVAL '60 seconds', "time", CAST('1970-01-01T00:00:00Z' AS TIMESTAMP)) AS tsq_bucket, CAST("usage_user" AS DOUBLE) AS tsq_v0 FROM "p_cpu" WHERE "time" >= CAST('2016-01-04T00:00:00Z' AS TIMESTAMP) AND "time" < CAST('2016-01-04T02:00:00Z' AS TIMESTAMP) AND "usage_user" IS NOT NULL) tsq_rows GROUP BY tsq_bucket ORDER BY tsq_bucket DESC LIMIT 5;

-- max-group-limit: max(usage_user) from p_cpu [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) by hostname every 250ms newest 5 -> tsq_g0,tsq_bucket,tsq_v0
SELECT tsq_g0, tsq_bucket, tsq_v0 FROM (SELECT tsq_g0, tsq_bucket, tsq_v0, row_number() OVER (PARTITION BY tsq_g0 ORDER BY tsq_bucket DESC) AS tsq_rank FROM (SELECT tsq_g0, tsq_bucket, CAST(max(tsq_v0) AS DOUBLE) AS tsq_v0 FROM (SELECT "hostname" AS tsq_g0, date_bin(INTERVAL '250000 microseconds', "time", CAST('1970-01-01T00:00:00Z' AS TIMESTAMP)) AS tsq_bucket, CAST("usage_user" AS DOUBLE) AS tsq_v0 FROM "p_cpu" WHERE "time" >= CAST('2016-01-04T00:00:00Z' AS TIMESTAMP) AND "time" < CAST('2016-01-04T02:00:00Z' AS TIMESTAMP) AND "usage_user" IS NOT NULL) tsq_rows GROUP BY tsq_g0, tsq_bucket) tsq_agg) tsq_ranked WHERE tsq_rank <= 5;

-- last: last(usage_user,usage_idle) from p_cpu [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) by hostname -> tsq_g0,tsq_time,tsq_v0,tsq_v1
SELECT tsq_g0, tsq_time, tsq_v0, tsq_v1 FROM (SELECT tsq_g0, tsq_time, tsq_v0, tsq_v1, row_number() OVER (PARTITION BY tsq_g0 ORDER BY tsq_time DESC) AS tsq_n FROM (SELECT "hostname" AS tsq_g0, "time" AS tsq_time, CAST("usage_user" AS DOUBLE) AS tsq_v0, CAST("usage_idle" AS DOUBLE) AS tsq_v1 FROM "p_cpu" WHERE "time" >= CAST('2016-01-04T00:00:00Z' AS TIMESTAMP) AND "time" < CAST('2016-01-04T02:00:00Z' AS TIMESTAMP) AND ("usage_user" IS NOT NULL OR "usage_idle" IS NOT NULL)) tsq_rows) tsq_ranked WHERE tsq_n = 1;

-- last-one: last(usage_user) from p_cpu [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) -> tsq_time,tsq_v0
SELECT tsq_time, tsq_v0 FROM (SELECT "time" AS tsq_time, CAST("usage_user" AS DOUBLE) AS tsq_v0 FROM "p_cpu" WHERE "time" >= CAST('2016-01-04T00:00:00Z' AS TIMESTAMP) AND "time" < CAST('2016-01-04T02:00:00Z' AS TIMESTAMP) AND "usage_user" IS NOT NULL) tsq_rows ORDER BY tsq_time DESC LIMIT 1;

-- last-bucket: last(usage_user) from p_cpu [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) by hostname every 30m0s -> tsq_g0,tsq_bucket,tsq_v0
SELECT tsq_g0, tsq_bucket, tsq_v0 FROM (SELECT tsq_g0, tsq_bucket, tsq_time, tsq_v0, row_number() OVER (PARTITION BY tsq_g0, tsq_bucket ORDER BY tsq_time DESC) AS tsq_n FROM (SELECT "hostname" AS tsq_g0, date_bin(INTERVAL '1800 seconds', "time", CAST('1970-01-01T00:00:00Z' AS TIMESTAMP)) AS tsq_bucket, "time" AS tsq_time, CAST("usage_user" AS DOUBLE) AS tsq_v0 FROM "p_cpu" WHERE "time" >= CAST('2016-01-04T00:00:00Z' AS TIMESTAMP) AND "time" < CAST('2016-01-04T02:00:00Z' AS TIMESTAMP) AND "usage_user" IS NOT NULL) tsq_rows) tsq_ranked WHERE tsq_n = 1;

-- last-bucket-limit: last(usage_user) from p_cpu [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) by hostname every 30m0s newest 2 -> tsq_g0,tsq_bucket,tsq_v0
SELECT tsq_g0, tsq_bucket, tsq_v0 FROM (SELECT tsq_g0, tsq_bucket, tsq_time, tsq_v0, row_number() OVER (PARTITION BY tsq_g0, tsq_bucket ORDER BY tsq_time DESC) AS tsq_n, dense_rank() OVER (PARTITION BY tsq_g0 ORDER BY tsq_bucket DESC) AS tsq_rank FROM (SELECT "hostname" AS tsq_g0, date_bin(INTERVAL '1800 seconds', "time", CAST('1970-01-01T00:00:00Z' AS TIMESTAMP)) AS tsq_bucket, "time" AS tsq_time, CAST("usage_user" AS DOUBLE) AS tsq_v0 FROM "p_cpu" WHERE "time" >= CAST('2016-01-04T00:00:00Z' AS TIMESTAMP) AND "time" < CAST('2016-01-04T02:00:00Z' AS TIMESTAMP) AND "usage_user" IS NOT NULL) tsq_rows) tsq_ranked WHERE tsq_n = 1 AND tsq_rank <= 2;

