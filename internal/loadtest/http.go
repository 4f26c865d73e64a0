package loadtest

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strings"
	"testing"
)

// HTTP sends method url with body, mod (when not nil) adjusting the
// request first, on a connection of its own (a kept-alive one that the
// server closes while idle fails a POST with EOF, which the client does
// not retry), and returns the status and the body. A request that gets no
// answer fails t.
func HTTP(t testing.TB, method, url, body string, mod func(*http.Request)) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if mod != nil {
		mod(req)
	}
	resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
	if err != nil {
		t.Fatalf("%s %s %q: %v", method, url, body, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// Gzip is s gzip-compressed, as a request body that says
// Content-Encoding: gzip carries it.
func Gzip(s string) string {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	io.WriteString(zw, s)
	zw.Close()
	return b.String()
}
