package httpwrite

import (
	"time"

	"github.com/tsload/tsload/pkg/load"
)

// Conn are the connection settings an HTTP target takes from its user, the
// same for every target that writes over HTTP to a list of base URLs
// (CnosDB, InfluxDB, VictoriaMetrics): a target's Config embeds it, and the
// loaders fill it from their HTTP flags (pkg/loadcli.HTTP). The target adds
// what only it decides (Options' AlwaysBasicAuth, Authorization,
// ErrorBodyLimit) to Options.
type Conn struct {
	// URLs are base URLs; worker i writes to URLs[i % len(URLs)].
	URLs []string
	// Gzip compresses each request body at GzipLevel (1-9).
	Gzip      bool
	GzipLevel int
	// User and Password are sent as Basic auth.
	User, Password     string
	InsecureSkipVerify bool
	// RequestTimeout bounds each request (0: DefaultRequestTimeout, the
	// loaders' --request-timeout default); a timed-out write is retried.
	RequestTimeout time.Duration
}

// DefaultRequestTimeout is what bounds one request when Conn.RequestTimeout
// is zero, in a library Config as on the command line.
const DefaultRequestTimeout = 60 * time.Second

// Validate checks the settings; errors name them as {Field} placeholders
// (load.Settingf).
func (c Conn) Validate() error {
	switch {
	case len(c.URLs) == 0:
		return load.Settingf("no URL given ({URLs})")
	case c.RequestTimeout < 0:
		return load.Settingf("invalid {RequestTimeout} %s", c.RequestTimeout)
	case c.Gzip && !ValidGzipLevel(c.GzipLevel):
		return load.Settingf("invalid {GzipLevel} %d (want 1-9)", c.GzipLevel)
	}
	return nil
}

// Options are the client options of c.
func (c Conn) Options() Options {
	timeout := c.RequestTimeout
	if timeout == 0 {
		timeout = DefaultRequestTimeout
	}
	return Options{
		URLs: c.URLs, Gzip: c.Gzip, GzipLevel: c.GzipLevel, InsecureSkipVerify: c.InsecureSkipVerify,
		User: c.User, Password: c.Password, Timeout: timeout,
	}
}
