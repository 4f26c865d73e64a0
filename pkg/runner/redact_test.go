package runner

import "testing"

// TestRedactValues: secrets are masked by flag name, and inside any value
// (a URL's password, password=/token= settings of a DSN or a client
// configuration string), wherever they appear.
func TestRedactValues(t *testing.T) {
	in := map[string]string{
		"password":   "pw",
		"token":      "",
		"postgres":   "postgres://u:s3cret@db:5432/x?sslmode=disable",
		"pg":         "postgresql://admin:quest@127.0.0.1:8812/qdb",
		"urls":       "http://h1:8086,https://u:s3cret@h2:8086/p,http://h3",
		"dsn":        "host=db port=5432 user=u password=s3cret dbname=x",
		"dsn-quoted": "host=db password='s3 cret' user=u",
		"conf":       "http::addr=h:9000;username=admin;password=s3cret;token=t0k;",
		"query":      "postgres://db/x?user=u&password=s3cret",
		"user-only":  "http://admin@h:8086",
		"plain-urls": "http://h1:8086,http://h2:8086",
		"batch-size": "5000",
	}
	want := map[string]string{
		"password":   "REDACTED",
		"token":      "",
		"postgres":   "postgres://u:REDACTED@db:5432/x?sslmode=disable",
		"pg":         "postgresql://admin:REDACTED@127.0.0.1:8812/qdb",
		"urls":       "http://h1:8086,https://u:REDACTED@h2:8086/p,http://h3",
		"dsn":        "host=db port=5432 user=u password=REDACTED dbname=x",
		"dsn-quoted": "host=db password=REDACTED user=u",
		"conf":       "http::addr=h:9000;username=admin;password=REDACTED;token=REDACTED;",
		"query":      "postgres://db/x?user=u&password=REDACTED",
		"user-only":  "http://admin@h:8086",
		"plain-urls": "http://h1:8086,http://h2:8086",
		"batch-size": "5000",
	}
	got := Redact(in)
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %q, want %q", k, got[k], w)
		}
	}
}
