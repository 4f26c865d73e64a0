package questdb

import (
	"encoding/json"
	"testing"
)

// TestJSONText: /exec's dataset values read as the text the rows' layout
// parses: null as "", strings unescaped, numbers and booleans as written.
func TestJSONText(t *testing.T) {
	for raw, want := range map[string]string{
		`null`: "", `"host_1"`: "host_1", `"a\"b\\c\u00e9"`: "a\"b\\cé", `""`: "",
		`-1.25E-7`: "-1.25E-7", `9007199254740993`: "9007199254740993", `true`: "true", `"2016-01-01T00:00:00.000000Z"`: "2016-01-01T00:00:00.000000Z",
	} {
		got, err := jsonText(json.RawMessage(raw))
		if err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", raw, got, err, want)
		}
	}
	if _, err := jsonText(json.RawMessage(`"\x"`)); err == nil {
		t.Error(`"\x": no error`)
	}
}
