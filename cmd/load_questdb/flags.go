package main

import (
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/loadcli"
	"github.com/tsload/tsload/pkg/runner"
	"github.com/tsload/tsload/pkg/target/httpwrite"
	"github.com/tsload/tsload/pkg/target/questdb"
)

// Flag names of load_questdb (the HTTP ones are loadcli's).
const (
	flagTransport, flagConf          = "transport", "conf"
	flagHTTPURL, flagTCPAddr, flagPG = "http-url", "tcp-addr", "pg"
	flagMinThroughput                = "request-min-throughput"
	flagDedup, flagUseCase           = "dedup", "use-case" // tables
	flagWALTimeout                   = "wal-timeout"       // verification
	flagSerializationPass            = "serialization-pass"
	flagProtocolVersion              = "protocol-version"
)

// settings maps questdb.Config fields to their flags (errors name them).
var settings = map[string]string{
	"Transport": flagTransport, "URL": flagHTTPURL, "TCPAddr": flagTCPAddr, "PG": flagPG,
	"MinThroughput": flagMinThroughput, "Dedup": flagDedup, "UseCase": flagUseCase, "WALTimeout": flagWALTimeout,
	"ProtocolVersion": flagProtocolVersion,
}

// pgNone as --pg sends the SQL over HTTP /exec, as no --pg does.
const pgNone = "none"

// httpFlags are load_questdb's HTTP flags: one --http-url instead of --urls,
// and the older names --username and --tls-insecure-skip-verify still work.
var httpFlags = loadcli.HTTPFlagSet{
	NoURLs:              true,
	GzipUsage:           "gzip each ILP/HTTP request body (QuestDB 9.1+; off: on loopback it costs more CPU than it saves)",
	UserAliases:         []string{"username"},
	UserUsage:           "HTTP basic-auth user",
	PasswordEnv:         []string{"QUESTDB_PASSWORD"},
	PasswordUsage:       "HTTP basic-auth password (never printed)",
	TokenEnv:            []string{"QUESTDB_TOKEN"},
	TokenUsage:          "HTTP bearer token (never printed)",
	InsecureAliases:     []string{"tls-insecure-skip-verify"},
	InsecureUsage:       "do not verify the server's TLS certificate (https, tcps)",
	RequestTimeout:      questdb.DefaultRequestTimeout,
	RequestTimeoutUsage: "base timeout of one HTTP request (or TCP batch write)",
}

// questdbFlags returns load_questdb's own flags.
func questdbFlags() []cli.Flag {
	return append([]cli.Flag{
		&cli.StringFlag{Name: flagProtocolVersion, Value: strconv.Itoa(questdb.DefaultProtocolVersion), Usage: "line protocol version: 1 (text, as the input holds it), 2 or 3 (double fields sent as 8 binary bytes, QuestDB 9.0+), auto (as QuestDB's clients: over HTTP the highest the server's /settings lists, 3 on 9.2+; over TCP 1). Default 1: on QuestDB 9.3.4 here 2 was not faster (docs/loaders/questdb.md)"},
		&cli.StringFlag{Name: flagTransport, Value: string(questdb.HTTP), Usage: "ILP transport: http (POST /write, acknowledged) or tcp (port 9009, no acknowledgement)"},
		&cli.StringFlag{Name: flagConf, EnvVars: []string{"QDB_CLIENT_CONF"}, Usage: "QuestDB client configuration string instead of --transport/--http-url/--tcp-addr and the auth flags, e.g. \"http::addr=localhost:9000;username=admin;password=quest;auto_flush_rows=10000;\" (keys: addr, username, password, token, tls_verify, retry_timeout, request_timeout, request_min_throughput, auto_flush_rows, protocol_version)"},
		&cli.StringFlag{Name: flagHTTPURL, EnvVars: []string{"TSLOAD_QUESTDB_HTTP"}, Usage: "HTTP endpoint: ILP/HTTP writes, and /exec queries with --pg none (default http://127.0.0.1:9000, or port 9000 of the --tcp-addr host)"},
		&cli.StringFlag{Name: flagTCPAddr, EnvVars: []string{"TSLOAD_QUESTDB_ILP_TCP"}, Usage: "ILP/TCP host:port with --transport tcp (default 127.0.0.1:9009, or port 9009 of the --http-url host)"},
		&cli.StringFlag{Name: flagPG, EnvVars: []string{"TSLOAD_QUESTDB_PG"}, Usage: "PG-wire URL for DDL, counts and verification, on the server written to (default: none, the SQL goes to /exec of the HTTP endpoint the rows are written to)"},
		&cli.Int64Flag{Name: flagMinThroughput, Value: questdb.DefaultMinThroughput, Usage: "bytes/s: the timeout grows by body size / this"},
		&cli.BoolFlag{Name: flagDedup, Value: true, DisableDefaultText: true, Usage: "create tables with DEDUP UPSERT KEYS(timestamp, <tags>) so a re-sent request cannot duplicate rows (default true for http, false for tcp)"},
		&cli.StringFlag{Name: flagUseCase, Usage: "create the tables of this use case up front (cpu-only, devops, iot, weather); otherwise use-case tables are created as the input names them"},
		&cli.DurationFlag{Name: flagWALTimeout, Value: questdb.DefaultWALTimeout, Usage: "how long verification waits for the WAL to be applied"},
		&cli.BoolFlag{Name: flagSerializationPass, Usage: "first read and split the --file inputs without loading, then print rows/s and MiB/s \"serialized\" vs \"sent\" (as QuestDB's pandas benchmark) and add them to --results-file"},
	}, httpFlags.Flags()...)
}

// newTarget builds the Target from the flags. Its overrides: auto_flush_rows
// of --conf becomes the batch size, retry_timeout the retry timeout,
// --serialization-pass asks the runner for its pass, and the endpoints and
// dedup are recorded as used (the runner masks the secrets of --conf, --pg
// and --http-url in the recorded flags). It does not connect.
func newTarget(c *cli.Context, cfg runner.Config) (load.Target, loadcli.Overrides, error) {
	var o loadcli.Overrides
	h := loadcli.HTTP(c)
	qc := questdb.Config{
		User: h.User, Password: h.Password, Token: h.Token, InsecureSkipVerify: h.InsecureSkipVerify,
		Gzip: h.Gzip, GzipLevel: h.GzipLevel, RequestTimeout: h.RequestTimeout,
		Transport:     questdb.Transport(c.String(flagTransport)),
		URL:           c.String(flagHTTPURL),
		TCPAddr:       c.String(flagTCPAddr),
		MinThroughput: c.Int64(flagMinThroughput),
		PG:            c.String(flagPG),
		UseCase:       c.String(flagUseCase),
		WALTimeout:    c.Duration(flagWALTimeout),
		Log:           cfg.Stderr,
	}
	v, err := questdb.ParseProtocolVersion(c.String(flagProtocolVersion))
	if err != nil {
		return nil, o, fmt.Errorf("--%s: %w", flagProtocolVersion, err)
	}
	qc.ProtocolVersion = v
	if s := c.String(flagConf); s != "" {
		for _, f := range []string{flagTransport, flagProtocolVersion, loadcli.FlagUser, loadcli.FlagPassword, loadcli.FlagToken, loadcli.FlagInsecureSkipVerify, loadcli.FlagRequestTimeout, flagMinThroughput} {
			if c.IsSet(f) {
				return nil, o, fmt.Errorf("--%s and --%s: give the setting in one place", flagConf, f)
			}
		}
		conf, err := questdb.ParseConf(s)
		if err != nil {
			return nil, o, err
		}
		if o, err = applyConf(&qc, conf, c, cfg); err != nil {
			return nil, o, err
		}
	}
	fillEndpoints(&qc, c.String(flagPG))
	switch {
	case c.IsSet(flagDedup):
		qc.Dedup = c.Bool(flagDedup)
	default:
		qc.Dedup = qc.Transport != questdb.TCP
	}
	// What is used, as used: the dedup the tables get is what the target
	// reports after the load (Describe). --pg stays as given: the
	// default's password would be masked in the journal, and a resume
	// could not use it.
	o.Flags = map[string]any{flagDedup: qc.Dedup, flagTransport: string(qc.Transport), flagHTTPURL: qc.URL, flagTCPAddr: nil}
	if qc.Transport == questdb.TCP {
		o.Flags[flagTCPAddr] = qc.TCPAddr
	}
	o.SerializationPass = c.Bool(flagSerializationPass)
	if o.SerializationPass && len(cfg.Inputs) == 0 {
		return nil, o, fmt.Errorf("--%s needs --file inputs (stdin cannot be read twice)", flagSerializationPass)
	}
	tg, err := questdb.New(qc)
	return tg, o, err
}

// applyConf moves a parsed --conf into qc, and returns what it decides of
// the common settings.
func applyConf(qc *questdb.Config, conf questdb.Conf, c *cli.Context, cfg runner.Config) (loadcli.Overrides, error) {
	var o loadcli.Overrides
	if conf.HTTP() {
		qc.Transport = questdb.HTTP
		qc.URL = conf.Schema + "://" + conf.Addr
	} else {
		qc.Transport = questdb.TCP
		qc.TCPAddr = conf.Addr
		qc.TCPTLS = conf.TLS()
	}
	qc.User, qc.Password, qc.Token = conf.Username, conf.Password, conf.Token
	qc.InsecureSkipVerify = !conf.TLSVerify
	if conf.RequestTimeout > 0 {
		qc.RequestTimeout = conf.RequestTimeout
	}
	if conf.MinThroughput > 0 {
		qc.MinThroughput = conf.MinThroughput
	}
	if conf.ProtocolVersion != "" {
		v, err := questdb.ParseProtocolVersion(conf.ProtocolVersion)
		if err != nil {
			return o, fmt.Errorf("--%s: protocol_version: %w", flagConf, err)
		}
		qc.ProtocolVersion = v
	}
	if conf.AutoFlushRows > 0 {
		if c.IsSet(loadcli.FlagBatchSize) && cfg.BatchSize != conf.AutoFlushRows {
			return o, fmt.Errorf("--%s %d and auto_flush_rows=%d in --%s disagree", loadcli.FlagBatchSize, cfg.BatchSize, conf.AutoFlushRows, flagConf)
		}
		o.BatchSize = conf.AutoFlushRows
	}
	if conf.RetryTimeout > 0 {
		if c.IsSet(loadcli.FlagRetryTimeout) && cfg.RetryTimeout != conf.RetryTimeout {
			return o, fmt.Errorf("--%s %v and retry_timeout=%d in --%s disagree", loadcli.FlagRetryTimeout, cfg.RetryTimeout, conf.RetryTimeout/time.Millisecond, flagConf)
		}
		o.RetryTimeout = conf.RetryTimeout
	}
	return o, nil
}

// fillEndpoints names one server: the endpoints not given (HTTP URL, ILP/TCP
// address) are QuestDB's defaults on the host of the one that is (the write
// endpoint first), else on 127.0.0.1. Without a pg (or with "none") the SQL
// goes to /exec of the HTTP URL: the very server the rows go to, where a
// PG-wire default on another port could be another QuestDB on the host.
func fillEndpoints(qc *questdb.Config, pg string) {
	host := questdb.DefaultHost
	if qc.Transport == questdb.TCP && qc.TCPAddr != "" {
		host = qc.Host()
	} else if h := httpwrite.HostPort(qc.URL); h != "" {
		host, _, _ = net.SplitHostPort(h)
	}
	if qc.URL == "" {
		qc.URL = "http://" + net.JoinHostPort(host, questdb.DefaultHTTPPort)
	}
	if qc.TCPAddr == "" && qc.Transport == questdb.TCP {
		qc.TCPAddr = net.JoinHostPort(host, questdb.DefaultTCPPort)
	}
	qc.PG = pg
	if pg == pgNone {
		qc.PG = ""
	}
}
