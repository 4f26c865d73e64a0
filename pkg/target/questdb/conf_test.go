package questdb

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseConf(t *testing.T) {
	tests := []struct {
		in      string
		want    Conf
		wantErr string
	}{
		{in: "http::addr=localhost:9000;", want: Conf{Schema: "http", Addr: "localhost:9000", TLSVerify: true}},
		{in: "http::addr=localhost", want: Conf{Schema: "http", Addr: "localhost:9000", TLSVerify: true}},
		{in: "tcp::addr=10.0.0.1;", want: Conf{Schema: "tcp", Addr: "10.0.0.1:9009", TLSVerify: true}},
		{in: "tcps::addr=[::1]:9010;tls_verify=unsafe_off;", want: Conf{Schema: "tcps", Addr: "[::1]:9010"}},
		{
			in: "https::addr=db.example:443;username=admin;password=a;;b;;;tls_verify=on;retry_timeout=2000;request_timeout=500;request_min_throughput=1048576;auto_flush_rows=7000;",
			want: Conf{Schema: "https", Addr: "db.example:443", Username: "admin", Password: "a;b;", TLSVerify: true,
				RetryTimeout: 2 * time.Second, RequestTimeout: 500 * time.Millisecond, MinThroughput: 1 << 20, AutoFlushRows: 7000},
		},
		{in: "http::addr=h:1;token=abc=def;", want: Conf{Schema: "http", Addr: "h:1", Token: "abc=def", TLSVerify: true}},
		{in: "http::addr=h:1;password=;username=;", want: Conf{Schema: "http", Addr: "h:1", TLSVerify: true}},
		{in: "addr=localhost:9000", wantErr: `missing "schema::"`},
		{in: "udp::addr=x;", wantErr: `unknown schema "udp"`},
		{in: "http::", wantErr: "missing addr"},
		{in: "http::addr=x;bogus=1;", wantErr: `at byte 13: unknown key "bogus"`},
		{in: "http::addr=x;auto_flush_interval=1000;", wantErr: `"auto_flush_interval" does not apply`},
		{in: "http::addr=x;addr=y;", wantErr: "given twice"},
		{in: "http::addr=x;junk", wantErr: `key "junk" has no '=value'`},
		{in: "http::=x;", wantErr: "empty key"},
		{in: "http::Addr=x;", wantErr: "invalid key"},
		{in: "http::addr=x:99999;", wantErr: "bad port"},
		{in: "http::addr=:9000;", wantErr: "empty host"},
		{in: "http::addr=x;tls_verify=off;", wantErr: "want on or unsafe_off"},
		{in: "http::addr=x;retry_timeout=-1;", wantErr: "want milliseconds"},
		{in: "http::addr=x;request_timeout=1s;", wantErr: "want milliseconds"},
		{in: "http::addr=x;request_min_throughput=0;", wantErr: "bytes per second"},
		{in: "http::addr=x;auto_flush_rows=off;", wantErr: "it is the batch size"},
		{in: "http::addr=x;token=t;username=u;password=p;", wantErr: "mutually exclusive"},
		{in: "http::addr=x;username=u;", wantErr: "go together"},
		{in: "tcp::addr=x;token=t;", wantErr: "ECDSA"},
		{in: "tcp::addr=x;request_timeout=10;", wantErr: "apply to http(s) only"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseConf(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseConf(%q) error = %v, want containing %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseConf(%q): %v", tt.in, err)
			}
			if got != tt.want {
				t.Errorf("ParseConf(%q) =\n%+v\nwant\n%+v", tt.in, got, tt.want)
			}
		})
	}
}

// confString renders c back into the configuration-string form.
func confString(c Conf) string {
	esc := func(s string) string { return strings.ReplaceAll(s, ";", ";;") }
	var b strings.Builder
	b.WriteString(c.Schema + "::addr=" + esc(c.Addr) + ";")
	if c.Username != "" {
		b.WriteString("username=" + esc(c.Username) + ";password=" + esc(c.Password) + ";")
	}
	if c.Token != "" {
		b.WriteString("token=" + esc(c.Token) + ";")
	}
	if !c.TLSVerify {
		b.WriteString("tls_verify=unsafe_off;")
	}
	if c.RetryTimeout > 0 {
		b.WriteString("retry_timeout=" + itoa(c.RetryTimeout.Milliseconds()) + ";")
	}
	if c.RequestTimeout > 0 {
		b.WriteString("request_timeout=" + itoa(c.RequestTimeout.Milliseconds()) + ";")
	}
	if c.MinThroughput > 0 {
		b.WriteString("request_min_throughput=" + itoa(c.MinThroughput) + ";")
	}
	if c.AutoFlushRows > 0 {
		b.WriteString("auto_flush_rows=" + itoa(int64(c.AutoFlushRows)) + ";")
	}
	return b.String()
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// FuzzParseConf checks that the parser never panics and that whatever it
// accepts renders back to a string that parses to the same Conf.
func FuzzParseConf(f *testing.F) {
	for _, s := range []string{
		"http::addr=localhost:9000;",
		"https::addr=h:443;username=u;password=p;;q;tls_verify=unsafe_off;auto_flush_rows=10;",
		"tcp::addr=[::1]:9009",
		"http::addr=x;retry_timeout=100;request_timeout=5;request_min_throughput=9;token=;;;",
		"http::addr=x;;",
		"::",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseConf(s)
		if err != nil {
			return
		}
		if c.Addr == "" || (c.Schema != "http" && c.Schema != "https" && c.Schema != "tcp" && c.Schema != "tcps") {
			t.Fatalf("accepted %q with %+v", s, c)
		}
		again, err := ParseConf(confString(c))
		if err != nil {
			t.Fatalf("re-parse of %q (from %q): %v", confString(c), s, err)
		}
		if again != c {
			t.Fatalf("round trip of %q: %+v != %+v", s, again, c)
		}
	})
}
