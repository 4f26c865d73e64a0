package questdb

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/tsload/tsload/pkg/load"
)

// Conf is a parsed QuestDB client configuration string, the form QuestDB's
// official clients take:
//
//	http::addr=localhost:9000;username=admin;password=quest;auto_flush_rows=10000;
//
// Only the keys that apply to a loader of pre-serialised ILP are accepted;
// see ParseConf. A zero duration or count means "not set". Its fields are
// named after the string's keys (username, tls_verify); Config's follow
// the other targets (User, InsecureSkipVerify).
type Conf struct {
	Schema   string // http, https, tcp or tcps
	Addr     string // host:port (default port 9000 for http(s), 9009 for tcp(s))
	Username string
	Password string
	Token    string
	// TLSVerify is false only for tls_verify=unsafe_off.
	TLSVerify bool
	// RetryTimeout bounds the re-sends of one batch (retry_timeout, ms).
	RetryTimeout time.Duration
	// RequestTimeout is the base time allowed for one request (request_timeout, ms).
	RequestTimeout time.Duration
	// MinThroughput extends the request timeout by len(body)/MinThroughput
	// seconds (request_min_throughput, bytes/s).
	MinThroughput int64
	// AutoFlushRows is the batch size (auto_flush_rows).
	AutoFlushRows int
	// ProtocolVersion is protocol_version as given (auto, 1, 2, 3), or "".
	ProtocolVersion string
}

// HTTP reports whether the configuration uses ILP over HTTP(S).
func (c *Conf) HTTP() bool { return c.Schema == "http" || c.Schema == "https" }

// TLS reports whether the configuration uses TLS.
func (c *Conf) TLS() bool { return c.Schema == "https" || c.Schema == "tcps" }

// ignoredKeys are keys of the official clients that have no meaning for a
// loader of already-serialised, already-batched ILP. They are refused with
// an explanation rather than silently dropped (in load.Settingf's terms:
// no % verbs).
var ignoredKeys = map[string]string{
	"auto_flush":          "batches are cut by {BatchSize} (or auto_flush_rows)",
	"auto_flush_interval": "batches are cut by row count only ({BatchSize})",
	"auto_flush_bytes":    "batches are cut by row count only ({BatchSize})",
	"init_buf_size":       "buffers are sized by the batches",
	"max_buf_size":        "buffers are sized by the batches",
	"max_name_len":        "names come from the input as written",
	"tls_roots":           "custom CA files are not supported; use the system roots or tls_verify=unsafe_off",
	"tls_roots_password":  "custom CA files are not supported",
	"tls_ca":              "the system roots are always used",
	"token_x":             "ILP/TCP ECDSA authentication is not supported",
	"token_y":             "ILP/TCP ECDSA authentication is not supported",
	"bind_interface":      "not supported",
}

// ParseConf parses a QuestDB client configuration string:
// schema "::" then key=value pairs each ended by ';' (the last ';' may be
// omitted); ";;" in a value is a literal ';'. Schemas: http, https, tcp,
// tcps. Keys: addr, username, password, token, tls_verify (on|unsafe_off),
// retry_timeout (ms), request_timeout (ms), request_min_throughput
// (bytes/s), auto_flush_rows (rows; "off" is refused), protocol_version
// (auto, 1, 2, 3). Unknown keys and keys
// of the official clients that do not apply here are errors.
func ParseConf(s string) (Conf, error) {
	c := Conf{TLSVerify: true}
	sch, rest, ok := strings.Cut(s, "::")
	if !ok {
		return c, fmt.Errorf("questdb conf: missing \"schema::\" prefix (want e.g. http::addr=localhost:9000;)")
	}
	switch sch {
	case "http", "https", "tcp", "tcps":
		c.Schema = sch
	default:
		return c, fmt.Errorf("questdb conf: unknown schema %q (want http, https, tcp or tcps)", sch)
	}
	seen := map[string]bool{}
	pos := len(sch) + 2
	for len(rest) > 0 {
		eq := strings.IndexByte(rest, '=')
		if eq < 0 {
			return c, fmt.Errorf("questdb conf: at byte %d: key %q has no '=value'", pos, rest)
		}
		key := rest[:eq]
		if key == "" {
			return c, fmt.Errorf("questdb conf: at byte %d: empty key", pos)
		}
		for i := 0; i < len(key); i++ {
			ch := key[i]
			if !(ch >= 'a' && ch <= 'z' || ch >= '0' && ch <= '9' || ch == '_') {
				return c, fmt.Errorf("questdb conf: at byte %d: invalid key %q (want lower-case letters, digits, '_')", pos, key)
			}
		}
		// The value runs to the first ';' not doubled.
		var val strings.Builder
		i := eq + 1
		for {
			if i >= len(rest) {
				break
			}
			if rest[i] == ';' {
				if i+1 < len(rest) && rest[i+1] == ';' {
					val.WriteByte(';')
					i += 2
					continue
				}
				break
			}
			val.WriteByte(rest[i])
			i++
		}
		if i < len(rest) {
			i++ // the terminating ';'
		}
		if seen[key] {
			return c, fmt.Errorf("questdb conf: at byte %d: key %q given twice", pos, key)
		}
		seen[key] = true
		if err := c.set(key, val.String()); err != nil {
			return c, fmt.Errorf("questdb conf: at byte %d: %w", pos, err)
		}
		pos += i
		rest = rest[i:]
	}
	if c.Addr == "" {
		return c, fmt.Errorf("questdb conf: missing addr (e.g. %s::addr=localhost:%s;)", c.Schema, c.defaultPort())
	}
	if !c.HTTP() {
		if c.Token != "" || c.Password != "" {
			return c, fmt.Errorf("questdb conf: %s: token/password authentication over ILP/TCP (ECDSA) is not supported; use http or https", c.Schema)
		}
		if c.RequestTimeout > 0 || c.MinThroughput > 0 || c.RetryTimeout > 0 {
			return c, fmt.Errorf("questdb conf: %s: retry_timeout, request_timeout and request_min_throughput apply to http(s) only", c.Schema)
		}
	}
	if c.Token != "" && (c.Username != "" || c.Password != "") {
		return c, fmt.Errorf("questdb conf: token and username/password are mutually exclusive")
	}
	if (c.Username == "") != (c.Password == "") && c.HTTP() {
		return c, fmt.Errorf("questdb conf: username and password go together")
	}
	return c, nil
}

func (c *Conf) defaultPort() string {
	if c.HTTP() {
		return "9000"
	}
	return "9009"
}

func (c *Conf) set(key, val string) error {
	if why, ok := ignoredKeys[key]; ok {
		return load.Settingf("key %q does not apply to load_questdb: "+why, key)
	}
	ms := func() (time.Duration, error) {
		n, err := strconv.ParseInt(val, 10, 64)
		if err != nil || n <= 0 || n > int64(24*time.Hour/time.Millisecond) {
			return 0, fmt.Errorf("%s=%q: want milliseconds, 1..86400000", key, val)
		}
		return time.Duration(n) * time.Millisecond, nil
	}
	var err error
	switch key {
	case "addr":
		host, port, e := net.SplitHostPort(val)
		if e != nil {
			if strings.Contains(e.Error(), "missing port") {
				host, port = val, c.defaultPort()
			} else {
				return fmt.Errorf("addr=%q: %v", val, e)
			}
		}
		if host == "" {
			return fmt.Errorf("addr=%q: empty host", val)
		}
		if p, e := strconv.Atoi(port); e != nil || p < 1 || p > 65535 {
			return fmt.Errorf("addr=%q: bad port %q", val, port)
		}
		c.Addr = net.JoinHostPort(host, port)
		if h, _, e := net.SplitHostPort(c.Addr); e != nil || h != host {
			return fmt.Errorf("addr=%q: bad host %q", val, host)
		}
	case "username":
		c.Username = val
	case "password":
		c.Password = val
	case "token":
		c.Token = val
	case "tls_verify":
		switch val {
		case "on":
			c.TLSVerify = true
		case "unsafe_off":
			c.TLSVerify = false
		default:
			return fmt.Errorf("tls_verify=%q: want on or unsafe_off", val)
		}
	case "retry_timeout":
		c.RetryTimeout, err = ms()
	case "request_timeout":
		c.RequestTimeout, err = ms()
	case "request_min_throughput":
		n, e := strconv.ParseInt(val, 10, 64)
		if e != nil || n <= 0 {
			return fmt.Errorf("request_min_throughput=%q: want bytes per second > 0", val)
		}
		c.MinThroughput = n
	case "protocol_version":
		if _, err := ParseProtocolVersion(val); err != nil {
			return fmt.Errorf("protocol_version=%q: %v", val, err)
		}
		c.ProtocolVersion = val
	case "auto_flush_rows":
		n, e := strconv.Atoi(val)
		if e != nil || n <= 0 || n > 100_000_000 {
			return fmt.Errorf("auto_flush_rows=%q: want a row count 1..100000000 (it is the batch size)", val)
		}
		c.AutoFlushRows = n
	default:
		return fmt.Errorf("unknown key %q (supported: addr, username, password, token, tls_verify, retry_timeout, request_timeout, request_min_throughput, auto_flush_rows, protocol_version)", key)
	}
	return err
}
