#!/usr/bin/env python3
"""Writes int96.parquet, the INT96-timestamp sample of pkg/format/parquet's
tests, with pyarrow as Spark writes times by default (and pandas with
use_deprecated_int96_timestamps=True): each time 12 bytes, the nanoseconds
of the day then the Julian day. `pip install pyarrow`, then run it here; the
.parquet file is committed, so the tests do not need pyarrow.

10 rows of a table "spark": ts (INT96), host (string), temp (float64,
NULL in the last row), hum (int64), the times from 2024-03-01T00:00:00.000000123Z a
second and 7 ns apart (nanoseconds that only INT96, not the microseconds
of Spark's newer default, keeps).
"""
import pyarrow as pa
import pyarrow.parquet as pq

base = 1709251200 * 10**9 + 123  # 2024-03-01T00:00:00.000000123Z
times = [base + i * (10**9 + 7) for i in range(10)]
table = pa.table({
    "ts": pa.array(times, pa.timestamp("ns", tz="UTC")),
    "host": pa.array([f"h{i % 3}" for i in range(10)], pa.string()),
    "temp": pa.array([20.5 + i for i in range(9)] + [None], pa.float64()),
    "hum": pa.array([40 + i for i in range(10)], pa.int64()),
})
pq.write_table(table, "int96.parquet", use_deprecated_int96_timestamps=True, compression="snappy")
