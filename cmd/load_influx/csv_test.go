package main

import (
	"testing"

	"github.com/tsload/tsload/internal/owndatatest"
)

// TestCSV loads CSV into the real InfluxDB 1.x as lines (owndatatest.CSVSuite).
func TestCSV(t *testing.T) {
	url := influxURL(t)
	owndatatest.CSVSuite{Spec: spec(), Args: func(t *testing.T, _ string) []string {
		return []string{"--urls", url, "--db-name", influxDB(t, url)}
	}}.Run(t, "csv_")
}

// TestTSBSLines loads a file of TSBS's own generator (its line protocol).
func TestTSBSLines(t *testing.T) {
	url := influxURL(t)
	owndatatest.TSBSLines(t, spec(), "", "--urls", url, "--db-name", influxDB(t, url))
}
