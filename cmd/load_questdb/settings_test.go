package main

import (
	"testing"

	"github.com/tsload/tsload/internal/loadtest"
)

// TestHelpTellsFormats: --help offers the formats the target takes, no more.
func TestHelpTellsFormats(t *testing.T) { loadtest.HelpTellsFormats(t, spec()) }
