package questdb

import (
	"net"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// QuestDB's default ports and PG-wire credentials (server.conf's
// http.net.bind.to, line.tcp.net.bind.to, pg.net.bind.to, pg.user,
// pg.password).
const (
	DefaultHTTPPort = "9000"
	DefaultTCPPort  = "9009"
	DefaultPGPort   = "8812"
	DefaultHost     = "127.0.0.1"
)

// Host returns the host the writes of cfg go to: the HTTP URL's, or the
// ILP/TCP address's with the TCP transport ("" when it has none).
func (cfg *Config) Host() string {
	if cfg.Transport == TCP {
		h, _, err := net.SplitHostPort(cfg.TCPAddr)
		if err != nil {
			return ""
		}
		return h
	}
	hp := httpwrite.HostPort(cfg.URL)
	h, _, err := net.SplitHostPort(hp)
	if err != nil {
		return ""
	}
	return h
}

// oneServer refuses a configuration whose writes and queries (DDL, counts,
// verification) go to different hosts: a load verified against another
// server than the one it wrote proves nothing. Names of one loopback
// (localhost, 127.0.0.1, ::1) are one host; other names are compared as
// written, since a server reached by two names cannot be told from two
// servers without asking them.
func oneServer(cfg Config) error {
	type endpoint struct{ setting, host string }
	var eps []endpoint
	if cfg.Transport == TCP {
		eps = append(eps, endpoint{"{TCPAddr}", cfg.Host()})
	}
	if cfg.URL != "" {
		h, _, _ := net.SplitHostPort(httpwrite.HostPort(cfg.URL))
		eps = append(eps, endpoint{"{URL}", h})
	}
	if cfg.PG != "" {
		if err := load.CheckPGScheme("questdb: PG-wire URL {PG}", cfg.PG); err != nil {
			return err
		}
		pc, err := pgx.ParseConfig(cfg.PG)
		if err != nil {
			return load.Settingf("questdb: PG-wire URL {PG}: %w", err)
		}
		eps = append(eps, endpoint{"{PG}", pc.Host})
	}
	for _, e := range eps[1:] {
		if !sameHost(eps[0].host, e.host) {
			return load.Settingf("questdb: the load would write to host %q ("+eps[0].setting+") and run its SQL (tables, counts, verification) on host %q ("+e.setting+"): "+
				"verification must read the server that was written; name one server in both (without {PG}, the SQL goes to /exec of {URL})", eps[0].host, e.host)
		}
	}
	return nil
}

// sameHost reports whether a and b name one host: equal ignoring case, or
// both a loopback.
func sameHost(a, b string) bool {
	return strings.EqualFold(a, b) || loopback(a) && loopback(b)
}

func loopback(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
