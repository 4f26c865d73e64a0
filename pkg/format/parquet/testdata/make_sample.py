#!/usr/bin/env python3
"""Writes the Parquet samples of pkg/format/parquet's tests with pyarrow
(a writer other than tsload's): `pip install pyarrow`, then run it here.
The .parquet files are committed, so the tests do not need pyarrow.

sample.parquet: 1,000 rows of a table "sensor" in 4 row groups of 250,
zstd-compressed, timestamps in nanoseconds, the columns in an order a
loader must not rely on (a field before the time), a dictionary-encoded
and a plain string tag, NULLs in a tag and in fields, and every field type
tsload takes: float64, float32, int64, int32.

unsupported.parquet: 10 rows with a BOOLEAN column "ok" and a list
column, which tsload refuses.
"""
import datetime

import pyarrow as pa
import pyarrow.parquet as pq

N = 1000
start = datetime.datetime(2024, 3, 1, tzinfo=datetime.timezone.utc)
rows = range(N)
table = pa.table({
    "temperature": pa.array([None if i % 97 == 5 else round(20 + (i % 50) * 0.25, 2) for i in rows], pa.float64()),
    "ts": pa.array([start + datetime.timedelta(seconds=i // 10, microseconds=7 * (i % 10)) for i in rows],
                   pa.timestamp("ns", tz="UTC")),
    "site": pa.array([f"site-{i % 10}" for i in rows], pa.string()),
    "room": pa.array([None if i % 10 == 9 else f"room {i % 7}" for i in rows], pa.string()),
    "humidity": pa.array([float(i % 100) / 3 for i in rows], pa.float32()),
    "count": pa.array([i * 1000003 for i in rows], pa.int64()),
    "level": pa.array([None if i % 13 == 0 else (i % 200) - 100 for i in rows], pa.int32()),
})
pq.write_table(table, "sample.parquet", row_group_size=250, compression="zstd",
               use_dictionary=["site", "temperature"])

bad = pa.table({
    "time": pa.array([start + datetime.timedelta(seconds=i) for i in range(10)], pa.timestamp("us", tz="UTC")),
    "host": pa.array(["a"] * 10, pa.string()),
    "v": pa.array([1.5] * 10, pa.float64()),
    "ok": pa.array([i % 2 == 0 for i in range(10)], pa.bool_()),
})
pq.write_table(bad, "unsupported.parquet")
