package redact

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
)

// TestFlags: secrets are masked by flag name, and inside any value
// (a URL's password, password=/token= settings of a DSN or a client
// configuration string), wherever they appear.
func TestFlags(t *testing.T) {
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
	got := Flags(in)
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %q, want %q", k, got[k], w)
		}
	}
}

func TestConf(t *testing.T) {
	for in, want := range map[string]string{
		"http::addr=h:1;username=u;password=p;;w;token=t;": "http::addr=h:1;username=u;password=REDACTED;token=REDACTED;",
		"tcp::addr=h:1;username=u;token_x=a;token_y=b;":    "tcp::addr=h:1;username=u;token_x=REDACTED;token_y=REDACTED;",
		"garbage":           "REDACTED",
		"https::password=x": "https::password=REDACTED",
	} {
		if got := Conf(in); got != want {
			t.Errorf("Conf(%q) = %q, want %q", in, got, want)
		}
		if strings.Contains(in, "::") {
			if got := Value(in); got != want {
				t.Errorf("Value(%q) = %q, want %q", in, got, want)
			}
		}
	}
}

func TestURL(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://admin:quest@h:8812/qdb": "postgres://admin:REDACTED@h:8812/qdb",
		"http://u:p@h:9000":                 "http://u:REDACTED@h:9000",
		"http://u@h:9000":                   "http://u@h:9000",
		"http://u:p@h:9000/%zz":             "http://u:REDACTED@h:9000/%zz", // does not parse
	} {
		if got := URL(in); got != want {
			t.Errorf("URL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestError(t *testing.T) {
	cause := &fs.PathError{Op: "open", Path: "/x/s3cret", Err: fs.ErrNotExist}
	err := Error(cause, "", "s3cret")
	if got := err.Error(); got != "open /x/REDACTED: file does not exist" {
		t.Fatalf("message %q", got)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("the cause is lost")
	}
	if Error(cause, "other") != error(cause) {
		t.Fatal("an error without the secret should be returned as is")
	}
	if Error(nil, "s3cret") != nil {
		t.Fatal("nil")
	}
}
