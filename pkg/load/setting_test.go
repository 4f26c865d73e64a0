package load

import (
	"errors"
	"fmt"
	"io"
	"testing"
)

func TestSettingError(t *testing.T) {
	flag := func(field string) string {
		return map[string]string{"Precision": "--precision", "RP": "--rp", "Consistency": "--consistency"}[field]
	}
	err := Settingf("invalid {Precision} %q (want {Precision} n, or {Unmapped})", "{RP}")
	if got, want := err.Error(), `invalid Precision "{RP}" (want Precision n, or Unmapped)`; got != want {
		t.Errorf("Error() = %s, want %s", got, want)
	}
	// Wrapped twice, once in another SettingError: every one is rendered,
	// braces from the arguments are left alone, the chain is kept.
	inner := Settingf("{RP} and {Consistency} are 1.x settings: %w", io.EOF)
	outer := fmt.Errorf("prepare: %w", Settingf("%w; or set {Precision}", inner))
	if got, want := RenderSettings(outer, flag), "prepare: --rp and --consistency are 1.x settings: EOF; or set --precision"; got != want {
		t.Errorf("RenderSettings = %s, want %s", got, want)
	}
	if !errors.Is(outer, io.EOF) {
		t.Error("the chain lost io.EOF")
	}
	if got, want := RenderSettings(err, flag), `invalid --precision "{RP}" (want --precision n, or Unmapped)`; got != want {
		t.Errorf("RenderSettings = %s, want %s", got, want)
	}
	var se *SettingError
	if !errors.As(outer, &se) || fmt.Sprint(se.Settings()) != "[Precision]" {
		t.Errorf("Settings of the outer one: %v", se)
	}
	if got := RenderSettings(errors.New("plain {RP}"), flag); got != "plain {RP}" {
		t.Errorf("a plain error was rewritten: %s", got)
	}
}

// TestCheckPGScheme: a misspelt scheme is named, not the URL (its
// password); PostgreSQL's schemes and key=value settings pass.
func TestCheckPGScheme(t *testing.T) {
	err := CheckPGScheme("{URL}", "postgress://u:secret@db/x")
	if err == nil || err.Error() != `URL: scheme "postgress://" is not PostgreSQL's: want postgres:// or postgresql:// (or key=value settings)` {
		t.Errorf("postgress://: %v", err)
	}
	for _, ok := range []string{"postgres://u@db/x", "postgresql://db", "host=db options='-c x=a://b'", ""} {
		if err := CheckPGScheme("{URL}", ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}
