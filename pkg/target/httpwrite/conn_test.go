package httpwrite

import (
	"testing"
	"time"
)

// TestConn: Validate names the setting at fault (by its field name
// here; a loader names its flag), and Options carries every setting over
// (RequestTimeout as the client's Timeout).
func TestConn(t *testing.T) {
	ok := Conn{URLs: []string{"http://a:1"}, Gzip: true, GzipLevel: 9}
	for _, tc := range []struct {
		c    Conn
		want string
	}{
		{ok, ""},
		{Conn{}, "no URL given (URLs)"},
		{Conn{URLs: ok.URLs, Gzip: true}, "invalid GzipLevel 0 (want 1-9)"},
		{Conn{URLs: ok.URLs, GzipLevel: 12}, ""}, // the level of a body never gzipped is not looked at
	} {
		err := tc.c.Validate()
		if got := ""; err != nil {
			got = err.Error()
			if got != tc.want {
				t.Errorf("%+v: %q, want %q", tc.c, got, tc.want)
			}
		} else if tc.want != "" {
			t.Errorf("%+v: no error, want %q", tc.c, tc.want)
		}
	}
	c := Conn{URLs: []string{"https://a:1"}, Gzip: true, GzipLevel: 3, User: "u", Password: "p", InsecureSkipVerify: true, RequestTimeout: time.Minute}
	o := c.Options()
	if o.URLs[0] != c.URLs[0] || !o.Gzip || o.GzipLevel != 3 || o.User != "u" || o.Password != "p" || !o.InsecureSkipVerify || o.Timeout != time.Minute {
		t.Fatalf("Options() = %+v", o)
	}
}
