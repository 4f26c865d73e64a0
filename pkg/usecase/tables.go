// Package usecase describes the four data sets that generate_data produces
// (cpu-only, devops, iot, weather): their tables, columns and column types,
// as docs/formats.md specifies them.
//
// Every table starts with the timestamp column "time", followed by its tags
// (Tag: true) and then its fields, in the order rows carry them in csv and
// pgcopy. (The ILP writer sorts tags by key itself.)
//
// Type decisions:
//   - cpu (cpu-only and devops): all ten usage_* fields are float8.
//   - devops: every field is int8 except mem's used_percent,
//     available_percent and buffered_percent (float8).
//   - iot: every field is float8 (positions, speeds, capacities, fuel and
//     load are continuous or may be fractional) except diagnostics.status,
//     an int8 in 0..5. load_capacity, fuel_capacity and
//     nominal_fuel_consumption (fixed by the truck model) are fields of both
//     readings and diagnostics.
//   - weather: location_id is int4 and a tag (a tag in ILP, an integer
//     column in csv/pgcopy); latitude, longitude and all values are float4.
//
// Tags are text (SYMBOL in QuestDB) except weather's location_id.
package usecase

import (
	"fmt"
	"sort"

	"github.com/tsload/tsload/pkg/schema"
)

// Use case names.
const (
	CPUOnly = "cpu-only"
	DevOps  = "devops"
	IoT     = "iot"
	Weather = "weather"
)

// Names lists the use cases in a fixed order.
var Names = []string{CPUOnly, DevOps, IoT, Weather}

// HostTags are the ten tags that identify a host in cpu-only and devops.
var HostTags = []string{
	"hostname", "region", "datacenter", "rack", "os", "arch",
	"team", "service", "service_version", "service_environment",
}

// TruckTags are the tags that identify a truck in iot.
var TruckTags = []string{"name", "fleet", "driver", "model", "device_version"}

func table(name string, tags []string, tagType schema.Type, fields []string, fieldType func(string) schema.Type) *schema.Table {
	t := &schema.Table{Name: name}
	t.Columns = append(t.Columns, schema.Column{Name: "time", Type: schema.Timestamp})
	for _, tg := range tags {
		t.Columns = append(t.Columns, schema.Column{Name: tg, Type: tagType, Tag: true})
	}
	for _, f := range fields {
		t.Columns = append(t.Columns, schema.Column{Name: f, Type: fieldType(f)})
	}
	return t
}

func all(t schema.Type) func(string) schema.Type { return func(string) schema.Type { return t } }

func with(tags []string, extra ...string) []string {
	out := append([]string(nil), tags...)
	return append(out, extra...)
}

var (
	cpuTable = table("cpu", HostTags, schema.Text, []string{
		"usage_user", "usage_system", "usage_idle", "usage_nice", "usage_iowait",
		"usage_irq", "usage_softirq", "usage_steal", "usage_guest", "usage_guest_nice",
	}, all(schema.Float8))

	diskioTable = table("diskio", with(HostTags, "serial"), schema.Text, []string{
		"reads", "writes", "read_bytes", "write_bytes", "read_time", "write_time", "io_time",
	}, all(schema.Int8))

	diskTable = table("disk", with(HostTags, "path", "fstype"), schema.Text, []string{
		"total", "free", "used", "used_percent", "inodes_total", "inodes_free", "inodes_used",
	}, all(schema.Int8))

	kernelTable = table("kernel", HostTags, schema.Text, []string{
		"boot_time", "interrupts", "context_switches", "processes_forked",
		"disk_pages_in", "disk_pages_out",
	}, all(schema.Int8))

	memTable = table("mem", HostTags, schema.Text, []string{
		"total", "available", "used", "free", "cached", "buffered",
		"used_percent", "available_percent", "buffered_percent",
	}, func(f string) schema.Type {
		switch f {
		case "used_percent", "available_percent", "buffered_percent":
			return schema.Float8
		}
		return schema.Int8
	})

	netTable = table("net", with(HostTags, "interface"), schema.Text, []string{
		"bytes_sent", "bytes_recv", "packets_sent", "packets_recv",
		"err_in", "err_out", "drop_in", "drop_out",
	}, all(schema.Int8))

	nginxTable = table("nginx", with(HostTags, "port", "server"), schema.Text, []string{
		"accepts", "handled", "requests", "active", "reading", "waiting", "writing",
	}, all(schema.Int8))

	postgreslTable = table("postgresl", HostTags, schema.Text, []string{
		"numbackends", "xact_commit", "xact_rollback", "blks_read", "blks_hit",
		"tup_returned", "tup_fetched", "tup_inserted", "tup_updated", "tup_deleted",
		"conflicts", "temp_files", "temp_bytes", "deadlocks", "blk_read_time", "blk_write_time",
	}, all(schema.Int8))

	redisTable = table("redis", with(HostTags, "port", "server"), schema.Text, []string{
		"uptime_in_seconds", "total_connections_received",
		"expired_keys", "evicted_keys", "keyspace_hits", "keyspace_misses",
		"instantaneous_ops_per_sec", "instantaneous_input_kbps", "instantaneous_output_kbps",
		"connected_clients", "rdb_changes_since_last_save",
		"used_memory", "used_memory_rss", "used_memory_peak", "used_memory_lua",
		"mem_fragmentation_ratio",
		"sync_full", "sync_partial_ok", "sync_partial_err", "pubsub_channels", "pubsub_patterns",
		"latest_fork_usec", "connected_slaves", "master_repl_offset", "repl_backlog_active",
		"repl_backlog_size", "repl_backlog_histlen", "used_cpu_sys", "used_cpu_user",
		"used_cpu_sys_children", "used_cpu_user_children",
	}, all(schema.Int8))

	truckFields = []string{"load_capacity", "fuel_capacity", "nominal_fuel_consumption"}

	readingsTable = table("readings", TruckTags, schema.Text, with([]string{
		"latitude", "longitude", "elevation", "velocity", "heading", "grade", "fuel_consumption",
	}, truckFields...), all(schema.Float8))

	diagnosticsTable = table("diagnostics", TruckTags, schema.Text, with([]string{
		"fuel_state", "current_load", "status",
	}, truckFields...), func(f string) schema.Type {
		if f == "status" {
			return schema.Int8
		}
		return schema.Float8
	})

	weatherTable = table("weather", []string{"location_id"}, schema.Int4, []string{
		"latitude", "longitude", "temperature_2m", "zonal_wind_10m", "meridional_wind_10m",
		"total_cloud_cover", "total_precipitation", "snowfall",
	}, all(schema.Float4))
)

var useCases = map[string][]*schema.Table{
	CPUOnly: {cpuTable},
	DevOps:  {cpuTable, diskioTable, diskTable, kernelTable, memTable, netTable, nginxTable, postgreslTable, redisTable},
	IoT:     {readingsTable, diagnosticsTable},
	Weather: {weatherTable},
}

var byName = func() map[string]*schema.Table {
	m := map[string]*schema.Table{}
	for _, ts := range useCases {
		for _, t := range ts {
			m[t.Name] = t
		}
	}
	return m
}()

// Tables returns the tables of a use case in the order rows of an epoch are
// written. The returned tables are shared: callers must not modify them.
func Tables(useCase string) ([]*schema.Table, error) {
	ts, ok := useCases[useCase]
	if !ok {
		return nil, fmt.Errorf("unknown use case %q (want cpu-only, devops, iot or weather)", useCase)
	}
	return append([]*schema.Table(nil), ts...), nil
}

// LookupTable returns the table with the given name in any use case, or nil.
// cpu-only's "cpu" and devops' "cpu" are the same table.
func LookupTable(name string) *schema.Table { return byName[name] }

// TableNames returns every known table name, sorted.
func TableNames() []string {
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
