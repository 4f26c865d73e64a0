package results

// QueryBench is a run of a query set (generate_queries' file) against a
// loaded database, after the load or with the load skipped: TSBS's
// tsbs_run_queries_<db>. Latency is per query, from its send (its due time
// when paced by Rate) to its whole answer read back.
type QueryBench struct {
	// File is the query set's path; UseCase, Seed and Scale its header's.
	File    string `json:"file"`
	UseCase string `json:"use_case"`
	Seed    uint64 `json:"seed"`
	Scale   int    `json:"scale"`
	// Workers are the query connections; Rate the offered queries per
	// second over all of them (0: as fast as they answer).
	Workers int     `json:"workers"`
	Rate    float64 `json:"rate,omitempty"`
	// Warmup are the queries of the set run first and not measured.
	Warmup int `json:"warmup"`
	// Seconds is the measured part's wall time; QueriesPerSecond its
	// answered queries over it.
	Seconds          float64 `json:"seconds"`
	QueriesPerSecond float64 `json:"queries_per_second"`
	// Checked says whether every answer was compared with the reference
	// evaluator's over the loaded input (Input); Note says why not.
	Checked bool   `json:"checked"`
	Input   string `json:"input,omitempty"`
	Note    string `json:"note,omitempty"`
	// All are the totals over every type (its Name "all"); Types per
	// query type, in the set's order of first appearance.
	All   QueryBenchType   `json:"all"`
	Types []QueryBenchType `json:"types"`
	// Wrong names the first wrong answers: query, and its first differing
	// row. Errors are the first query errors.
	Wrong  []string `json:"wrong,omitempty"`
	Errors []string `json:"errors,omitempty"`
}

// QueryBenchType is one query type's figures over the measured queries.
type QueryBenchType struct {
	Name string `json:"name"`
	// Count are the queries answered; Errors those that failed;
	// Unsupported those the target declares it cannot state (not run).
	Count       int64 `json:"count"`
	Errors      int64 `json:"errors"`
	Unsupported int64 `json:"unsupported,omitempty"`
	// Checked answers compared with the evaluator's; Wrong those that
	// differed.
	Checked int64 `json:"checked"`
	Wrong   int64 `json:"wrong"`
	// Rows are the rows the answers held.
	Rows    int64          `json:"rows"`
	Latency LatencySummary `json:"latency_ms"`
}
