package results

// Interference is what else ran on the machine while the load ran (Start
// to End): the machine's busy CPU less the loader's and the local
// server's, the hypervisor's steal, and the load average at both ends. A
// run over the threshold is Disturbed: its figures are not the database's
// alone.
type Interference struct {
	// NotMeasured says why nothing was measured (a platform without
	// /proc/stat); nothing else is set.
	NotMeasured string `json:"not_measured,omitempty"`
	// Unobserved names what could not be observed: a remote server's
	// machine, or a local server whose process was not found (its CPU is
	// then counted as interference).
	Unobserved string `json:"unobserved,omitempty"`

	CPUs    int     `json:"cpus"`
	Seconds float64 `json:"seconds"`
	// MachineCores is every process's CPU over the window in cores
	// (CPU-seconds per wall second); LoaderCores and ServerCores are the
	// loader's and the local server's share of it.
	MachineCores float64 `json:"machine_cores"`
	LoaderCores  float64 `json:"loader_cores"`
	ServerCores  float64 `json:"server_cores"`
	// Cores is the rest: interference, in cores (never below 0).
	Cores float64 `json:"cores"`
	// StealFraction is the share of the processors' time the hypervisor
	// gave to other machines.
	StealFraction float64 `json:"steal_fraction"`
	LoadAvgStart  float64 `json:"load_avg_start"`
	LoadAvgEnd    float64 `json:"load_avg_end"`

	// ThresholdCores and ThresholdSteal are the limits the run was judged
	// by; Disturbed says one was crossed, Reason which and by how much.
	ThresholdCores float64 `json:"threshold_cores"`
	ThresholdSteal float64 `json:"threshold_steal"`
	Disturbed      bool    `json:"disturbed"`
	Reason         string  `json:"reason,omitempty"`
}

// Disturbed says whether r's figures were measured beside other work on
// its machine (Cost.Interference over its threshold).
func (r *Results) Disturbed() bool {
	return r != nil && r.Cost != nil && r.Cost.Interference != nil && r.Cost.Interference.Disturbed
}
