package httpwrite

import "testing"

func TestHostPort(t *testing.T) {
	for raw, want := range map[string]string{
		"http://127.0.0.1:9000":      "127.0.0.1:9000",
		"http://localhost":           "localhost:80",
		"https://db.example":         "db.example:443",
		"postgres://u@127.0.0.1/qdb": "127.0.0.1:5432",
		"http://[::1]:8086/":         "[::1]:8086",
		"":                           "",
		"not a url":                  "",
		"http://%zz":                 "",
	} {
		if got := HostPort(raw); got != want {
			t.Errorf("HostPort(%q) = %q, want %q", raw, got, want)
		}
	}
}
