package influx

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// v2Fake answers /api/v2/write with the given answers in turn (the last
// one repeats) and records each request's body and query.
type v2Fake struct {
	mu      sync.Mutex
	answers []v2Answer
	bodies  []string
	queries []string
}

type v2Answer struct {
	status int
	body   string
	header map[string]string
}

func (f *v2Fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, _ := io.ReadAll(r.Body)
	f.bodies = append(f.bodies, string(b))
	f.queries = append(f.queries, r.URL.Path+"?"+r.URL.RawQuery)
	a := f.answers[min(len(f.bodies), len(f.answers))-1]
	for k, v := range a.header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(a.status)
	io.WriteString(w, a.body)
}

// The answers are InfluxDB 2.7.12's (http/write_handler.go and the
// integration tests against the real server check them again).
func TestWriteStatusV2(t *testing.T) {
	data := "m,h=a v=1 1\nm,h=b v=oops x 2\n\nm,h=c v=3 3\n"
	parseErr := `{"code":"invalid","message":"unable to parse 'm,h=b v=oops x 2': invalid boolean"}`
	tests := []struct {
		name      string
		answers   []v2Answer
		rows      int
		rejected  []load.Rejection
		retryable bool
		errText   string
		resent    string // the body of the second request
	}{
		{"ok", []v2Answer{{204, "", nil}}, 3, nil, false, "", ""},
		{"unparsable line: the rest re-sent", []v2Answer{{400, parseErr, nil}, {204, "", nil}}, 2,
			[]load.Rejection{{Line: 11, Reason: "unable to parse: invalid boolean"}}, false, "", "m,h=a v=1 1\n\nm,h=c v=3 3\n"},
		{"re-send refused", []v2Answer{{400, parseErr, nil}, {400, `{"code":"invalid","message":"x"}`, nil}}, 0, nil, false, "refused the batch without its 1 unparsable lines too", ""},
		{"re-send busy", []v2Answer{{400, parseErr, nil}, {503, `{"code":"unavailable","message":"busy"}`, nil}}, 0, nil, true, "server busy (503 busy)", ""},
		{"storage partial", []v2Answer{{422, `{"code":"unprocessable entity","message":"failure writing points to database: partial write: field type conflict: input field \"v\" on measurement \"m\" is type float, already exists as type string dropped=2"}`, nil}}, 1, nil, false, "", ""},
		{"bad precision", []v2Answer{{400, `{"code":"invalid","message":"invalid precision; valid precision units are ns, us, ms, and s"}`, nil}}, 0, nil, false, "server refused the batch (400 invalid precision", ""},
		{"unauthorized", []v2Answer{{401, `{"code":"unauthorized","message":"unauthorized access"}`, nil}}, 0, nil, false, "authentication failed (401 unauthorized access): check the token", ""},
		{"forbidden", []v2Answer{{403, `{"code":"forbidden","message":"insufficient permissions for write"}`, nil}}, 0, nil, false, "authentication failed (403 insufficient permissions for write)", ""},
		{"no bucket", []v2Answer{{404, `{"code":"not found","message":"bucket \"nope\" not found"}`, nil}}, 0, nil, false, `bucket "nope" not found (404): create the bucket with CreateDB`, ""},
		{"too large", []v2Answer{{413, `{"code":"request too large","message":"unable to read data: points batch is too large"}`, nil}}, 0, nil, false, "request body too large (413 unable to read data: points batch is too large): lower BatchSize", ""},
		{"cache full", []v2Answer{{500, `{"code":"internal error","message":"unexpected error writing points to database: engine: cache-max-memory-size exceeded: (1048950/1048576)"}`, nil}}, 0, nil, true, "server cache full", ""},
		{"timeout", []v2Answer{{500, `{"code":"internal error","message":"unexpected error writing points to database: timeout"}`, nil}}, 0, nil, true, "server write timeout", ""},
		{"other 500", []v2Answer{{500, `{"code":"internal error","message":"boom"}`, nil}}, 0, nil, false, "server answered 500: boom", ""},
		{"429 retry-after", []v2Answer{{429, `{"code":"too many requests","message":"slow down"}`, map[string]string{"Retry-After": "7"}}}, 0, nil, true, "server busy (429 slow down); it asks to retry after 7s", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &v2Fake{answers: tc.answers}
			srv := httptest.NewServer(f)
			defer srv.Close()
			tg, err := New(Config{API: APIv2, Conn: httpwrite.Conn{URLs: []string{srv.URL}}, DBName: "db1", Org: "o", Precision: "ms", Token: "t"})
			if err != nil {
				t.Fatal(err)
			}
			w, err := tg.NewWriter(context.Background(), 0)
			if err != nil {
				t.Fatal(err)
			}
			in := data
			if tc.name == "storage partial" {
				// The storage layer's refusals come after a clean parse.
				in = "m,h=a v=1 1\nm,h=b v=2 2\n\nm,h=c v=3 3\n"
			}
			ack, err := w.Write(context.Background(), batch(in, 10))
			if q := f.queries[0]; q != "/api/v2/write?bucket=db1&org=o&precision=ms" {
				t.Fatalf("query %q", q)
			}
			if tc.errText != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errText) || load.IsRetryable(err) != tc.retryable {
					t.Fatalf("err = %v (retryable %v), want %q (retryable %v)", err, load.IsRetryable(err), tc.errText, tc.retryable)
				}
				if tc.name == "429 retry-after" && load.RetryDelay(err) != 7*time.Second {
					t.Fatalf("retry delay %s", load.RetryDelay(err))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ack.Rows != tc.rows || ack.Rows+ack.Dropped != 3 {
				t.Fatalf("ack %+v, want %d rows", ack, tc.rows)
			}
			if tc.rejected != nil && (len(ack.Rejected) != 1 || ack.Rejected[0] != tc.rejected[0]) {
				t.Fatalf("rejected %+v, want %+v", ack.Rejected, tc.rejected)
			}
			if tc.resent != "" && (len(f.bodies) != 2 || f.bodies[1] != tc.resent) {
				t.Fatalf("re-sent %q, want %q", f.bodies[1:], tc.resent)
			}
		})
	}
}

func TestRetryAfterHeader(t *testing.T) {
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for v, want := range map[string]time.Duration{
		"3": 3 * time.Second, " 0 ": 0, "Tue, 01 Dec 2026 00:00:09 GMT": 9 * time.Second,
		"Mon, 30 Nov 2026 23:00:00 GMT": 0, "99999": time.Hour,
	} {
		if d, ok := retryAfter(v, now); !ok || d != want {
			t.Errorf("%q: %s %v, want %s", v, d, ok, want)
		}
	}
	for _, v := range []string{"", "soon", "-1"} {
		if _, ok := retryAfter(v, now); ok {
			t.Errorf("%q parsed", v)
		}
	}
}

func TestConfigPerAPI(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{API: "v4"}, `invalid API "v4"`},
		{Config{API: APIv2}, "give the organization (Org)"},
		{Config{API: APIv2, Org: "o", RP: "r"}, "RP and Consistency are InfluxDB 1.x settings"},
		{Config{API: APIv3, Precision: "h"}, "Precision h is InfluxDB 1.x only"},
		{Config{API: APIv1, AcceptPartial: true}, "AcceptPartial and NoSync are InfluxDB 3 settings"},
		{Config{API: APIv3, Bucket: "b"}, "Bucket is an InfluxDB 2 setting"},
		{Config{Token: "t", Conn: httpwrite.Conn{User: "u"}}, "give a token (Token) or a user and password (User, Password), not both"},
	} {
		c := tc.cfg
		c.URLs = []string{"http://x"}
		if c.Precision == "" {
			c.Precision = "n"
		}
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want %q", tc.cfg, err, tc.want)
		}
	}
}

// TestDetect: the API comes from /ping's X-Influxdb-Version as each version
// sends it, or from /health when a proxy dropped the header.
func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		name, version string
		ping          int
		health        string
		want          API
	}{
		{"1.6.7", "1.6.7", 204, "", APIv1},
		{"2.7.12", "v2.7.12", 204, "", APIv2},
		{"3 core", "3.10.0", 200, "", APIv3},
		{"no header, 2.x health", "", 204, `{"name":"influxdb","message":"ready for queries and writes","status":"pass","checks":[],"version":"v2.7.12","commit":"x"}`, APIv2},
		{"no header, 3.x health", "", 200, "OK", APIv3},
		{"unknown", "", 204, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case "/ping":
					if tc.version != "" {
						w.Header().Set("X-Influxdb-Version", tc.version)
					}
					w.WriteHeader(tc.ping)
				case "/health":
					if tc.health == "" {
						w.WriteHeader(404)
						return
					}
					io.WriteString(w, tc.health)
				}
			}))
			defer srv.Close()
			tg, _ := New(Config{Conn: httpwrite.Conn{URLs: []string{srv.URL}}, Precision: "n", Org: "o", Bucket: map[bool]string{true: "b"}[tc.want == APIv2]})
			api, err := tg.API(context.Background())
			if tc.want == "" {
				if err == nil || !strings.Contains(err.Error(), "name it with API v1, v2 or v3") {
					t.Fatalf("api %q err %v", api, err)
				}
				return
			}
			if err != nil || api != tc.want {
				t.Fatalf("api %q err %v, want %s", api, err, tc.want)
			}
		})
	}
}

// FuzzFluxCount feeds arbitrary Flux CSV answers to the count reader: it
// never panics, and a well-formed answer sums its rows.
func FuzzFluxCount(f *testing.F) {
	f.Add(",result,table,_field\r\n,_result,0,1234\r\n\r\n")
	f.Add(",result,table,_field\r\n,_result,0,1\r\n,_result,1,2\r\n")
	f.Add("")
	f.Add(",error,reference\r\n,boom,\r\n")
	f.Fuzz(func(t *testing.T, body string) {
		sumFluxColumn([]byte(body), "_field")
	})
	if n, err := sumFluxColumn([]byte(",result,table,_field\r\n,_result,0,1\r\n,_result,1,2\r\n\r\n,result,table,_field\r\n,_result,2,40\r\n"), "_field"); err != nil || n != 43 {
		f.Fatalf("sum %d %v, want 43", n, err)
	}
}
