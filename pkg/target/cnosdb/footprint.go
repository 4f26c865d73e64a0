package cnosdb

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/target/httpwrite"
	"github.com/tsload/tsload/pkg/target/promtext"
)

// Footprint (load.Target.Footprint) is CnosDB's own account of the database's
// files: the vnode_disk_storage gauge of its vnodes on /metrics (every
// table of the database: CnosDB accounts per vnode). It counts the TSM and
// delta files only: rows still in the cache (and the WAL) are not in it
// until a flush, which FlushStorage asks for.
func (t *Target) Footprint(ctx context.Context, _ []string) (load.Size, error) {
	db := t.cfg.DBName
	sz := load.Size{Method: fmt.Sprintf("CnosDB /metrics vnode_disk_storage (the files of database %q; rows in the cache and WAL not counted)", db)}
	vnodes, err := t.vnodes(ctx)
	if err != nil {
		return sz, err
	}
	for _, v := range vnodes {
		sz.Bytes += v.bytes
	}
	if sz.Bytes == 0 {
		// Not a size: the rows are all in the cache and WAL.
		return sz, fmt.Errorf("cnosdb: database %q has none of its rows in files yet (they are in the cache and WAL until a flush)", db)
	}
	return sz, nil
}

type vnode struct {
	id    string
	bytes int64
}

// vnodes reads the vnode_disk_storage gauge of the database's vnodes.
func (t *Target) vnodes(ctx context.Context) ([]vnode, error) {
	res, err := t.sqlp.Post(ctx, httpwrite.Request{Method: http.MethodGet, Path: "/metrics", Accept: "text/plain", NoCompress: true})
	if err != nil {
		return nil, fmt.Errorf("cnosdb: GET /metrics: %w", err)
	}
	if res.Status != 200 || res.Truncated {
		return nil, fmt.Errorf("cnosdb: GET /metrics: %s (truncated %v)", describe(res.Status, res.Body), res.Truncated)
	}
	vs, err := vnodeStorage(res.Body, t.cfg.Tenant, t.cfg.DBName)
	if err != nil {
		return nil, err
	}
	if len(vs) == 0 {
		return nil, fmt.Errorf("cnosdb: /metrics has no vnode_disk_storage of database %q (tenant %q): nothing written yet?", t.cfg.DBName, t.cfg.Tenant)
	}
	return vs, nil
}

// vnodeStorage picks the vnode_disk_storage samples of tenant's db out of
// a Prometheus text exposition (CnosDB names the gauge
// vnode_disk_storage_total), in vnode id order.
func vnodeStorage(body []byte, tenant, db string) ([]vnode, error) {
	samples, err := promtext.Samples(body, "vnode_disk_storage_total", "vnode_disk_storage")
	if err != nil {
		return nil, fmt.Errorf("cnosdb: /metrics: %w", err)
	}
	var out []vnode
	for _, s := range samples {
		if s.Labels["database"] == db && s.Labels["tenant"] == tenant {
			out = append(out, vnode{id: s.Labels["vnode_id"], bytes: int64(s.Value)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out, nil
}

// FlushStorage (load.Hooks.FlushStorage) runs COMPACT VNODE on the database's vnodes,
// which writes their caches to files, twice: CnosDB 2.4 sets the gauge
// from the version a flush replaces, so the second compaction (with
// nothing left to write) publishes the size of the first one's files.
func (t *Target) FlushStorage(ctx context.Context, _ []string) (string, error) {
	vs, err := t.vnodes(ctx)
	if err != nil {
		return "", err
	}
	ids := make([]string, len(vs))
	for i, v := range vs {
		if _, err := strconv.ParseUint(v.id, 10, 64); err != nil {
			return "", fmt.Errorf("cnosdb: /metrics: vnode id %q is not a number", v.id)
		}
		ids[i] = v.id
	}
	stmt := "COMPACT VNODE " + strings.Join(ids, " ") + ";"
	for i := 0; i < 2; i++ {
		if _, err := t.SQL(ctx, "", stmt); err != nil {
			return stmt, err
		}
	}
	return strings.TrimSuffix(stmt, ";") + " (twice)", nil
}

// ServerAddr (load.Target.ServerAddr) is the host:port of the first URL.
func (t *Target) ServerAddr() string { return httpwrite.HostPort(t.cfg.URLs[0]) }
