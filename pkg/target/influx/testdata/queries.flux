# single-groupby-1-1-1: max(usage_user) from cpu [2016-01-04T00:10:00Z, 2016-01-04T01:10:00Z) hostname in (host_0) every 1m0s
from(bucket: "bucket")
  |> range(start: 2016-01-04T00:10:00Z, stop: 2016-01-04T01:10:00Z)
  |> filter(fn: (r) => r._measurement == "cpu" and (r["_field"] == "usage_user") and (r["hostname"] == "host_0"))
  |> group(columns: ["_field"])
  |> aggregateWindow(every: 1m, fn: max, timeSrc: "_start", createEmpty: false)
  |> keep(columns: ["_time", "_field", "_value"])

# double-groupby-2: avg(usage_user,usage_system) from cpu [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) by hostname every 1h0m0s
from(bucket: "bucket")
  |> range(start: 2016-01-04T00:00:00Z, stop: 2016-01-04T02:00:00Z)
  |> filter(fn: (r) => r._measurement == "cpu" and (r["_field"] == "usage_user" or r["_field"] == "usage_system"))
  |> group(columns: ["hostname", "_field"])
  |> aggregateWindow(every: 1h, fn: mean, timeSrc: "_start", createEmpty: false)
  |> keep(columns: ["hostname", "_time", "_field", "_value"])

# lastpoint: last(usage_user,usage_idle) from cpu [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) by hostname
from(bucket: "bucket")
  |> range(start: 2016-01-04T00:00:00Z, stop: 2016-01-04T02:00:00Z)
  |> filter(fn: (r) => r._measurement == "cpu" and (r["_field"] == "usage_user" or r["_field"] == "usage_idle"))
  |> last()

# high-cpu-1: rows(usage_user,usage_system) from cpu [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) hostname in (host_1) usage_user > 20
from(bucket: "bucket")
  |> range(start: 2016-01-04T00:00:00Z, stop: 2016-01-04T02:00:00Z)
  |> filter(fn: (r) => r._measurement == "cpu" and (r["_field"] == "usage_user" or r["_field"] == "usage_system") and (r["hostname"] == "host_1"))
  |> pivot(rowKey: ["_time"], columnKey: ["_field"], valueColumn: "_value")
  |> filter(fn: (r) => exists r["usage_user"] and r["usage_user"] > 20)
  |> keep(columns: ["_time", "usage_user", "usage_system"])

# groupby-orderby-limit: max(usage_user) from cpu [2016-01-03T23:37:30Z, 2016-01-04T00:37:30Z) every 1m0s newest 5
from(bucket: "bucket")
  |> range(start: 2016-01-03T23:37:30Z, stop: 2016-01-04T00:37:30Z)
  |> filter(fn: (r) => r._measurement == "cpu" and (r["_field"] == "usage_user"))
  |> group(columns: ["_field"])
  |> aggregateWindow(every: 1m, fn: max, timeSrc: "_start", createEmpty: false)
  |> sort(columns: ["_time"], desc: true)
  |> limit(n: 5)
  |> keep(columns: ["_time", "_field", "_value"])

# min-by-host-10m: min(usage_guest) from cpu [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) hostname in (host_0,host_1) by hostname every 10m0s
from(bucket: "bucket")
  |> range(start: 2016-01-04T00:00:00Z, stop: 2016-01-04T02:00:00Z)
  |> filter(fn: (r) => r._measurement == "cpu" and (r["_field"] == "usage_guest") and (r["hostname"] == "host_0" or r["hostname"] == "host_1"))
  |> group(columns: ["hostname", "_field"])
  |> aggregateWindow(every: 10m, fn: min, timeSrc: "_start", createEmpty: false)
  |> keep(columns: ["hostname", "_time", "_field", "_value"])

# count-by-region-30m: count(usage_nice) from cpu [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) by region every 30m0s
from(bucket: "bucket")
  |> range(start: 2016-01-04T00:00:00Z, stop: 2016-01-04T02:00:00Z)
  |> filter(fn: (r) => r._measurement == "cpu" and (r["_field"] == "usage_nice"))
  |> group(columns: ["region", "_field"])
  |> aggregateWindow(every: 30m, fn: count, timeSrc: "_start", createEmpty: false)
  |> keep(columns: ["region", "_time", "_field", "_value"])

# newest-rows-below: rows(usage_user) from cpu [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) hostname in (host_0) usage_user < 20 newest 3
from(bucket: "bucket")
  |> range(start: 2016-01-04T00:00:00Z, stop: 2016-01-04T02:00:00Z)
  |> filter(fn: (r) => r._measurement == "cpu" and (r["_field"] == "usage_user") and (r["hostname"] == "host_0"))
  |> pivot(rowKey: ["_time"], columnKey: ["_field"], valueColumn: "_value")
  |> filter(fn: (r) => exists r["usage_user"] and r["usage_user"] < 20)
  |> group()
  |> sort(columns: ["_time"], desc: true)
  |> limit(n: 3)
  |> keep(columns: ["_time", "usage_user"])

# last-per-half-hour: last(usage_user) from cpu [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) by hostname every 30m0s
from(bucket: "bucket")
  |> range(start: 2016-01-04T00:00:00Z, stop: 2016-01-04T02:00:00Z)
  |> filter(fn: (r) => r._measurement == "cpu" and (r["_field"] == "usage_user"))
  |> window(every: 30m)
  |> last()

# max-filter-by-host-10m: max(usage_user,usage_idle) from cpu [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) usage_system > 10 by hostname every 10m0s
kept = from(bucket: "bucket")
  |> range(start: 2016-01-04T00:00:00Z, stop: 2016-01-04T02:00:00Z)
  |> filter(fn: (r) => r._measurement == "cpu" and (r["_field"] == "usage_user" or r["_field"] == "usage_idle" or r["_field"] == "usage_system"))
  |> pivot(rowKey: ["_time"], columnKey: ["_field"], valueColumn: "_value")
  |> filter(fn: (r) => exists r["usage_system"] and r["usage_system"] > 10)
  |> filter(fn: (r) => exists r["usage_user"] or exists r["usage_idle"])

union(tables: [
    kept |> filter(fn: (r) => exists r["usage_user"]) |> keep(columns: ["hostname", "_time", "usage_user"]) |> rename(columns: {"usage_user": "_value"}) |> set(key: "_field", value: "usage_user"),
    kept |> filter(fn: (r) => exists r["usage_idle"]) |> keep(columns: ["hostname", "_time", "usage_idle"]) |> rename(columns: {"usage_idle": "_value"}) |> set(key: "_field", value: "usage_idle"),
  ])
  |> group(columns: ["hostname", "_field"])
  |> aggregateWindow(every: 10m, fn: max, timeSrc: "_start", createEmpty: false)
  |> keep(columns: ["hostname", "_time", "_field", "_value"])

# min-filter-same-field: min(usage_system) from cpu [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) usage_system > 10 by region
kept = from(bucket: "bucket")
  |> range(start: 2016-01-04T00:00:00Z, stop: 2016-01-04T02:00:00Z)
  |> filter(fn: (r) => r._measurement == "cpu" and (r["_field"] == "usage_system"))
  |> pivot(rowKey: ["_time"], columnKey: ["_field"], valueColumn: "_value")
  |> filter(fn: (r) => exists r["usage_system"] and r["usage_system"] > 10)

kept |> filter(fn: (r) => exists r["usage_system"]) |> keep(columns: ["region", "_time", "usage_system"]) |> rename(columns: {"usage_system": "_value"}) |> set(key: "_field", value: "usage_system")
  |> group(columns: ["region", "_field"])
  |> min()
  |> keep(columns: ["region", "_time", "_field", "_value"])

# avg-filter-below: avg(usage_user) from cpu [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) usage_user < 20
kept = from(bucket: "bucket")
  |> range(start: 2016-01-04T00:00:00Z, stop: 2016-01-04T02:00:00Z)
  |> filter(fn: (r) => r._measurement == "cpu" and (r["_field"] == "usage_user"))
  |> pivot(rowKey: ["_time"], columnKey: ["_field"], valueColumn: "_value")
  |> filter(fn: (r) => exists r["usage_user"] and r["usage_user"] < 20)

kept |> filter(fn: (r) => exists r["usage_user"]) |> keep(columns: ["_time", "usage_user"]) |> rename(columns: {"usage_user": "_value"}) |> set(key: "_field", value: "usage_user")
  |> group(columns: ["_field"])
  |> mean()
  |> keep(columns: ["_time", "_field", "_value"])

# count-filter-same-field: count(usage_system) from cpu [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) usage_system > 10 by region every 30m0s
kept = from(bucket: "bucket")
  |> range(start: 2016-01-04T00:00:00Z, stop: 2016-01-04T02:00:00Z)
  |> filter(fn: (r) => r._measurement == "cpu" and (r["_field"] == "usage_system"))
  |> pivot(rowKey: ["_time"], columnKey: ["_field"], valueColumn: "_value")
  |> filter(fn: (r) => exists r["usage_system"] and r["usage_system"] > 10)

kept |> filter(fn: (r) => exists r["usage_system"]) |> keep(columns: ["region", "_time", "usage_system"]) |> rename(columns: {"usage_system": "_value"}) |> set(key: "_field", value: "usage_system")
  |> group(columns: ["region", "_field"])
  |> aggregateWindow(every: 30m, fn: count, timeSrc: "_start", createEmpty: false)
  |> keep(columns: ["region", "_time", "_field", "_value"])

# max-filter-same-field: max(usage_system) from cpu [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) usage_system > 10 by hostname every 10m0s
kept = from(bucket: "bucket")
  |> range(start: 2016-01-04T00:00:00Z, stop: 2016-01-04T02:00:00Z)
  |> filter(fn: (r) => r._measurement == "cpu" and (r["_field"] == "usage_system"))
  |> pivot(rowKey: ["_time"], columnKey: ["_field"], valueColumn: "_value")
  |> filter(fn: (r) => exists r["usage_system"] and r["usage_system"] > 10)

kept |> filter(fn: (r) => exists r["usage_system"]) |> keep(columns: ["hostname", "_time", "usage_system"]) |> rename(columns: {"usage_system": "_value"}) |> set(key: "_field", value: "usage_system")
  |> group(columns: ["hostname", "_field"])
  |> aggregateWindow(every: 10m, fn: max, timeSrc: "_start", createEmpty: false)
  |> keep(columns: ["hostname", "_time", "_field", "_value"])

# count-below-same-field: count(usage_user) from cpu [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) usage_user < 20 by hostname
kept = from(bucket: "bucket")
  |> range(start: 2016-01-04T00:00:00Z, stop: 2016-01-04T02:00:00Z)
  |> filter(fn: (r) => r._measurement == "cpu" and (r["_field"] == "usage_user"))
  |> pivot(rowKey: ["_time"], columnKey: ["_field"], valueColumn: "_value")
  |> filter(fn: (r) => exists r["usage_user"] and r["usage_user"] < 20)

kept |> filter(fn: (r) => exists r["usage_user"]) |> keep(columns: ["hostname", "_time", "usage_user"]) |> rename(columns: {"usage_user": "_value"}) |> set(key: "_field", value: "usage_user")
  |> group(columns: ["hostname", "_field"])
  |> count()
  |> keep(columns: ["hostname", "_time", "_field", "_value"])

# count-filter-by-region: count(usage_nice) from cpu [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) usage_system > 10 by region
kept = from(bucket: "bucket")
  |> range(start: 2016-01-04T00:00:00Z, stop: 2016-01-04T02:00:00Z)
  |> filter(fn: (r) => r._measurement == "cpu" and (r["_field"] == "usage_nice" or r["_field"] == "usage_system"))
  |> pivot(rowKey: ["_time"], columnKey: ["_field"], valueColumn: "_value")
  |> filter(fn: (r) => exists r["usage_system"] and r["usage_system"] > 10)
  |> filter(fn: (r) => exists r["usage_nice"])

kept |> filter(fn: (r) => exists r["usage_nice"]) |> keep(columns: ["region", "_time", "usage_nice"]) |> rename(columns: {"usage_nice": "_value"}) |> set(key: "_field", value: "usage_nice")
  |> group(columns: ["region", "_field"])
  |> count()
  |> keep(columns: ["region", "_time", "_field", "_value"])

# last-filter: last(usage_user,usage_system) from cpu [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) usage_system > 10 by hostname
from(bucket: "bucket")
  |> range(start: 2016-01-04T00:00:00Z, stop: 2016-01-04T02:00:00Z)
  |> filter(fn: (r) => r._measurement == "cpu" and (r["_field"] == "usage_user" or r["_field"] == "usage_system"))
  |> pivot(rowKey: ["_time"], columnKey: ["_field"], valueColumn: "_value")
  |> filter(fn: (r) => exists r["usage_system"] and r["usage_system"] > 10)
  |> group(columns: ["hostname"])
  |> sort(columns: ["_time"])
  |> last(column: "_time")
  |> keep(columns: ["hostname", "_time", "usage_user", "usage_system"])

# last2-per-bucket: last(usage_user,usage_system) from cpu [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) by hostname every 15m0s newest 3
from(bucket: "bucket")
  |> range(start: 2016-01-04T00:00:00Z, stop: 2016-01-04T02:00:00Z)
  |> filter(fn: (r) => r._measurement == "cpu" and (r["_field"] == "usage_user" or r["_field"] == "usage_system"))
  |> window(every: 15m)
  |> last()

# last-no-group: last(usage_iowait) from cpu [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) hostname in (host_2)
from(bucket: "bucket")
  |> range(start: 2016-01-04T00:00:00Z, stop: 2016-01-04T02:00:00Z)
  |> filter(fn: (r) => r._measurement == "cpu" and (r["_field"] == "usage_iowait") and (r["hostname"] == "host_2"))
  |> last()

# min-no-group: min(usage_steal,usage_irq) from cpu [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z)
from(bucket: "bucket")
  |> range(start: 2016-01-04T00:00:00Z, stop: 2016-01-04T02:00:00Z)
  |> filter(fn: (r) => r._measurement == "cpu" and (r["_field"] == "usage_steal" or r["_field"] == "usage_irq"))
  |> group(columns: ["_field"])
  |> min()
  |> keep(columns: ["_time", "_field", "_value"])

# rows-one-host: rows(usage_user,usage_softirq) from cpu [2016-01-04T00:05:00Z, 2016-01-04T00:08:05Z) hostname in (host_3)
from(bucket: "bucket")
  |> range(start: 2016-01-04T00:05:00Z, stop: 2016-01-04T00:08:05Z)
  |> filter(fn: (r) => r._measurement == "cpu" and (r["_field"] == "usage_user" or r["_field"] == "usage_softirq") and (r["hostname"] == "host_3"))
  |> pivot(rowKey: ["_time"], columnKey: ["_field"], valueColumn: "_value")
  |> keep(columns: ["_time", "usage_user", "usage_softirq"])

# max-two-tags: max(usage_user) from cpu [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) hostname in (host_1,host_2) by hostname,region every 30m0s newest 2
from(bucket: "bucket")
  |> range(start: 2016-01-04T00:00:00Z, stop: 2016-01-04T02:00:00Z)
  |> filter(fn: (r) => r._measurement == "cpu" and (r["_field"] == "usage_user") and (r["hostname"] == "host_1" or r["hostname"] == "host_2"))
  |> group(columns: ["hostname", "region", "_field"])
  |> aggregateWindow(every: 30m, fn: max, timeSrc: "_start", createEmpty: false)
  |> sort(columns: ["_time"], desc: true)
  |> limit(n: 2)
  |> keep(columns: ["hostname", "region", "_time", "_field", "_value"])

# last-loc: last(latitude,longitude) from readings [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) by name
from(bucket: "bucket")
  |> range(start: 2016-01-04T00:00:00Z, stop: 2016-01-04T02:00:00Z)
  |> filter(fn: (r) => r._measurement == "readings" and (r["_field"] == "latitude" or r["_field"] == "longitude"))
  |> last()

# low-fuel: rows(fuel_state) from diagnostics [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) fleet in (East) fuel_state < 0.5
from(bucket: "bucket")
  |> range(start: 2016-01-04T00:00:00Z, stop: 2016-01-04T02:00:00Z)
  |> filter(fn: (r) => r._measurement == "diagnostics" and (r["_field"] == "fuel_state") and (r["fleet"] == "East"))
  |> pivot(rowKey: ["_time"], columnKey: ["_field"], valueColumn: "_value")
  |> filter(fn: (r) => exists r["fuel_state"] and r["fuel_state"] < 0.5)
  |> keep(columns: ["_time", "fuel_state"])

# avg-load: avg(current_load) from diagnostics [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) by fleet every 1h0m0s
from(bucket: "bucket")
  |> range(start: 2016-01-04T00:00:00Z, stop: 2016-01-04T02:00:00Z)
  |> filter(fn: (r) => r._measurement == "diagnostics" and (r["_field"] == "current_load"))
  |> group(columns: ["fleet", "_field"])
  |> aggregateWindow(every: 1h, fn: mean, timeSrc: "_start", createEmpty: false)
  |> keep(columns: ["fleet", "_time", "_field", "_value"])

# count-nulls: count(fuel_state,status) from diagnostics [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) by name
from(bucket: "bucket")
  |> range(start: 2016-01-04T00:00:00Z, stop: 2016-01-04T02:00:00Z)
  |> filter(fn: (r) => r._measurement == "diagnostics" and (r["_field"] == "fuel_state" or r["_field"] == "status"))
  |> group(columns: ["name", "_field"])
  |> count()
  |> keep(columns: ["name", "_time", "_field", "_value"])

# max-velocity-by-model: max(velocity) from readings [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) fleet in (East,West) by model every 30m0s
from(bucket: "bucket")
  |> range(start: 2016-01-04T00:00:00Z, stop: 2016-01-04T02:00:00Z)
  |> filter(fn: (r) => r._measurement == "readings" and (r["_field"] == "velocity") and (r["fleet"] == "East" or r["fleet"] == "West"))
  |> group(columns: ["model", "_field"])
  |> aggregateWindow(every: 30m, fn: max, timeSrc: "_start", createEmpty: false)
  |> keep(columns: ["model", "_time", "_field", "_value"])

# last2-per-bucket-iot: last(latitude,longitude) from readings [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) by name every 20m0s newest 2
from(bucket: "bucket")
  |> range(start: 2016-01-04T00:00:00Z, stop: 2016-01-04T02:00:00Z)
  |> filter(fn: (r) => r._measurement == "readings" and (r["_field"] == "latitude" or r["_field"] == "longitude"))
  |> window(every: 20m)
  |> last()

# last7-per-bucket-iot: last(latitude,longitude,elevation,velocity,heading,grade,fuel_consumption) from readings [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) by name every 5m0s
from(bucket: "bucket")
  |> range(start: 2016-01-04T00:00:00Z, stop: 2016-01-04T02:00:00Z)
  |> filter(fn: (r) => r._measurement == "readings" and (r["_field"] == "latitude" or r["_field"] == "longitude" or r["_field"] == "elevation" or r["_field"] == "velocity" or r["_field"] == "heading" or r["_field"] == "grade" or r["_field"] == "fuel_consumption"))
  |> window(every: 5m)
  |> last()

# last7-iot: last(latitude,longitude,elevation,velocity,heading,grade,fuel_consumption) from readings [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) by name
from(bucket: "bucket")
  |> range(start: 2016-01-04T00:00:00Z, stop: 2016-01-04T02:00:00Z)
  |> filter(fn: (r) => r._measurement == "readings" and (r["_field"] == "latitude" or r["_field"] == "longitude" or r["_field"] == "elevation" or r["_field"] == "velocity" or r["_field"] == "heading" or r["_field"] == "grade" or r["_field"] == "fuel_consumption"))
  |> last()

# count-filter-iot: count(fuel_state,current_load) from diagnostics [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) current_load > 200 by fleet every 1h0m0s
kept = from(bucket: "bucket")
  |> range(start: 2016-01-04T00:00:00Z, stop: 2016-01-04T02:00:00Z)
  |> filter(fn: (r) => r._measurement == "diagnostics" and (r["_field"] == "fuel_state" or r["_field"] == "current_load"))
  |> pivot(rowKey: ["_time"], columnKey: ["_field"], valueColumn: "_value")
  |> filter(fn: (r) => exists r["current_load"] and r["current_load"] > 200)

union(tables: [
    kept |> filter(fn: (r) => exists r["fuel_state"]) |> keep(columns: ["fleet", "_time", "fuel_state"]) |> rename(columns: {"fuel_state": "_value"}) |> set(key: "_field", value: "fuel_state"),
    kept |> filter(fn: (r) => exists r["current_load"]) |> keep(columns: ["fleet", "_time", "current_load"]) |> rename(columns: {"current_load": "_value"}) |> set(key: "_field", value: "current_load"),
  ])
  |> group(columns: ["fleet", "_field"])
  |> aggregateWindow(every: 1h, fn: count, timeSrc: "_start", createEmpty: false)
  |> keep(columns: ["fleet", "_time", "_field", "_value"])

# last-filter-iot: last(fuel_state) from diagnostics [2016-01-04T00:00:00Z, 2016-01-04T02:00:00Z) fleet in (East,West) fuel_state < 0.5 by name
from(bucket: "bucket")
  |> range(start: 2016-01-04T00:00:00Z, stop: 2016-01-04T02:00:00Z)
  |> filter(fn: (r) => r._measurement == "diagnostics" and (r["_field"] == "fuel_state") and (r["fleet"] == "East" or r["fleet"] == "West"))
  |> pivot(rowKey: ["_time"], columnKey: ["_field"], valueColumn: "_value")
  |> filter(fn: (r) => exists r["fuel_state"] and r["fuel_state"] < 0.5)
  |> group(columns: ["name"])
  |> sort(columns: ["_time"])
  |> last(column: "_time")
  |> keep(columns: ["name", "_time", "fuel_state"])

