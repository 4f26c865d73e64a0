package loadcli

import (
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// HTTPSettingFlags maps the HTTP targets' Config fields to the HTTP flags.
var HTTPSettingFlags = map[string]string{
	"URLs": FlagURLs, "Precision": FlagPrecision, "Gzip": FlagGzip, "GzipLevel": FlagGzipLevel,
	"User": FlagUser, "Password": FlagPassword, "Token": FlagToken,
	"InsecureSkipVerify": FlagInsecureSkipVerify, "RequestTimeout": FlagRequestTimeout,
}

// HTTPFlagSet describes one loader's HTTP flags: which of them it has, their
// defaults, environment variables and any usage text of its own. Flags
// reads them back as HTTPSettings.
type HTTPFlagSet struct {
	// URLs is the default of --urls (comma-separated base URLs);
	// NoURLs leaves --urls out (QuestDB takes one --http-url of its own).
	URLs    string
	URLsEnv []string
	NoURLs  bool
	// Precision is the default of --precision; empty leaves the flag out.
	Precision, PrecisionUsage string
	Gzip                      bool // default of --gzip
	GzipUsage                 string
	User                      string // default of --user
	// UserAliases are older names of --user (load_questdb's --username).
	UserAliases                          []string
	UserEnv, PasswordEnv, TokenEnv       []string
	UserUsage, PasswordUsage, TokenUsage string
	NoToken                              bool // no --token (CnosDB has Basic auth only)
	// InsecureAliases are older names of --insecure-skip-verify.
	InsecureAliases                []string
	InsecureUsage                  string
	RequestTimeout                 time.Duration // default of --request-timeout (httpwrite.DefaultRequestTimeout)
	RequestTimeoutUsage, URLsUsage string
}

// HTTPSettings are the values of an HTTPFlagSet's flags.
type HTTPSettings struct {
	httpwrite.Conn
	Precision, Token string
}

// Flags returns the flags of s.
func (s HTTPFlagSet) Flags() []cli.Flag {
	or := func(usage, def string) string {
		if usage != "" {
			return usage
		}
		return def
	}
	var fs []cli.Flag
	if !s.NoURLs {
		fs = append(fs, &cli.StringFlag{Name: FlagURLs, Value: s.URLs, EnvVars: s.URLsEnv,
			Usage: or(s.URLsUsage, "comma-separated base URLs; workers are spread over them round-robin")})
	}
	if s.Precision != "" {
		fs = append(fs, &cli.StringFlag{Name: FlagPrecision, Value: s.Precision, Usage: or(s.PrecisionUsage, "timestamp precision of the input")})
	}
	fs = append(fs,
		&cli.BoolFlag{Name: FlagGzip, Value: s.Gzip, Usage: or(s.GzipUsage, "gzip each request body")},
		&cli.IntFlag{Name: FlagGzipLevel, Value: 1, Usage: "gzip level 1 (fastest) to 9 (smallest)"},
		&cli.StringFlag{Name: FlagUser, Aliases: s.UserAliases, Value: s.User, EnvVars: s.UserEnv, Usage: or(s.UserUsage, "user name (Basic auth)")},
		&cli.StringFlag{Name: FlagPassword, EnvVars: s.PasswordEnv, Usage: or(s.PasswordUsage, "password (never printed)")},
	)
	if !s.NoToken {
		fs = append(fs, &cli.StringFlag{Name: FlagToken, EnvVars: s.TokenEnv, Usage: or(s.TokenUsage, "API token (never printed)")})
	}
	return append(fs,
		&cli.BoolFlag{Name: FlagInsecureSkipVerify, Aliases: s.InsecureAliases, Usage: or(s.InsecureUsage, "do not verify the server's TLS certificate (https URLs)")},
		&cli.DurationFlag{Name: FlagRequestTimeout, Value: s.RequestTimeout, Usage: or(s.RequestTimeoutUsage, "limit on one HTTP request; a timed-out write is retried")},
	)
}

// HTTP reads the flags of an HTTPFlagSet from c (flags the set left out
// read as zero).
func HTTP(c *cli.Context) HTTPSettings {
	return HTTPSettings{
		Conn: httpwrite.Conn{
			URLs:               httpwrite.SplitURLs(c.String(FlagURLs)),
			Gzip:               c.Bool(FlagGzip),
			GzipLevel:          c.Int(FlagGzipLevel),
			User:               c.String(FlagUser),
			Password:           c.String(FlagPassword),
			InsecureSkipVerify: c.Bool(FlagInsecureSkipVerify),
			RequestTimeout:     c.Duration(FlagRequestTimeout),
		},
		Precision: c.String(FlagPrecision),
		Token:     c.String(FlagToken),
	}
}
