package influx

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/target/httpwrite"
	"github.com/tsload/tsload/pkg/target/promtext"
)

// v2MetricInterval is how often InfluxDB 2 refreshes its shards'
// storage_shard_disk_size gauge (tsdb.DefaultMetricInterval).
const v2MetricInterval = 10 * time.Second

// Footprint (load.Target.Footprint) is the disk size of the database (the
// bucket on 2.x) the tables were loaded into: InfluxDB accounts storage
// per shard, and a shard holds every measurement of its database, so the
// size covers all of them. It is the size of the TSM and WAL files the
// engine reports (DiskSize): 1.x SHOW STATS shard diskBytes, 2.x the
// storage_shard_disk_size gauge of /metrics. InfluxDB 3 has no such
// figure in its API.
func (t *Target) Footprint(ctx context.Context, _ []string) (load.Size, error) {
	a, err := t.theAPI(ctx)
	if err != nil {
		return load.Size{}, err
	}
	switch a.name() {
	case APIv1:
		return t.v1Footprint(ctx)
	case APIv2:
		return t.v2Footprint(ctx)
	}
	return load.Size{}, errors.New("influx: InfluxDB 3 reports no storage size through its API")
}

func (t *Target) v1Footprint(ctx context.Context) (load.Size, error) {
	db := t.cfg.DBName
	sz := load.Size{Method: fmt.Sprintf("InfluxDB 1.x SHOW STATS shard diskBytes (database %q, all its measurements)", db)}
	qr, err := t.Query(ctx, "", "SHOW STATS FOR 'shard'")
	if err != nil {
		return sz, err
	}
	shards := 0
	for _, r := range qr.Results {
		for _, s := range r.Series {
			if s.Name != "shard" || s.Tags["database"] != db {
				continue
			}
			col := -1
			for i, c := range s.Columns {
				if c == "diskBytes" {
					col = i
				}
			}
			if col < 0 {
				return sz, fmt.Errorf("influx: SHOW STATS shard has no diskBytes column (%v)", s.Columns)
			}
			for _, v := range s.Values {
				if col >= len(v) {
					return sz, fmt.Errorf("influx: SHOW STATS shard: a row of %d values, diskBytes is column %d", len(v), col)
				}
				n, ok := v[col].(float64) // JSON numbers
				if !ok {
					return sz, fmt.Errorf("influx: SHOW STATS shard diskBytes %v is not a number", v[col])
				}
				sz.Bytes += int64(n)
				shards++
			}
		}
	}
	if shards == 0 {
		return sz, fmt.Errorf("influx: SHOW STATS lists no shard of database %q", db)
	}
	return sz, nil
}

func (t *Target) v2Footprint(ctx context.Context) (load.Size, error) {
	bucket := t.cfg.bucket()
	sz := load.Size{Method: fmt.Sprintf("InfluxDB 2.x /metrics storage_shard_disk_size (bucket %q, all its measurements; refreshed by the server every %s)", bucket, v2MetricInterval),
		Refresh: v2MetricInterval}
	orgID, err := t.v2OrgID(ctx)
	if err != nil {
		return sz, err
	}
	id, err := t.v2BucketID(ctx, orgID, bucket)
	if err != nil {
		return sz, err
	}
	if id == "" {
		return sz, fmt.Errorf("influx: no bucket %q in organization %q", bucket, t.cfg.Org)
	}
	res, err := t.query.Post(ctx, httpwrite.Request{Method: http.MethodGet, Path: "/metrics", Accept: "text/plain", NoCompress: true})
	if err != nil {
		return sz, fmt.Errorf("GET /metrics: %w", err)
	}
	if res.Status != 200 || res.Truncated {
		return sz, fmt.Errorf("GET /metrics: %s answered %d (%d bytes, truncated %v)", t.query.BaseURL(), res.Status, len(res.Body), res.Truncated)
	}
	n, shards, err := shardDiskSize(res.Body, id)
	if err != nil {
		return sz, err
	}
	if shards == 0 {
		return sz, fmt.Errorf("influx: /metrics has no storage_shard_disk_size of bucket %q (id %s) yet: the server publishes it every %s", bucket, id, v2MetricInterval)
	}
	sz.Bytes = n
	return sz, nil
}

// shardDiskSize sums the storage_shard_disk_size samples of bucket id in
// a Prometheus text exposition.
func shardDiskSize(body []byte, id string) (total int64, shards int, err error) {
	samples, err := promtext.Samples(body, "storage_shard_disk_size")
	if err != nil {
		return 0, 0, fmt.Errorf("influx: /metrics: %w", err)
	}
	for _, s := range samples {
		if s.Labels["bucket"] == id {
			total += int64(s.Value)
			shards++
		}
	}
	return total, shards, nil
}

// ServerAddr (load.Target.ServerAddr) is the host:port of the first URL.
func (t *Target) ServerAddr() string { return httpwrite.HostPort(t.cfg.URLs[0]) }
