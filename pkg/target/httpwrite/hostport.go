package httpwrite

import (
	"net"
	"net/url"
)

// HostPort returns the host:port a URL names, with the scheme's default
// port (http 80, https 443, postgres 5432) when it has none, or "" when
// the URL names no host. The cost sampler finds a local server's process
// by this address.
func HostPort(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return ""
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443", "postgres": "5432", "postgresql": "5432"}[u.Scheme]
	}
	return net.JoinHostPort(u.Hostname(), port)
}
