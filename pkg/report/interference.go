package report

import (
	"fmt"
	"strconv"
	"strings"
)

// interferenceOf is the runs' interference: how many were disturbed and
// the most other work any of them measured (results.Interference).
func (c *Cell) interferenceOf() {
	c.InterferenceRuns, c.Disturbed, c.InterferenceMax = 0, 0, 0
	for _, r := range c.Runs {
		if r.Cost == nil || r.Cost.Interference == nil || r.Cost.Interference.NotMeasured != "" {
			continue
		}
		in := r.Cost.Interference
		c.InterferenceRuns++
		c.InterferenceMax = max(c.InterferenceMax, in.Cores)
		if in.Disturbed {
			c.Disturbed++
		}
	}
}

// hasInterference reports whether some run of t measured interference.
func (t *Table) hasInterference() bool {
	for i := range t.Cells {
		if t.Cells[i].InterferenceRuns > 0 {
			return true
		}
	}
	return false
}

var (
	interferenceColumns    = []string{"interference cores max", "disturbed runs"}
	csvInterferenceColumns = []string{"interference_cores_max", "disturbed_runs"}
)

// interferenceRow is the cell's interference columns: the most other work
// a run measured, and how many of the runs crossed the threshold.
func (c *Cell) interferenceRow(f form) []string {
	if c.InterferenceRuns == 0 {
		return []string{"not measured", "not measured"}
	}
	most := strconv.FormatFloat(c.InterferenceMax, 'f', 2, 64)
	if f == csvForm {
		return []string{most, strconv.Itoa(c.Disturbed)}
	}
	runs := fmt.Sprintf("%d of %d", c.Disturbed, len(c.Runs))
	if c.InterferenceRuns < len(c.Runs) {
		runs += fmt.Sprintf(" (%d measured)", c.InterferenceRuns)
	}
	if c.Disturbed > 0 {
		runs = "DISTURBED " + runs
	}
	return []string{most, runs}
}

// interferenceNotes says which cells had disturbed runs (their figures
// include other work on the machine), and which cells' rows/s ranges
// overlap, so that no one reads a difference the runs do not establish.
func (t *Table) interferenceNotes() []string {
	var notes []string
	for i := range t.Cells {
		c := &t.Cells[i]
		if c.Disturbed > 0 {
			notes = append(notes, fmt.Sprintf("%s: %d of %d runs disturbed (other work on the machine, up to %.2f cores): "+
				"their figures are not the database's alone; measure again on a quiet machine",
				strings.Join(c.Key, ", "), c.Disturbed, len(c.Runs), c.InterferenceMax))
		}
	}
	for i := range t.Cells {
		a := &t.Cells[i]
		if !a.OK() || len(a.Runs) < 2 {
			continue
		}
		for j := i + 1; j < len(t.Cells); j++ {
			b := &t.Cells[j]
			if !b.OK() || len(b.Runs) < 2 {
				continue
			}
			if a.RowsPerSec.Min <= b.RowsPerSec.Max && b.RowsPerSec.Min <= a.RowsPerSec.Max {
				notes = append(notes, fmt.Sprintf("rows/s of %s (%s) and %s (%s) overlap: the difference between them is not established",
					strings.Join(a.Key, ", "), rangeText(a.RowsPerSec, thousands), strings.Join(b.Key, ", "), rangeText(b.RowsPerSec, thousands)))
			}
		}
	}
	return notes
}
