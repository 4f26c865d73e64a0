package query

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The catalogue: the query types of a use case, modelled on TSBS's (its
// names, what they compute), each a function of a sequence number (the
// seed of its random choices: which host, which window), the dataset
// loaded and the time window whose rows are available. The same sequence
// number over the same dataset and window gives the same Query, so a run's
// queries can be replayed and a wrong answer reproduced.

// Dataset is what the catalogue needs of the data loaded.
type Dataset struct {
	// UseCase is pkg/usecase's name: cpu-only, devops or iot.
	UseCase string
	// Scale is the number of hosts (host_0 ...) or trucks (truck_0 ...).
	Scale int
	// TablePrefix starts every table's name as loaded (--table-prefix).
	TablePrefix string
}

// Kind is one query type of the catalogue.
type Kind struct {
	Name string
	// Doc says what the query asks, for docs and --help.
	Doc string
	// Span is the longest window the query reads; a shorter window is
	// used when less is available.
	Span time.Duration
	// upTo: Draw reads everything before the end of a drawn Span window.
	upTo  bool
	build func(d *Dataset, r *rand.Rand, start, end time.Time) *Query
}

// hosts' and trucks' fields and tag values, as pkg/gen writes them.
var (
	cpuFields = []string{"usage_user", "usage_system", "usage_idle", "usage_nice", "usage_iowait",
		"usage_irq", "usage_softirq", "usage_steal", "usage_guest", "usage_guest_nice"}
	// Fleets are the iot fleet tag's values.
	Fleets = []string{"East", "West", "North", "South"}
)

// High is the usage_user above which high-cpu-1 keeps a row (TSBS's 90).
const High = 90

// LowFuel is the fuel_state below which low-fuel keeps a row (TSBS's 0.1).
const LowFuel = 0.1

var hostKinds = []Kind{
	{Name: "lastpoint", Span: time.Hour, Doc: "every field of the newest row of each host in the last hour available (Last by hostname)",
		build: func(d *Dataset, r *rand.Rand, s, e time.Time) *Query {
			return &Query{Table: d.TablePrefix + "cpu", Start: s, End: e, Fields: cpuFields, Agg: Last, GroupBy: []string{"hostname"}}
		}},
	{Name: "single-groupby-1-1-1", Span: time.Hour, Doc: "max usage_user per minute of one host over an hour",
		build: func(d *Dataset, r *rand.Rand, s, e time.Time) *Query {
			return &Query{Table: d.TablePrefix + "cpu", Start: s, End: e, Fields: cpuFields[:1], Agg: Max,
				Where: []Match{{Tag: "hostname", Values: []string{host(d, r)}}}, Bucket: time.Minute}
		}},
	{Name: "double-groupby-1", Span: 12 * time.Hour, Doc: "avg usage_user per host and hour over up to 12 hours",
		build: func(d *Dataset, r *rand.Rand, s, e time.Time) *Query {
			return &Query{Table: d.TablePrefix + "cpu", Start: s, End: e, Fields: cpuFields[:1], Agg: Avg,
				GroupBy: []string{"hostname"}, Bucket: time.Hour}
		}},
	{Name: "high-cpu-1", Span: 12 * time.Hour, Doc: "the rows of one host with usage_user > 90 over up to 12 hours",
		build: func(d *Dataset, r *rand.Rand, s, e time.Time) *Query {
			return &Query{Table: d.TablePrefix + "cpu", Start: s, End: e, Fields: cpuFields, Agg: Rows,
				Where:  []Match{{Tag: "hostname", Values: []string{host(d, r)}}},
				Filter: &Threshold{Field: "usage_user", Value: High}}
		}},
	{Name: "groupby-orderby-limit", Span: 12 * time.Hour, Doc: "max usage_user per minute over all hosts, the newest 5 minutes before a time",
		build: func(d *Dataset, r *rand.Rand, s, e time.Time) *Query {
			return &Query{Table: d.TablePrefix + "cpu", Start: s, End: e, Fields: cpuFields[:1], Agg: Max,
				Bucket: time.Minute, Limit: 5}
		}},
}

var iotKinds = []Kind{
	{Name: "last-loc", Span: time.Hour, Doc: "latitude and longitude of the newest reading of each truck in the last hour available (Last by name)",
		build: func(d *Dataset, r *rand.Rand, s, e time.Time) *Query {
			return &Query{Table: d.TablePrefix + "readings", Start: s, End: e, Fields: []string{"latitude", "longitude"},
				Agg: Last, GroupBy: []string{"name"}}
		}},
	{Name: "low-fuel", Span: 12 * time.Hour, Doc: "the diagnostics of one fleet with fuel_state < 0.1 over up to 12 hours",
		build: func(d *Dataset, r *rand.Rand, s, e time.Time) *Query {
			return &Query{Table: d.TablePrefix + "diagnostics", Start: s, End: e, Fields: []string{"fuel_state"}, Agg: Rows,
				Where:  []Match{{Tag: "fleet", Values: []string{Fleets[r.IntN(len(Fleets))]}}},
				Filter: &Threshold{Field: "fuel_state", Value: LowFuel, Below: true}}
		}},
	{Name: "avg-load", Span: 12 * time.Hour, Doc: "avg current_load per fleet and hour over up to 12 hours",
		build: func(d *Dataset, r *rand.Rand, s, e time.Time) *Query {
			return &Query{Table: d.TablePrefix + "diagnostics", Start: s, End: e, Fields: []string{"current_load"}, Agg: Avg,
				GroupBy: []string{"fleet"}, Bucket: time.Hour}
		}},
}

func host(d *Dataset, r *rand.Rand) string {
	return "host_" + strconv.Itoa(r.IntN(max(d.Scale, 1)))
}

// Kinds are the query types of use case uc (nil: the use case has none).
func Kinds(uc string) []Kind {
	switch uc {
	case "cpu-only", "devops":
		return hostKinds
	case "iot":
		return iotKinds
	}
	return nil
}

// Build is query kind k over d, its random choices drawn from seq, its
// window the newest k.Span of [start, end) (all of it when shorter).
func (k *Kind) Build(d *Dataset, seq uint64, start, end time.Time) *Query {
	r := rand.New(rand.NewPCG(seq, 0x38))
	s := end.Add(-k.Span)
	if s.Before(start) {
		s = start
	}
	q := k.build(d, r, s, end)
	q.Name = k.Name
	return q
}

// Weight is one query type of a mix and its share.
type Weight struct {
	Name   string
	Weight int
}

// Mix is the mix of query types of a run (--query-mix): each query is of
// one type, drawn with a probability proportional to its weight.
type Mix []Weight

// MaxWeight bounds one weight of a mix.
const MaxWeight = 1_000_000

// ParseMix reads name=weight,... (a name alone weighs 1; an empty string
// is the empty mix: every type of the use case, each weight 1). It checks
// the syntax only; Resolve checks the names against a use case.
func ParseMix(s string) (Mix, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	var m Mix
	for i, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		name, w, hasW := strings.Cut(part, "=")
		name = strings.TrimSpace(name)
		if name == "" {
			return nil, fmt.Errorf("query mix %q: item %d has no query name", s, i+1)
		}
		weight := 1
		if hasW {
			n, err := strconv.Atoi(strings.TrimSpace(w))
			if err != nil || n < 0 || n > MaxWeight {
				return nil, fmt.Errorf("query mix %q: %s: the weight %q is not a whole number from 0 to %d", s, name, w, MaxWeight)
			}
			weight = n
		}
		if slices.ContainsFunc(m, func(x Weight) bool { return x.Name == name }) {
			return nil, fmt.Errorf("query mix %q: %s is given twice", s, name)
		}
		m = append(m, Weight{Name: name, Weight: weight})
	}
	if !slices.ContainsFunc(m, func(x Weight) bool { return x.Weight > 0 }) {
		return nil, fmt.Errorf("query mix %q: every weight is 0", s)
	}
	return m, nil
}

// String is the mix as ParseMix reads it.
func (m Mix) String() string {
	parts := make([]string, len(m))
	for i, w := range m {
		parts[i] = w.Name + "=" + strconv.Itoa(w.Weight)
	}
	return strings.Join(parts, ",")
}

// Resolve is m's kinds of use case uc with their weights; the empty mix
// is every kind of uc, weight 1.
func (m Mix) Resolve(uc string) ([]Kind, []int, error) {
	all := Kinds(uc)
	if len(all) == 0 {
		return nil, nil, fmt.Errorf("use case %q has no queries (cpu-only, devops and iot have)", uc)
	}
	if len(m) == 0 {
		w := make([]int, len(all))
		for i := range w {
			w[i] = 1
		}
		return all, w, nil
	}
	var kinds []Kind
	var weights []int
	for _, x := range m {
		i := slices.IndexFunc(all, func(k Kind) bool { return k.Name == x.Name })
		if i < 0 {
			return nil, nil, fmt.Errorf("query mix: %s is not a query of %s (%s)", x.Name, uc, strings.Join(names(all), ", "))
		}
		if x.Weight > 0 {
			kinds, weights = append(kinds, all[i]), append(weights, x.Weight)
		}
	}
	if len(kinds) == 0 {
		return nil, nil, errors.New("query mix: every weight is 0")
	}
	return kinds, weights, nil
}

func names(ks []Kind) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = k.Name
	}
	return out
}

// Pick is the index of the kind query seq is of, by weights
// (deterministic in seq).
func Pick(weights []int, seq uint64) int {
	total := 0
	for _, w := range weights {
		total += w
	}
	r := rand.New(rand.NewPCG(seq, 0x6d6978))
	n := r.IntN(total)
	for i, w := range weights {
		if n < w {
			return i
		}
		n -= w
	}
	return len(weights) - 1
}
