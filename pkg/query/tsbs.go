package query

import (
	"math/rand/v2"
	"strconv"
	"time"
)

// The benchmark catalogue: TSBS's query types by their names (what
// tsbs_generate_queries calls them) and their meaning, for the query set a
// benchmark generates once and replays against every database (package
// querybench). Where a type's name is also one of Kinds', the query load
// during a run keeps Kinds' form (its window is the newest rows written);
// here every window is drawn at random from the whole dataset as TSBS
// draws it.
//
// What TSBS's queries ask, and how each is said here:
//
//   - single-groupby-M-H-T: the max of the first M cpu fields per minute
//     over H random hosts (one series of buckets, not one per host) in a
//     random T-hour window.
//   - cpu-max-all-H (cpu-max-all-32-24): the max of all ten cpu fields per
//     hour over H random hosts in a random 8-hour (24-hour) window.
//   - double-groupby-N (1, 5, all): the mean of N cpu fields per host and
//     hour over every host in a random 12-hour window.
//   - groupby-orderby-limit: the max usage_user per minute over every host
//     before a random time, the 5 newest minutes.
//   - high-cpu-1, high-cpu-all: the rows of one random host (every host)
//     with usage_user > 90 in a random 12-hour window.
//   - lastpoint: every field of each host's newest row.
//   - last-loc: the newest latitude and longitude of each truck of a
//     random fleet; single-last-loc: of one random truck.
//   - low-fuel, high-load: the trucks of a random fleet whose newest
//     diagnostics row has fuel_state < 0.1, current_load/load_capacity >
//     0.9 (Last per name and driver, then Having).
//   - stationary-trucks: the trucks of a random fleet whose mean velocity
//     in a random 10-minute window is below 1.
//   - long-driving-sessions, long-daily-sessions: the trucks of a random
//     fleet that drove (mean velocity above 1 in a 10-minute period) in
//     more than 22 of the periods of a random 4-hour window, more than 60
//     of a random 24-hour window (a Count rollup with a Having).
//   - avg-vs-projected-fuel-consumption: per fleet, the mean
//     fuel_consumption and mean nominal_fuel_consumption of the readings
//     with velocity > 1.
//   - avg-daily-driving-duration: per fleet, truck and driver, the mean of
//     the hours driven per day (driven 10-minute periods over 6).
//   - avg-load: per fleet and model, the mean over trucks of each truck's
//     mean current_load, beside the mean load_capacity (fixed by the
//     model, so their quotient is TSBS's load share).
//   - daily-activity: per fleet, model and day, the 10-minute periods in
//     which a truck's mean status was below 1, over 144 (TSBS counts the
//     periods' rows; here each period counts once).
//
//   - avg-daily-driving-session: per truck and day, the mean length in
//     hours of its driving sessions (runs of 10-minute periods with mean
//     velocity above 1, from the first such period to the next period
//     with rows that is not one: a Change with Runs), by the day a
//     session starts. TSBS's forms disagree on driving (its SQL says mean
//     velocity above 5, its InfluxQL at least 10); here it is what the
//     other driving types say.
//   - breakdown-frequency: per model, how often a truck broke down: a
//     10-minute period with mean status above 1 (not active, as
//     daily-activity says) right after a period with rows that was not
//     (a Change). TSBS's forms disagree (its SQL's test of the share of
//     readings with status 0 holds for every period, its InfluxQL's
//     follows the model's periods, not a truck's).
//
// A host or truck subset larger than the dataset's scale is all of it
// (TSBS refuses such a scale). Windows are whole seconds.

// readings and diagnostics fields the iot types read.
const (
	rdTable   = "readings"
	diagTable = "diagnostics"
)

// TSBS's iot windows and thresholds.
const (
	stationarySpan   = 10 * time.Minute
	longDrivingSpan  = 4 * time.Hour
	dailyDrivingSpan = 24 * time.Hour
	// Driving: a truck whose mean velocity over 10 minutes is above 1.
	drivingVelocity = 1
	// long-driving-sessions: more than 22 of the 24 10-minute periods of 4
	// hours driven (rested less than 20 minutes); long-daily-sessions: more
	// than 60 of a day's 144 (drove more than 10 hours).
	longDrivingPeriods = 22
	longDailyPeriods   = 60
	highLoad           = 0.9
	// A truck is out of commission in a 10-minute period whose mean
	// status is above 1 (daily-activity: active below it).
	brokenStatus = 1
)

var truckKeys = []string{"name", "driver"}

func fleet(r *rand.Rand) []Match {
	return []Match{{Tag: "fleet", Values: []string{Fleets[r.IntN(len(Fleets))]}}}
}

// drivenPeriods is the 10-minute periods of each truck of a fleet (or of
// every truck with groups) whose mean velocity is above 1.
func drivenPeriods(d *Dataset, s, e time.Time, where []Match, groups []string) *Query {
	return &Query{Table: d.TablePrefix + rdTable, Start: s, End: e, Fields: []string{"velocity"}, Agg: Avg, Where: where,
		GroupBy: groups, Bucket: 10 * time.Minute, Having: &Having{Field: "velocity", Value: drivingVelocity}}
}

// TSBS's time spans.
const (
	doubleGroupBySpan = 12 * time.Hour
	highCPUSpan       = 12 * time.Hour
	maxAllSpan        = 8 * time.Hour
)

func singleGroupBy(metrics, hosts, hours int) Kind {
	name := "single-groupby-" + strconv.Itoa(metrics) + "-" + strconv.Itoa(hosts) + "-" + strconv.Itoa(hours)
	return Kind{Name: name, Span: time.Duration(hours) * time.Hour,
		Doc: "max of " + strconv.Itoa(metrics) + " cpu field(s) per minute over " + strconv.Itoa(hosts) +
			" random host(s) in a random " + strconv.Itoa(hours) + "-hour window",
		build: func(d *Dataset, r *rand.Rand, s, e time.Time) *Query {
			return &Query{Table: d.TablePrefix + "cpu", Start: s, End: e, Fields: cpuFields[:metrics], Agg: Max,
				Where: []Match{{Tag: "hostname", Values: hostSubset(d, r, hosts)}}, Bucket: time.Minute}
		}}
}

func maxAll(hosts int, span time.Duration, name string) Kind {
	return Kind{Name: name, Span: span,
		Doc: "max of every cpu field per hour over " + strconv.Itoa(hosts) + " random host(s) in a random " + span.String() + " window",
		build: func(d *Dataset, r *rand.Rand, s, e time.Time) *Query {
			return &Query{Table: d.TablePrefix + "cpu", Start: s, End: e, Fields: cpuFields, Agg: Max,
				Where: []Match{{Tag: "hostname", Values: hostSubset(d, r, hosts)}}, Bucket: time.Hour}
		}}
}

func doubleGroupBy(metrics int, name string) Kind {
	return Kind{Name: name, Span: doubleGroupBySpan,
		Doc: "mean of " + strconv.Itoa(metrics) + " cpu field(s) per host and hour over every host in a random 12-hour window",
		build: func(d *Dataset, r *rand.Rand, s, e time.Time) *Query {
			return &Query{Table: d.TablePrefix + "cpu", Start: s, End: e, Fields: cpuFields[:metrics], Agg: Avg,
				GroupBy: []string{"hostname"}, Bucket: time.Hour}
		}}
}

func highCPU(hosts int, name string) Kind {
	return Kind{Name: name, Span: highCPUSpan,
		Doc: "the rows with usage_user > 90 of " + map[bool]string{true: "every host", false: "one random host"}[hosts == 0] +
			" in a random 12-hour window",
		build: func(d *Dataset, r *rand.Rand, s, e time.Time) *Query {
			q := &Query{Table: d.TablePrefix + "cpu", Start: s, End: e, Fields: cpuFields, Agg: Rows,
				Filter: &Threshold{Field: "usage_user", Value: High}}
			if hosts > 0 {
				q.Where = []Match{{Tag: "hostname", Values: hostSubset(d, r, hosts)}}
			}
			return q
		}}
}

var tsbsHostKinds = []Kind{
	singleGroupBy(1, 1, 1), singleGroupBy(1, 1, 12), singleGroupBy(1, 8, 1),
	singleGroupBy(5, 1, 1), singleGroupBy(5, 1, 12), singleGroupBy(5, 8, 1),
	maxAll(1, maxAllSpan, "cpu-max-all-1"), maxAll(8, maxAllSpan, "cpu-max-all-8"), maxAll(32, 24*time.Hour, "cpu-max-all-32-24"),
	doubleGroupBy(1, "double-groupby-1"), doubleGroupBy(5, "double-groupby-5"), doubleGroupBy(len(cpuFields), "double-groupby-all"),
	{Name: "groupby-orderby-limit", Span: time.Hour, upTo: true,
		Doc: "max usage_user per minute over every host before a random time, the 5 newest minutes",
		build: func(d *Dataset, r *rand.Rand, s, e time.Time) *Query {
			return &Query{Table: d.TablePrefix + "cpu", Start: s, End: e, Fields: cpuFields[:1], Agg: Max,
				Bucket: time.Minute, Limit: 5}
		}},
	highCPU(1, "high-cpu-1"), highCPU(0, "high-cpu-all"),
	{Name: "lastpoint", Doc: "every cpu field of each host's newest row",
		build: func(d *Dataset, r *rand.Rand, s, e time.Time) *Query {
			return &Query{Table: d.TablePrefix + "cpu", Start: s, End: e, Fields: cpuFields, Agg: Last, GroupBy: []string{"hostname"}}
		}},
}

var tsbsIoTKinds = []Kind{
	{Name: "last-loc", Doc: "the newest latitude and longitude of each truck of a random fleet",
		build: func(d *Dataset, r *rand.Rand, s, e time.Time) *Query {
			return &Query{Table: d.TablePrefix + rdTable, Start: s, End: e, Fields: []string{"latitude", "longitude"}, Agg: Last,
				Where: []Match{{Tag: "fleet", Values: []string{Fleets[r.IntN(len(Fleets))]}}}, GroupBy: []string{"name"}}
		}},
	{Name: "single-last-loc", Doc: "the newest latitude and longitude of one random truck",
		build: func(d *Dataset, r *rand.Rand, s, e time.Time) *Query {
			return &Query{Table: d.TablePrefix + rdTable, Start: s, End: e, Fields: []string{"latitude", "longitude"}, Agg: Last,
				Where: []Match{{Tag: "name", Values: subset(d, r, 1, "truck_")}}, GroupBy: []string{"name"}}
		}},
	{Name: "low-fuel", Doc: "the trucks of a random fleet whose newest fuel_state is below 0.1 (by name and driver)",
		build: func(d *Dataset, r *rand.Rand, s, e time.Time) *Query {
			return &Query{Table: d.TablePrefix + diagTable, Start: s, End: e, Fields: []string{"fuel_state"}, Agg: Last, Where: fleet(r),
				GroupBy: truckKeys, Having: &Having{Field: "fuel_state", Value: LowFuel, Below: true}}
		}},
	{Name: "high-load", Doc: "the trucks of a random fleet whose newest current_load is above 90% of their load_capacity",
		build: func(d *Dataset, r *rand.Rand, s, e time.Time) *Query {
			return &Query{Table: d.TablePrefix + diagTable, Start: s, End: e, Fields: []string{"current_load", "load_capacity"}, Agg: Last,
				Where: fleet(r), GroupBy: truckKeys, Having: &Having{Field: "current_load", Over: "load_capacity", Value: highLoad}}
		}},
	{Name: "stationary-trucks", Span: stationarySpan, Doc: "the trucks of a random fleet whose mean velocity is below 1 in a random 10-minute window",
		build: func(d *Dataset, r *rand.Rand, s, e time.Time) *Query {
			return &Query{Table: d.TablePrefix + rdTable, Start: s, End: e, Fields: []string{"velocity"}, Agg: Avg, Where: fleet(r),
				GroupBy: truckKeys, Having: &Having{Field: "velocity", Value: drivingVelocity, Below: true}}
		}},
	{Name: "long-driving-sessions", Span: longDrivingSpan,
		Doc: "the trucks of a random fleet that drove (mean velocity above 1) in more than 22 of the 10-minute periods of a random 4-hour window",
		build: func(d *Dataset, r *rand.Rand, s, e time.Time) *Query {
			q := drivenPeriods(d, s, e, fleet(r), truckKeys)
			q.Rollups = []Rollup{{Agg: Count, GroupBy: truckKeys, Having: &Having{Field: "count", Value: longDrivingPeriods}}}
			return q
		}},
	{Name: "long-daily-sessions", Span: dailyDrivingSpan,
		Doc: "the trucks of a random fleet that drove in more than 60 of the 10-minute periods of a random 24-hour window",
		build: func(d *Dataset, r *rand.Rand, s, e time.Time) *Query {
			q := drivenPeriods(d, s, e, fleet(r), truckKeys)
			q.Rollups = []Rollup{{Agg: Count, GroupBy: truckKeys, Having: &Having{Field: "count", Value: longDailyPeriods}}}
			return q
		}},
	{Name: "avg-vs-projected-fuel-consumption", Doc: "per fleet, mean fuel_consumption and nominal_fuel_consumption of the readings with velocity > 1",
		build: func(d *Dataset, r *rand.Rand, s, e time.Time) *Query {
			return &Query{Table: d.TablePrefix + rdTable, Start: s, End: e, Fields: []string{"fuel_consumption", "nominal_fuel_consumption"},
				Agg: Avg, GroupBy: []string{"fleet"}, Filter: &Threshold{Field: "velocity", Value: 1}}
		}},
	{Name: "avg-daily-driving-duration", Doc: "per fleet, truck and driver, the mean over days of the hours driven a day (10-minute periods with mean velocity above 1, over 6)",
		build: func(d *Dataset, r *rand.Rand, s, e time.Time) *Query {
			keys := []string{"fleet", "name", "driver"}
			q := drivenPeriods(d, s, e, nil, keys)
			q.Rollups = []Rollup{{Agg: Count, GroupBy: keys, Bucket: 24 * time.Hour, Scale: 1.0 / 6}, {Agg: Avg, GroupBy: keys}}
			return q
		}},
	{Name: "avg-daily-driving-session", Doc: "per truck and day, the mean hours of its driving sessions (runs of 10-minute periods with mean velocity above 1)",
		build: func(d *Dataset, r *rand.Rand, s, e time.Time) *Query {
			return &Query{Table: d.TablePrefix + rdTable, Start: s, End: e, Fields: []string{"velocity"}, Agg: Avg,
				GroupBy: []string{"name"}, Bucket: 10 * time.Minute, Change: &Change{Field: "velocity", Value: drivingVelocity, Runs: true},
				Rollups: []Rollup{{Agg: Avg, GroupBy: []string{"name"}, Bucket: 24 * time.Hour}}}
		}},
	{Name: "avg-load", Doc: "per fleet and model, the mean over trucks of each truck's mean current_load, and the load_capacity (a model's)",
		build: func(d *Dataset, r *rand.Rand, s, e time.Time) *Query {
			return &Query{Table: d.TablePrefix + diagTable, Start: s, End: e, Fields: []string{"current_load", "load_capacity"}, Agg: Avg,
				GroupBy: []string{"fleet", "model", "name"}, Rollups: []Rollup{{Agg: Avg, GroupBy: []string{"fleet", "model"}}}}
		}},
	{Name: "daily-activity", Doc: "per fleet, model and day, the share of the day's 10-minute periods trucks were active (mean status below 1), summed over trucks",
		build: func(d *Dataset, r *rand.Rand, s, e time.Time) *Query {
			return &Query{Table: d.TablePrefix + diagTable, Start: s, End: e, Fields: []string{"status"}, Agg: Avg,
				GroupBy: []string{"fleet", "model", "name"}, Bucket: 10 * time.Minute, Having: &Having{Field: "status", Value: 1, Below: true},
				Rollups: []Rollup{{Agg: Count, GroupBy: []string{"fleet", "model"}, Bucket: 24 * time.Hour, Scale: 1.0 / 144}}}
		}},
	{Name: "breakdown-frequency", Doc: "per model, how often a truck broke down (a 10-minute period with mean status above 1 after one without)",
		build: func(d *Dataset, r *rand.Rand, s, e time.Time) *Query {
			return &Query{Table: d.TablePrefix + diagTable, Start: s, End: e, Fields: []string{"status"}, Agg: Avg,
				GroupBy: []string{"model", "name"}, Bucket: 10 * time.Minute, Change: &Change{Field: "status", Value: brokenStatus},
				Rollups: []Rollup{{Agg: Count, GroupBy: []string{"model"}}}}
		}},
}

// TSBSKinds are the benchmark catalogue's query types of use case uc, in
// TSBS's order (nil: the use case has none).
func TSBSKinds(uc string) []Kind {
	switch uc {
	case "cpu-only", "devops":
		return tsbsHostKinds
	case "iot":
		return tsbsIoTKinds
	}
	return nil
}

// Draw is query kind k over d with a window drawn at random (from seq) as
// TSBS draws it from the dataset's [start, end): a k.Span window anywhere
// in it (all of it when shorter), everything before the end of such a
// window (groupby-orderby-limit), or all of it (a kind without a span).
func (k *Kind) Draw(d *Dataset, seq uint64, start, end time.Time) *Query {
	r := rand.New(rand.NewPCG(seq, 0x7473))
	s, e := start, end
	if k.Span > 0 && end.Sub(start) > k.Span {
		room := int64((end.Sub(start) - k.Span) / time.Second)
		s = start.Add(time.Duration(r.Int64N(room+1)) * time.Second)
		e = s.Add(k.Span)
		if k.upTo {
			s = start
		}
	}
	q := k.build(d, r, s, e)
	q.Name = k.Name
	return q
}

// hostSubset is n distinct random hosts (every host when n >= scale), in
// the order drawn.
func hostSubset(d *Dataset, r *rand.Rand, n int) []string { return subset(d, r, n, "host_") }

func subset(d *Dataset, r *rand.Rand, n int, prefix string) []string {
	scale := max(d.Scale, 1)
	perm := r.Perm(scale)
	if n < scale {
		perm = perm[:n]
	}
	out := make([]string, len(perm))
	for i, p := range perm {
		out[i] = prefix + strconv.Itoa(p)
	}
	return out
}
