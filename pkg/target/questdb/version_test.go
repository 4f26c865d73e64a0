package questdb

import (
	"context"
	"strings"
	"testing"
)

// The results files name the server as it names itself, over both query paths.
func TestIntegrationServerVersion(t *testing.T) {
	s := server(t)
	for _, pg := range []bool{true, false} {
		tg := newTarget(t, s, HTTP, pg)
		v, err := tg.ServerVersion(context.Background())
		if err != nil {
			t.Fatalf("pg=%v: %v", pg, err)
		}
		if !strings.HasPrefix(v, "QuestDB ") || strings.Contains(v, "Build Information") {
			t.Errorf("pg=%v: version %q", pg, v)
		}
	}
}
