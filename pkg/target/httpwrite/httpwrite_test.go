package httpwrite

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/load"
)

// echo answers 200 with a description of the request it received.
func echo(t *testing.T) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var body io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
			body = zr
		}
		b, err := io.ReadAll(body)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		u, p, ok := r.BasicAuth()
		if !ok {
			u, p = "-", "-"
		}
		io.WriteString(w, strings.Join([]string{
			r.URL.Path, r.URL.RawQuery, string(b), u, p,
			strings.Join(r.TransferEncoding, ","),
			r.Header.Get("Content-Encoding"),
		}, ";"))
	}
}

func TestPost(t *testing.T) {
	srv := httptest.NewServer(echo(t))
	defer srv.Close()
	tests := []struct {
		name string
		opts Options
		req  Request
		want string
	}{
		{"plain", Options{}, Request{Path: "/write", Query: "db=x", Body: []byte("m v=1 1\n")},
			"/write;db=x;m v=1 1\n;-;-;;"},
		{"gzip", Options{Gzip: true, GzipLevel: 1}, Request{Path: "/write", Body: []byte("m v=1 1\n")},
			"/write;;m v=1 1\n;-;-;;gzip"},
		{"gzip off per request", Options{Gzip: true}, Request{Path: "/q", Body: []byte("SHOW"), NoCompress: true},
			"/q;;SHOW;-;-;;"},
		{"basic auth", Options{User: "u", Password: "secret"}, Request{Path: "/a"},
			"/a;;;u;secret;;"},
		{"always basic", Options{AlwaysBasicAuth: true}, Request{Path: "/a"},
			"/a;;;;;;"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.URLs = []string{srv.URL + "/"}
			c, err := NewClient(tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			p := c.NewPoster(0)
			for i := 0; i < 2; i++ { // the second call reuses the buffers
				res, err := p.Post(context.Background(), tc.req)
				if err != nil {
					t.Fatal(err)
				}
				if res.Status != 200 || string(res.Body) != tc.want {
					t.Fatalf("got %d %q, want 200 %q", res.Status, res.Body, tc.want)
				}
			}
		})
	}
}

func TestCredentialsInURL(t *testing.T) {
	srv := httptest.NewServer(echo(t))
	defer srv.Close()
	c, err := NewClient(Options{URLs: []string{strings.Replace(srv.URL, "http://", "http://bob:pw@", 1)}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(c.URL(0), "pw") {
		t.Fatalf("URL(0) = %q shows the password", c.URL(0))
	}
	res, err := c.NewPoster(0).Post(context.Background(), Request{Path: "/x"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res.Body), ";bob;pw;") {
		t.Fatalf("credentials not sent as Basic auth: %q", res.Body)
	}
}

func TestRoundRobin(t *testing.T) {
	c, err := NewClient(Options{URLs: SplitURLs(" http://a:1, http://b:2/p/ ,,http://c:3")})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"http://a:1", "http://b:2/p", "http://c:3", "http://a:1"}
	for i, w := range want {
		if got := c.NewPoster(i).BaseURL(); got != w {
			t.Errorf("worker %d: %q, want %q", i, got, w)
		}
	}
}

func TestNewClientErrors(t *testing.T) {
	tests := []struct {
		opts Options
		want string
	}{
		{Options{}, "no URL"},
		{Options{URLs: []string{"ftp://x"}}, "scheme must be http or https"},
		{Options{URLs: []string{"http://"}}, "no host"},
		{Options{URLs: []string{"http://h:1?db=x"}}, "no query"},
		{Options{URLs: []string{"http://u:secret@h:1 x"}}, "invalid URL"},
		{Options{URLs: []string{"http://h:1"}, Gzip: true, GzipLevel: 10}, "invalid gzip level 10"},
	}
	for _, tc := range tests {
		_, err := NewClient(tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.opts, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("error shows the password: %v", err)
		}
	}
}

func TestBoundedBody(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 5000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(400)
		w.Write(big[:len(r.URL.Query().Get("n"))*1000])
	}))
	defer srv.Close()
	c, err := NewClient(Options{URLs: []string{srv.URL}, ErrorBodyLimit: 3000})
	if err != nil {
		t.Fatal(err)
	}
	p := c.NewPoster(0)
	for _, tc := range []struct {
		n         string
		len       int
		truncated bool
	}{{"nnnnn", 3000, true}, {"nnn", 3000, false}, {"n", 1000, false}, {"", 0, false}} {
		res, err := p.Post(context.Background(), Request{Query: "n=" + tc.n})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != 400 || len(res.Body) != tc.len || res.Truncated != tc.truncated {
			t.Errorf("n=%q: status %d, %d bytes, truncated %v; want 400, %d, %v",
				tc.n, res.Status, len(res.Body), res.Truncated, tc.len, tc.truncated)
		}
	}
}

func TestNetworkErrorIsRetryable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	c, err := NewClient(Options{URLs: []string{url}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.NewPoster(0).Post(context.Background(), Request{Path: "/write", Body: []byte("x")})
	if err == nil || !load.IsRetryable(err) {
		t.Fatalf("err = %v, want a retryable error", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = c.NewPoster(0).Post(ctx, Request{Path: "/write"})
	if !errors.Is(err, context.Canceled) || load.IsRetryable(err) {
		t.Fatalf("cancelled: err = %v, want context.Canceled, not retryable", err)
	}
}

func TestTLS(t *testing.T) {
	srv := httptest.NewTLSServer(echo(t))
	defer srv.Close()
	for _, insecure := range []bool{false, true} {
		c, err := NewClient(Options{URLs: []string{srv.URL}, InsecureSkipVerify: insecure})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.NewPoster(0).Post(context.Background(), Request{Path: "/x"})
		if insecure && err != nil {
			t.Errorf("insecure: %v", err)
		}
		if !insecure && (err == nil || !strings.Contains(err.Error(), "certificate")) {
			t.Errorf("verified TLS against a self-signed server: err = %v, want a certificate error", err)
		}
	}
}

func BenchmarkPostGzip(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.WriteHeader(204)
	}))
	defer srv.Close()
	c, err := NewClient(Options{URLs: []string{srv.URL}, Gzip: true, GzipLevel: 1})
	if err != nil {
		b.Fatal(err)
	}
	body := bytes.Repeat([]byte("cpu,hostname=host_1,region=eu usage_user=1.5,usage_idle=99.25 1600000000000000000\n"), 5000)
	p := c.NewPoster(0)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := p.Post(context.Background(), Request{Path: "/write", Body: body}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(5000*b.N)/b.Elapsed().Seconds(), "rows/s")
}

// TestAuthorizationAndMethod: a token header replaces Basic auth (even when
// the URL carries a user), and GET and DELETE requests go out as such.
func TestAuthorizationAndMethod(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization"))
		w.WriteHeader(204)
	}))
	defer srv.Close()
	c, err := NewClient(Options{URLs: []string{strings.Replace(srv.URL, "://", "://u:p@", 1)}, Authorization: "Token s3cr3t"})
	if err != nil {
		t.Fatal(err)
	}
	p := c.NewPoster(0)
	for _, m := range []string{"", "GET", "DELETE"} {
		if res, err := p.Post(context.Background(), Request{Method: m, Path: "/api/v2/buckets"}); err != nil || res.Status != 204 {
			t.Fatalf("%q: %v %+v", m, err, res)
		}
	}
	want := []string{"POST /api/v2/buckets Token s3cr3t", "GET /api/v2/buckets Token s3cr3t", "DELETE /api/v2/buckets Token s3cr3t"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// TestRequestTimeout: a request's own Timeout cuts a slow answer short as a
// retryable transport failure, not as the caller's cancellation.
func TestRequestTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	c, err := NewClient(Options{URLs: []string{srv.URL}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// The request's own deadline ends it: without one, Post would wait
	// for the server until the test's -timeout.
	_, err = c.NewPoster(0).Post(context.Background(), Request{Path: "/write", Body: []byte("x"), Timeout: 50 * time.Millisecond})
	if !load.IsRetryable(err) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v, want a retryable deadline", err)
	}
}
