package results

// Queries is the query load that ran beside the writers (--query-rate):
// what it offered, how each query type answered, and how many answers
// were checked and wrong. Latencies are from each query's due time (the
// schedule's), so a query that waited for a free connection counts its
// wait, as the write latency from due of a paced run does.
type Queries struct {
	Rate    float64 `json:"rate"`    // offered queries per second
	Workers int     `json:"workers"` // query connections
	Mix     string  `json:"mix"`     // name=weight,... as resolved

	// Issued are the queries that fell due; Dropped those that found the
	// backlog full (MaxBacklog, its cap) and were not sent.
	Issued     int64 `json:"issued"`
	Dropped    int64 `json:"dropped"`
	MaxBacklog int64 `json:"max_backlog"`
	BacklogCap int   `json:"backlog_cap"`

	// Checked says whether answers were checked against the input (a
	// generated file whose description says what it holds); Note says
	// why not, or what limits the check.
	Checked bool   `json:"checked"`
	Note    string `json:"note,omitempty"`

	// All are the totals over every type (its Name "all").
	All QueryType `json:"all"`
	// Types are the totals per query type, in the mix's order.
	Types []QueryType `json:"types"`
	// Wrong names the first wrong answers: query, window and difference.
	Wrong []string `json:"wrong,omitempty"`
	// Errors are the first query errors.
	Errors []string `json:"errors,omitempty"`
}

// QueryType is one query type's figures over the run or a period.
type QueryType struct {
	Name string `json:"name"`
	// Count are the queries answered; Errors those that failed;
	// Unsupported those the target cannot state (not in Count).
	Count       int64 `json:"count"`
	Errors      int64 `json:"errors"`
	Unsupported int64 `json:"unsupported,omitempty"`
	// Checked are the answers compared with the expected answer, Wrong
	// those that differed; the others were over data in flight or found
	// the checker busy.
	Checked int64 `json:"checked"`
	Wrong   int64 `json:"wrong"`
	// Rows are the rows the answers held.
	Rows int64 `json:"rows"`
	// LatencyFromDue is per answered query, from its due time to its
	// answer.
	LatencyFromDue LatencySummary `json:"latency_from_due_ms"`
}
