package questdb

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/redact"
	"github.com/tsload/tsload/pkg/runner"
)

// Flag names of load_questdb.
const (
	FlagTransport      = "transport"
	FlagConf           = "conf"
	FlagHTTPURL        = "http-url"
	FlagTCPAddr        = "tcp-addr"
	FlagPG             = "pg"
	FlagUsername       = "username"
	FlagPassword       = "password"
	FlagToken          = "token"
	FlagInsecure       = "tls-insecure-skip-verify"
	FlagRequestTimeout = "request-timeout"
	FlagMinThroughput  = "request-min-throughput"
	FlagDedup          = "dedup"
	FlagUseCase        = "use-case"
	FlagWALTimeout     = "wal-timeout"

	FlagSerializationPass = "serialization-pass"
)

// Default addresses (the server of scripts/start_questdb.sh).
const (
	DefaultHTTPURL = "http://127.0.0.1:9000"
	DefaultTCPAddr = "127.0.0.1:9009"
	DefaultPG      = "postgres://admin:quest@127.0.0.1:8812/qdb"
)

// Flags returns load_questdb's own flags.
func Flags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: FlagTransport, Value: HTTP, Usage: "ILP transport: http (POST /write, acknowledged) or tcp (port 9009, no acknowledgement)"},
		&cli.StringFlag{Name: FlagConf, EnvVars: []string{"QDB_CLIENT_CONF"}, Usage: "QuestDB client configuration string instead of --transport/--http-url/--tcp-addr and the auth flags, e.g. \"http::addr=localhost:9000;username=admin;password=quest;auto_flush_rows=10000;\" (keys: addr, username, password, token, tls_verify, retry_timeout, request_timeout, request_min_throughput, auto_flush_rows)"},
		&cli.StringFlag{Name: FlagHTTPURL, Value: DefaultHTTPURL, EnvVars: []string{"TSLOAD_QUESTDB_HTTP"}, Usage: "HTTP endpoint: ILP/HTTP writes, and /exec queries when --pg is empty"},
		&cli.StringFlag{Name: FlagTCPAddr, Value: DefaultTCPAddr, EnvVars: []string{"TSLOAD_QUESTDB_ILP_TCP"}, Usage: "ILP/TCP host:port (with --transport tcp)"},
		&cli.StringFlag{Name: FlagPG, Value: DefaultPG, EnvVars: []string{"TSLOAD_QUESTDB_PG"}, Usage: "PG-wire URL for DDL and counts; empty: use HTTP /exec"},
		&cli.StringFlag{Name: FlagUsername, Usage: "HTTP basic-auth user"},
		&cli.StringFlag{Name: FlagPassword, EnvVars: []string{"QUESTDB_PASSWORD"}, Usage: "HTTP basic-auth password (never printed)"},
		&cli.StringFlag{Name: FlagToken, EnvVars: []string{"QUESTDB_TOKEN"}, Usage: "HTTP bearer token (never printed)"},
		&cli.BoolFlag{Name: FlagInsecure, Usage: "do not verify the server's TLS certificate (https, tcps)"},
		&cli.DurationFlag{Name: FlagRequestTimeout, Value: DefaultRequestTimeout, Usage: "base timeout of one HTTP request (or TCP batch write)"},
		&cli.Int64Flag{Name: FlagMinThroughput, Value: DefaultMinThroughput, Usage: "bytes/s: the timeout grows by body size / this"},
		&cli.BoolFlag{Name: FlagDedup, Value: true, Usage: "create tables with DEDUP UPSERT KEYS(timestamp, <tags>) so a re-sent request cannot duplicate rows (default true for http, false for tcp)"},
		&cli.StringFlag{Name: FlagUseCase, Usage: "create the tables of this use case up front (cpu-only, devops, iot, weather); otherwise use-case tables are created as the input names them"},
		&cli.DurationFlag{Name: FlagWALTimeout, Value: DefaultWALTimeout, Usage: "how long verification waits for the WAL to be applied"},
		&cli.BoolFlag{Name: FlagSerializationPass, Usage: "first read and split the --file inputs without loading, then print rows/s and MiB/s \"serialized\" vs \"sent\" (as QuestDB's pandas benchmark) and add them to --results-file"},
	}
}

// FromCLI builds the Target from the flags. It adjusts cfg: auto_flush_rows
// of --conf becomes the batch size and retry_timeout the retry timeout, and
// the secrets in --conf and --pg are masked in the recorded flags. It does
// not connect.
func FromCLI(c *cli.Context, cfg *runner.Config) (load.Target, error) {
	if cfg.Format == format.CSV || cfg.Format == format.PGCopy {
		return nil, fmt.Errorf("load_questdb loads ILP only (--format %s given): generate with --format ilp", cfg.Format)
	}
	qc := Config{
		Transport:      c.String(FlagTransport),
		URL:            c.String(FlagHTTPURL),
		TCPAddr:        c.String(FlagTCPAddr),
		TLSVerify:      !c.Bool(FlagInsecure),
		Username:       c.String(FlagUsername),
		Password:       c.String(FlagPassword),
		Token:          c.String(FlagToken),
		RequestTimeout: c.Duration(FlagRequestTimeout),
		MinThroughput:  c.Int64(FlagMinThroughput),
		PG:             c.String(FlagPG),
		UseCase:        c.String(FlagUseCase),
		WALTimeout:     c.Duration(FlagWALTimeout),
		Log:            cfg.Stderr,
	}
	if s := c.String(FlagConf); s != "" {
		for _, f := range []string{FlagTransport, FlagUsername, FlagPassword, FlagToken, FlagInsecure, FlagRequestTimeout, FlagMinThroughput} {
			if c.IsSet(f) {
				return nil, fmt.Errorf("--%s and --%s: give the setting in one place", FlagConf, f)
			}
		}
		conf, err := ParseConf(s)
		if err != nil {
			return nil, err
		}
		if err := applyConf(&qc, conf, c, cfg); err != nil {
			return nil, err
		}
		if cfg.Flags != nil {
			cfg.Flags[FlagConf] = redact.Conf(s)
		}
	}
	if cfg.Flags != nil {
		for _, f := range []string{FlagPG, FlagHTTPURL} {
			if cfg.Flags[f] != "" {
				cfg.Flags[f] = redact.URL(cfg.Flags[f])
			}
		}
	}
	if qc.PG == "none" {
		qc.PG = ""
	}
	switch {
	case c.IsSet(FlagDedup):
		qc.Dedup = c.Bool(FlagDedup)
	default:
		qc.Dedup = qc.Transport != TCP
	}
	if cfg.Flags != nil {
		cfg.Flags[FlagDedup] = fmt.Sprint(qc.Dedup)
		cfg.Flags[FlagTransport] = qc.Transport
	}
	t, err := New(qc)
	if err != nil || !c.Bool(FlagSerializationPass) || !cfg.DoLoad {
		return t, err
	}
	noLoad, err := serializationPass(c.Context, *cfg)
	if err != nil {
		return nil, err
	}
	return &serialTarget{Target: t, noLoad: noLoad, results: cfg.ResultsFile, stderr: cfg.Stderr}, nil
}

// applyConf moves a parsed --conf into qc and cfg.
func applyConf(qc *Config, conf Conf, c *cli.Context, cfg *runner.Config) error {
	if conf.HTTP() {
		qc.Transport = HTTP
		qc.URL = conf.Schema + "://" + conf.Addr
	} else {
		qc.Transport = TCP
		qc.TCPAddr = conf.Addr
		qc.TCPTLS = conf.TLS()
	}
	qc.Username, qc.Password, qc.Token = conf.Username, conf.Password, conf.Token
	qc.TLSVerify = conf.TLSVerify
	if conf.RequestTimeout > 0 {
		qc.RequestTimeout = conf.RequestTimeout
	}
	if conf.MinThroughput > 0 {
		qc.MinThroughput = conf.MinThroughput
	}
	if conf.AutoFlushRows > 0 {
		if c.IsSet("batch-size") && cfg.BatchSize != conf.AutoFlushRows {
			return fmt.Errorf("--batch-size %d and auto_flush_rows=%d in --conf disagree", cfg.BatchSize, conf.AutoFlushRows)
		}
		cfg.BatchSize = conf.AutoFlushRows
		if cfg.Flags != nil {
			cfg.Flags["batch-size"] = fmt.Sprint(conf.AutoFlushRows)
		}
	}
	if conf.RetryTimeout > 0 {
		if c.IsSet("retry-timeout") && cfg.RetryTimeout != conf.RetryTimeout {
			return fmt.Errorf("--retry-timeout %v and retry_timeout=%d in --conf disagree", cfg.RetryTimeout, conf.RetryTimeout/time.Millisecond)
		}
		cfg.RetryTimeout = conf.RetryTimeout
		if cfg.Flags != nil {
			cfg.Flags["retry-timeout"] = conf.RetryTimeout.String()
		}
	}
	return nil
}
