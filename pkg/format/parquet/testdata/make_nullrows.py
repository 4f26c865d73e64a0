#!/usr/bin/env python3
"""Writes nullrows.parquet, the sample of rows without a value (issue 43
item 13), with pyarrow: `pip install pyarrow`, then run it here; the
.parquet file is committed, so the tests do not need pyarrow.

10 rows of a table "nullrows": time (TIMESTAMP micros, UTC) from
2024-03-01T00:00:00Z a second apart, host (string), v (float64) NULL in
rows 3 and 7 (1-based): those rows have no field value, which line
protocol cannot carry (a line needs a field), while PostgreSQL stores a
row of NULLs.
"""
import datetime

import pyarrow as pa
import pyarrow.parquet as pq

start = datetime.datetime(2024, 3, 1, tzinfo=datetime.timezone.utc)
table = pa.table({
    "time": pa.array([start + datetime.timedelta(seconds=i) for i in range(10)], pa.timestamp("us", tz="UTC")),
    "host": pa.array([f"h{i % 2}" for i in range(10)], pa.string()),
    "v": pa.array([None if i in (2, 6) else 1.5 * i for i in range(10)], pa.float64()),
})
pq.write_table(table, "nullrows.parquet")
