-- rows: rows(usage_user) from p_cpu [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) -> tsq_time,tsq_v0
SELECT `time` AS tsq_time, toFloat64(`usage_user`) AS tsq_v0 FROM `p_cpu` WHERE `time` >= toDateTime('2016-01-04 00:00:00', 'UTC') AND `time` < toDateTime('2016-01-04 02:00:00', 'UTC') AND `usage_user` IS NOT NULL;

-- rows-newest: rows(usage_user,usage_system) from p_cpu [2016-01-04T00:00:00.0000015Z, 2016-01-04T02:00:00Z) hostname in (host_0,it's "odd") usage_user < 42.5 newest 3 -> tsq_time,tsq_v0,tsq_v1
SELECT `time` AS tsq_time, toFloat64(`usage_user`) AS tsq_v0, toFloat64(`usage_system`) AS tsq_v1 FROM `p_cpu` WHERE `time` >= toDateTime('2016-01-04 00:00:01', 'UTC') AND `time` < toDateTime('2016-01-04 02:00:00', 'UTC') AND `hostname` IN ('host_0', 'it''s "odd"') AND `usage_user` < 42.5 AND (`usage_user` IS NOT NULL OR `usage_system` IS NOT NULL) ORDER BY tsq_time DESC LIMIT 3;

-- max-bucket: max(usage_user) from p_cpu [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) hostname in (host_0) every 1m0s -> tsq_bucket,tsq_v0
SELECT tsq_bucket, toFloat64(max(tsq_v0)) AS tsq_v0 FROM (SELECT intDiv(toInt64(toUnixTimestamp(`time`)) * 1000000000, 60000000000) * 60000000000 AS tsq_bucket, toFloat64(`usage_user`) AS tsq_v0 FROM `p_cpu` WHERE `time` >= toDateTime('2016-01-04 00:00:00', 'UTC') AND `time` < toDateTime('2016-01-04 02:00:00', 'UTC') AND `hostname` IN ('host_0') AND `usage_user` IS NOT NULL) tsq_rows GROUP BY tsq_bucket;

-- avg-group-bucket: avg(usage_user,usage_system) from p_cpu [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) by hostname every 1h0m0s -> tsq_g0,tsq_bucket,tsq_v0,tsq_v1
SELECT tsq_g0, tsq_bucket, toFloat64(avg(tsq_v0)) AS tsq_v0, toFloat64(avg(tsq_v1)) AS tsq_v1 FROM (SELECT `hostname` AS tsq_g0, intDiv(toInt64(toUnixTimestamp(`time`)) * 1000000000, 3600000000000) * 3600000000000 AS tsq_bucket, toFloat64(`usage_user`) AS tsq_v0, toFloat64(`usage_system`) AS tsq_v1 FROM `p_cpu` WHERE `time` >= toDateTime('2016-01-04 00:00:00', 'UTC') AND `time` < toDateTime('2016-01-04 02:00:00', 'UTC') AND (`usage_user` IS NOT NULL OR `usage_system` IS NOT NULL)) tsq_rows GROUP BY tsq_g0, tsq_bucket;

-- min-no-bucket: min(usage_guest) from p_cpu [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) usage_user > 1e+21 by region,hostname -> tsq_g0,tsq_g1,tsq_v0
SELECT tsq_g0, tsq_g1, toFloat64(min(tsq_v0)) AS tsq_v0 FROM (SELECT `region` AS tsq_g0, `hostname` AS tsq_g1, toFloat64(`usage_guest`) AS tsq_v0 FROM `p_cpu` WHERE `time` >= toDateTime('2016-01-04 00:00:00', 'UTC') AND `time` < toDateTime('2016-01-04 02:00:00', 'UTC') AND `usage_user` > 1000000000000000000000 AND `usage_guest` IS NOT NULL) tsq_rows GROUP BY tsq_g0, tsq_g1;

-- count: count(usage_nice) from p_cpu [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) -> tsq_v0
SELECT toFloat64(count(tsq_v0)) AS tsq_v0 FROM (SELECT toFloat64(`usage_nice`) AS tsq_v0 FROM `p_cpu` WHERE `time` >= toDateTime('2016-01-04 00:00:00', 'UTC') AND `time` < toDateTime('2016-01-04 02:00:00', 'UTC') AND `usage_nice` IS NOT NULL) tsq_rows;

-- max-limit: max(usage_user) from p_cpu [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) every 1m0s newest 5 -> tsq_bucket,tsq_v0
SELECT tsq_bucket, toFloat64(max(tsq_v0)) AS tsq_v0 FROM (SELECT intDiv(toInt64(toUnixTimestamp(`time`)) * 1000000000, 60000000000) * 60000000000 AS tsq_bucket, toFloat64(`usage_user`) AS tsq_v0 FROM `p_cpu` WHERE `time` >= toDateTime('2016-01-04 00:00:00', 'UTC') AND `time` < toDateTime('2016-01-04 02:00:00', 'UTC') AND `usage_user` IS NOT NULL) tsq_rows GROUP BY tsq_bucket ORDER BY tsq_bucket DESC LIMIT 5;

-- max-group-limit: max(usage_user) from p_cpu [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) by hostname every 250ms newest 5 -> tsq_g0,tsq_bucket,tsq_v0
SELECT tsq_g0, tsq_bucket, tsq_v0 FROM (SELECT tsq_g0, tsq_bucket, toFloat64(max(tsq_v0)) AS tsq_v0 FROM (SELECT `hostname` AS tsq_g0, intDiv(toInt64(toUnixTimestamp(`time`)) * 1000000000, 250000000) * 250000000 AS tsq_bucket, toFloat64(`usage_user`) AS tsq_v0 FROM `p_cpu` WHERE `time` >= toDateTime('2016-01-04 00:00:00', 'UTC') AND `time` < toDateTime('2016-01-04 02:00:00', 'UTC') AND `usage_user` IS NOT NULL) tsq_rows GROUP BY tsq_g0, tsq_bucket) tsq_agg ORDER BY tsq_g0, tsq_bucket DESC LIMIT 5 BY tsq_g0;

-- last: last(usage_user,usage_idle) from p_cpu [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) by hostname -> tsq_g0,tsq_time,tsq_v0,tsq_v1
SELECT tsq_g0, tsq_newest AS tsq_time, tupleElement(tsq_last, 1) AS tsq_v0, tupleElement(tsq_last, 2) AS tsq_v1 FROM (SELECT tsq_g0, max(tsq_time) AS tsq_newest, argMax(tuple(tsq_v0, tsq_v1), tsq_time) AS tsq_last FROM (SELECT `hostname` AS tsq_g0, `time` AS tsq_time, toFloat64(`usage_user`) AS tsq_v0, toFloat64(`usage_idle`) AS tsq_v1 FROM `p_cpu` WHERE `time` >= toDateTime('2016-01-04 00:00:00', 'UTC') AND `time` < toDateTime('2016-01-04 02:00:00', 'UTC') AND (`usage_user` IS NOT NULL OR `usage_idle` IS NOT NULL)) tsq_rows GROUP BY tsq_g0) tsq_agg;

-- last-one: last(usage_user) from p_cpu [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) -> tsq_time,tsq_v0
SELECT tsq_time, tsq_v0 FROM (SELECT `time` AS tsq_time, toFloat64(`usage_user`) AS tsq_v0 FROM `p_cpu` WHERE `time` >= toDateTime('2016-01-04 00:00:00', 'UTC') AND `time` < toDateTime('2016-01-04 02:00:00', 'UTC') AND `usage_user` IS NOT NULL) tsq_rows ORDER BY tsq_time DESC LIMIT 1;

-- last-bucket: last(usage_user) from p_cpu [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) by hostname every 30m0s -> tsq_g0,tsq_bucket,tsq_v0
SELECT tsq_g0, tsq_bucket, tupleElement(tsq_last, 1) AS tsq_v0 FROM (SELECT tsq_g0, tsq_bucket, argMax(tuple(tsq_v0), tsq_time) AS tsq_last FROM (SELECT `hostname` AS tsq_g0, intDiv(toInt64(toUnixTimestamp(`time`)) * 1000000000, 1800000000000) * 1800000000000 AS tsq_bucket, `time` AS tsq_time, toFloat64(`usage_user`) AS tsq_v0 FROM `p_cpu` WHERE `time` >= toDateTime('2016-01-04 00:00:00', 'UTC') AND `time` < toDateTime('2016-01-04 02:00:00', 'UTC') AND `usage_user` IS NOT NULL) tsq_rows GROUP BY tsq_g0, tsq_bucket) tsq_agg;

-- last-bucket-limit: last(usage_user) from p_cpu [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) by hostname every 30m0s newest 2 -> tsq_g0,tsq_bucket,tsq_v0
SELECT tsq_g0, tsq_bucket, tupleElement(tsq_last, 1) AS tsq_v0 FROM (SELECT tsq_g0, tsq_bucket, argMax(tuple(tsq_v0), tsq_time) AS tsq_last FROM (SELECT `hostname` AS tsq_g0, intDiv(toInt64(toUnixTimestamp(`time`)) * 1000000000, 1800000000000) * 1800000000000 AS tsq_bucket, `time` AS tsq_time, toFloat64(`usage_user`) AS tsq_v0 FROM `p_cpu` WHERE `time` >= toDateTime('2016-01-04 00:00:00', 'UTC') AND `time` < toDateTime('2016-01-04 02:00:00', 'UTC') AND `usage_user` IS NOT NULL) tsq_rows GROUP BY tsq_g0, tsq_bucket) tsq_agg ORDER BY tsq_g0, tsq_bucket DESC LIMIT 2 BY tsq_g0;

-- change-runs: avg(velocity) from p_readings [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) by name every 10m0s then hours of runs of velocity > 1 then avg by name every 24h0m0s: clickhouse: query change-runs: no window functions (lag, lead) to follow a group's buckets: unsupported operation

-- change-rises: avg(status) from p_diagnostics [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) by model,name every 10m0s then rises of status > 1 then count by model: clickhouse: query change-rises: no window functions (lag, lead) to follow a group's buckets: unsupported operation

