// Package httpwrite is the HTTP plumbing shared by the targets that write over
// HTTP (InfluxDB, CnosDB, QuestDB ILP/HTTP): a Client built from the common
// options (URLs round-robin, TLS with InsecureSkipVerify, Basic auth,
// request timeout) and a per-worker Poster that gzip-compresses each body into
// a reused buffer, always sends a Content-Length, and reads a bounded error
// body into a reused buffer.
//
// A Poster reports a transport failure (connection refused or reset, timeout,
// a body cut short) as a load.Retryable error: the server said nothing, and
// re-sending is how every target here recovers. It never interprets the HTTP
// status: the target decides what a status means.
package httpwrite

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/redact"
)

// DefaultErrorBodyLimit bounds how much of a response body a Poster keeps.
const DefaultErrorBodyLimit = 1 << 20

// Options configure a Client.
type Options struct {
	// URLs are base URLs ("http://host:port", optionally with a path prefix).
	// Worker i uses URLs[i % len(URLs)].
	URLs []string
	// Gzip compresses request bodies (Content-Encoding: gzip) at GzipLevel
	// (1-9; 0 means gzip's default).
	Gzip      bool
	GzipLevel int
	// InsecureSkipVerify disables TLS certificate verification for https URLs.
	InsecureSkipVerify bool
	// User and Password, when User or Password is set, are sent as
	// Authorization: Basic. AlwaysBasicAuth sends the header even when both
	// are empty (CnosDB requires it).
	User, Password  string
	AlwaysBasicAuth bool
	// Authorization, when set, is sent as the Authorization header instead
	// of Basic auth (InfluxDB 2 and 3 take "Token <token>"). It is never
	// printed.
	Authorization string
	// Timeout bounds each request (0: no limit beyond the context's).
	Timeout time.Duration
	// ErrorBodyLimit bounds the bytes of a response body kept in
	// Response.Body (default DefaultErrorBodyLimit). The rest is discarded.
	ErrorBodyLimit int
	// MaxConnsPerHost is the idle connection pool size per host (default 64).
	MaxConnsPerHost int
}

// Client holds the parsed URLs and one shared http.Client.
type Client struct {
	opts  Options
	urls  []*url.URL
	hc    *http.Client
	auth  string
	limit int
}

// ValidGzipLevel reports whether level is a valid gzip level (1-9).
func ValidGzipLevel(level int) bool { return level >= gzip.BestSpeed && level <= gzip.BestCompression }

// SplitURLs splits a comma list ("http://a:8086,http://b:8086"), trimming
// spaces and dropping empty items.
func SplitURLs(list string) []string {
	var out []string
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// NewClient checks the options and builds the Client.
func NewClient(o Options) (*Client, error) {
	if len(o.URLs) == 0 {
		return nil, errors.New("no URL given")
	}
	if o.Gzip && o.GzipLevel != 0 && !ValidGzipLevel(o.GzipLevel) {
		return nil, fmt.Errorf("invalid gzip level %d (want 1-9)", o.GzipLevel)
	}
	c := &Client{opts: o, limit: o.ErrorBodyLimit}
	if c.limit <= 0 {
		c.limit = DefaultErrorBodyLimit
	}
	for _, s := range o.URLs {
		u, err := url.Parse(s)
		if err != nil {
			return nil, fmt.Errorf("invalid URL %q: %v", redact.URL(s), errors.Unwrap(err))
		}
		if u.Scheme != "http" && u.Scheme != "https" {
			return nil, fmt.Errorf("invalid URL %q: scheme must be http or https", redact.URL(s))
		}
		if u.Host == "" {
			return nil, fmt.Errorf("invalid URL %q: no host", redact.URL(s))
		}
		if u.RawQuery != "" || u.Fragment != "" {
			return nil, fmt.Errorf("invalid URL %q: no query or fragment allowed", redact.URL(s))
		}
		u.Path = strings.TrimRight(u.Path, "/")
		if u.User != nil && o.User == "" && o.Password == "" {
			// Credentials in the URL become Basic auth (and never appear in messages).
			c.opts.User = u.User.Username()
			c.opts.Password, _ = u.User.Password()
		}
		u.User = nil
		c.urls = append(c.urls, u)
	}
	switch {
	case o.Authorization != "":
		c.auth = o.Authorization
	case c.opts.User != "" || c.opts.Password != "" || o.AlwaysBasicAuth:
		c.auth = "Basic " + base64.StdEncoding.EncodeToString([]byte(c.opts.User+":"+c.opts.Password))
	}
	conns := o.MaxConnsPerHost
	if conns <= 0 {
		conns = 64
	}
	tr := &http.Transport{
		Proxy: http.ProxyFromEnvironment,
		DialContext: (&net.Dialer{
			Timeout:   10 * time.Second,
			KeepAlive: 30 * time.Second,
		}).DialContext,
		MaxIdleConns:          conns * len(c.urls),
		MaxIdleConnsPerHost:   conns,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
		DisableCompression:    true,
		TLSClientConfig:       &tls.Config{InsecureSkipVerify: o.InsecureSkipVerify}, //nolint:gosec // only when asked (InsecureSkipVerify)
	}
	c.hc = &http.Client{Transport: tr, Timeout: o.Timeout}
	return c, nil
}

// URL returns the base URL (without credentials) that worker uses.
func (c *Client) URL(worker int) string {
	return c.urls[worker%len(c.urls)].String()
}

// URLs returns every base URL (without credentials).
func (c *Client) URLs() []string {
	out := make([]string, len(c.urls))
	for i, u := range c.urls {
		out[i] = u.String()
	}
	return out
}

// Close closes idle connections.
func (c *Client) Close() { c.hc.CloseIdleConnections() }

// Request is one request: a POST unless Method says otherwise.
type Request struct {
	// Method is "POST" when empty (GET and DELETE send no body).
	Method string
	// Path is appended to the base URL ("/write"); Query is the raw query
	// string without '?' (use url.Values.Encode).
	Path, Query string
	// ContentType of the body ("text/plain; charset=utf-8" when empty).
	ContentType string
	// Accept header, when set.
	Accept string
	// Header holds further headers (a body's own Content-Encoding, a
	// protocol version); they are set after the others.
	Header map[string]string
	// Body is sent as is, or gzip-compressed when the Client has Gzip and
	// NoCompress is false. The Poster does not keep Body after Post returns.
	Body       []byte
	NoCompress bool
	// Timeout bounds this request instead of the Client's Timeout (0: the
	// Client's). Running out of it is a transport failure (retryable).
	Timeout time.Duration
}

// Response is the server's answer. Body holds at most the Client's
// ErrorBodyLimit bytes (Truncated says more were sent) and is valid until the
// Poster's next Post.
type Response struct {
	Status    int
	Header    http.Header
	Body      []byte
	Truncated bool
	URL       string // the request URL, for messages (no credentials)
}

// Poster sends requests for one worker to one base URL. It is used by one
// goroutine and reuses its compression and response buffers.
type Poster struct {
	c    *Client
	base *url.URL
	zbuf bytes.Buffer
	zw   *gzip.Writer
	rbuf []byte
	rd   bytes.Reader
}

// NewPoster returns the Poster of worker (0-based): it talks to URL(worker).
func (c *Client) NewPoster(worker int) *Poster {
	return &Poster{c: c, base: c.urls[worker%len(c.urls)]}
}

// BaseURL is the base URL this Poster talks to.
func (p *Poster) BaseURL() string { return p.base.String() }

func (p *Poster) compress(body []byte) ([]byte, error) {
	p.zbuf.Reset()
	if p.zw == nil {
		level := p.c.opts.GzipLevel
		if level == 0 {
			level = gzip.DefaultCompression
		}
		zw, err := gzip.NewWriterLevel(&p.zbuf, level)
		if err != nil {
			return nil, err
		}
		p.zw = zw
	} else {
		p.zw.Reset(&p.zbuf)
	}
	if _, err := p.zw.Write(body); err != nil {
		return nil, err
	}
	if err := p.zw.Close(); err != nil {
		return nil, err
	}
	return p.zbuf.Bytes(), nil
}

// Post sends r and returns the response. A transport failure (no HTTP
// status) is returned as a load.Retryable error, unless ctx was cancelled, in
// which case ctx's error is returned.
func (p *Poster) Post(ctx context.Context, r Request) (*Response, error) {
	parent := ctx
	if r.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.Timeout)
		defer cancel()
	}
	body := r.Body
	gz := p.c.opts.Gzip && !r.NoCompress
	if gz {
		var err error
		if body, err = p.compress(body); err != nil {
			return nil, fmt.Errorf("gzip request body: %w", err)
		}
	}
	u := *p.base
	u.Path += r.Path
	u.RawQuery = r.Query
	p.rd.Reset(body)
	method := r.Method
	if method == "" {
		method = http.MethodPost
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), &p.rd)
	if err != nil {
		return nil, err
	}
	// NewRequest does not recognise our reused *bytes.Reader's length as
	// final; set it explicitly so the body is never sent chunked.
	req.ContentLength = int64(len(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	ct := r.ContentType
	if ct == "" {
		ct = "text/plain; charset=utf-8"
	}
	req.Header.Set("Content-Type", ct)
	if r.Accept != "" {
		req.Header.Set("Accept", r.Accept)
	}
	if gz {
		req.Header.Set("Content-Encoding", "gzip")
	}
	if p.c.auth != "" {
		req.Header.Set("Authorization", p.c.auth)
	}
	for k, v := range r.Header {
		req.Header.Set(k, v)
	}
	resp, err := p.c.hc.Do(req)
	if err != nil {
		if parent.Err() != nil {
			return nil, parent.Err()
		}
		return nil, load.Retryable(fmt.Errorf("%s %s: %w", method, u.Path, stripURL(err)))
	}
	defer resp.Body.Close()
	res := &Response{Status: resp.StatusCode, Header: resp.Header, URL: u.String()}
	if p.rbuf == nil {
		p.rbuf = make([]byte, 0, 4096)
	}
	p.rbuf, res.Truncated, err = readBounded(p.rbuf[:0], resp.Body, p.c.limit)
	res.Body = p.rbuf
	if err != nil {
		if parent.Err() != nil {
			return nil, parent.Err()
		}
		// The status arrived but the body was cut: the caller still gets the status.
		return res, load.Retryable(fmt.Errorf("%s %s: reading %d response: %w", method, u.Path, resp.StatusCode, stripURL(err)))
	}
	return res, nil
}

// readBounded appends at most limit bytes of r to buf, then discards up to
// 1 MiB more so the connection can be reused.
func readBounded(buf []byte, r io.Reader, limit int) ([]byte, bool, error) {
	for len(buf) < limit {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		end := cap(buf)
		if end > limit {
			end = limit
		}
		n, err := r.Read(buf[len(buf):end])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, false, nil
		}
		if err != nil {
			return buf, false, err
		}
	}
	n, err := io.CopyN(io.Discard, r, 1<<20)
	if err == io.EOF {
		return buf, n > 0, nil
	}
	return buf, true, nil
}

// stripURL removes the URL from a *url.Error (it is already in our message).
func stripURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// Snippet returns at most n bytes of body as a single-line string for
// messages (newlines become " | ").
func Snippet(body []byte, n int) string {
	s := body
	cut := false
	if len(s) > n {
		s, cut = s[:n], true
	}
	out := strings.TrimSpace(strings.ReplaceAll(string(s), "\n", " | "))
	if cut {
		out += "..."
	}
	return out
}
