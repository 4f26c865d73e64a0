// Package influx is the InfluxDB 1.x target: it writes line-protocol batches
// to /write over HTTP (gzip, round-robin over --urls), manages the database
// over /query, and counts rows per measurement afterwards.
//
// What a /write answer means (InfluxDB 1.6.7, checked):
//
//	204                                    written
//	400 "partial write: ... dropped=N"     good lines written, the rest dropped: reported, never re-sent
//	400 other                              nothing written (e.g. every line unparsable): fatal
//	404 database not found                 fatal
//	401/403                                fatal (credentials)
//	413                                    fatal: lower --batch-size or enable --gzip
//	500 "cache-max-memory-size exceeded"   nothing written: retryable
//	500 "timeout"                          retryable (a re-send overwrites the same points)
//	500 "retention policy not found"       fatal
//	503 "request throttled, queue full"    retryable (max-concurrent-write-limit); also 429
//	network error                          retryable
package influx

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/target/httpw"
)

// Config is the target's configuration.
type Config struct {
	URLs               []string
	DBName             string // overridden by PrepareOptions.DBName when set
	RP                 string // retention policy (empty: the database default)
	Consistency        string // any, one, quorum, all (empty: server default)
	Precision          string // n, u, ms, s, m, h
	Gzip               bool
	GzipLevel          int
	User, Password     string
	InsecureSkipVerify bool
	RequestTimeout     time.Duration
}

// Precisions accepted by InfluxDB 1.x /write. The server silently treats any
// other value as nanoseconds, so the loader refuses it.
var Precisions = []string{"n", "u", "ms", "s", "m", "h"}

// Consistencies accepted by /write (meaningful on clusters).
var Consistencies = []string{"any", "one", "quorum", "all"}

// Validate checks the configuration.
func (c *Config) Validate() error {
	if len(c.URLs) == 0 {
		return errors.New("no URL given (--urls)")
	}
	if !contains(Precisions, c.Precision) {
		return fmt.Errorf("invalid --precision %q (InfluxDB 1.x accepts %s; it would silently take anything else as n)", c.Precision, strings.Join(Precisions, ", "))
	}
	if c.Consistency != "" && !contains(Consistencies, c.Consistency) {
		return fmt.Errorf("invalid --consistency %q (want %s)", c.Consistency, strings.Join(Consistencies, ", "))
	}
	if c.Gzip && !httpw.ValidGzipLevel(c.GzipLevel) {
		return fmt.Errorf("invalid --gzip-level %d (want 1-9)", c.GzipLevel)
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Flags are the target's command-line flags (the runner adds the common ones).
func Flags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "urls", Value: "http://127.0.0.1:8086", EnvVars: []string{"TSLOAD_INFLUX_URL"},
			Usage: "comma-separated InfluxDB base URLs; workers are spread over them round-robin"},
		&cli.StringFlag{Name: "rp", Usage: "retention policy to write into (default: the database's default)"},
		&cli.StringFlag{Name: "consistency", Usage: "write consistency for clusters: any, one, quorum or all (default: the server's)"},
		&cli.StringFlag{Name: "precision", Value: "n", Usage: "timestamp precision of the input: n, u, ms, s, m or h"},
		&cli.BoolFlag{Name: "gzip", Value: true, Usage: "gzip each request body"},
		&cli.IntFlag{Name: "gzip-level", Value: 1, Usage: "gzip level 1 (fastest) to 9 (smallest)"},
		&cli.StringFlag{Name: "user", EnvVars: []string{"INFLUX_USERNAME"}, Usage: "user name (Basic auth)"},
		&cli.StringFlag{Name: "password", EnvVars: []string{"INFLUX_PASSWORD"}, Usage: "password (prefer the INFLUX_PASSWORD environment variable; never printed)"},
		&cli.BoolFlag{Name: "insecure-skip-verify", Usage: "do not verify the server's TLS certificate (https URLs)"},
		&cli.DurationFlag{Name: "request-timeout", Value: 60 * time.Second, Usage: "limit on one HTTP request; a timed-out write is retried"},
	}
}

// ConfigFromCLI reads Flags() from c (DBName is left for the runner's --db-name).
func ConfigFromCLI(c *cli.Context) (Config, error) {
	cfg := Config{
		URLs:               httpw.SplitURLs(c.String("urls")),
		RP:                 c.String("rp"),
		Consistency:        c.String("consistency"),
		Precision:          c.String("precision"),
		Gzip:               c.Bool("gzip"),
		GzipLevel:          c.Int("gzip-level"),
		User:               c.String("user"),
		Password:           c.String("password"),
		InsecureSkipVerify: c.Bool("insecure-skip-verify"),
		RequestTimeout:     c.Duration("request-timeout"),
	}
	if c.IsSet("db-name") {
		cfg.DBName = c.String("db-name")
	}
	return cfg, cfg.Validate()
}

// Target is an InfluxDB 1.x server (or several behind --urls).
type Target struct {
	cfg    Config
	client *httpw.Client
	query  *httpw.Poster // /query requests, to the first URL
}

var _ load.Target = (*Target)(nil)

// New checks cfg and returns the target. It does not contact the server.
func New(cfg Config) (*Target, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	client, err := httpw.NewClient(httpw.Options{
		URLs:               cfg.URLs,
		Gzip:               cfg.Gzip,
		GzipLevel:          cfg.GzipLevel,
		InsecureSkipVerify: cfg.InsecureSkipVerify,
		User:               cfg.User,
		Password:           cfg.Password,
		Timeout:            cfg.RequestTimeout,
		// A partial write quotes every unparsable line: allow for a whole batch.
		ErrorBodyLimit: 64 << 20,
	})
	if err != nil {
		return nil, err
	}
	return &Target{cfg: cfg, client: client, query: client.NewPoster(0)}, nil
}

// Close releases idle connections.
func (t *Target) Close() error {
	t.client.Close()
	return nil
}

// quoteIdent quotes an InfluxQL identifier.
func quoteIdent(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

type queryResponse struct {
	Results []struct {
		StatementID int    `json:"statement_id"`
		Error       string `json:"error"`
		Series      []struct {
			Name    string          `json:"name"`
			Columns []string        `json:"columns"`
			Values  [][]interface{} `json:"values"`
		} `json:"series"`
	} `json:"results"`
	Error string `json:"error"`
}

// Query runs one InfluxQL statement and returns its result, treating an
// error in the body (which /query reports with HTTP 200) as an error.
func (t *Target) Query(ctx context.Context, db, q string) (*queryResponse, error) {
	form := url.Values{"q": {q}}
	if db != "" {
		form.Set("db", db)
	}
	res, err := t.query.Post(ctx, httpw.Request{
		Path: "/query", ContentType: "application/x-www-form-urlencoded",
		Body: []byte(form.Encode()), NoCompress: true,
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", q, err)
	}
	var qr queryResponse
	jerr := json.Unmarshal(res.Body, &qr)
	switch {
	case res.Status == 401 || res.Status == 403:
		return nil, fmt.Errorf("%s: authentication failed (%d %s): check --user and --password (INFLUX_USERNAME, INFLUX_PASSWORD)", q, res.Status, serverMessage(res.Body))
	case res.Status != 200:
		return nil, fmt.Errorf("%s: %s answered %d: %s", q, t.query.BaseURL(), res.Status, serverMessage(res.Body))
	case jerr != nil:
		return nil, fmt.Errorf("%s: unreadable answer from %s: %v (%s)", q, t.query.BaseURL(), jerr, httpw.Snippet(res.Body, 200))
	case qr.Error != "":
		return nil, fmt.Errorf("%s: %s", q, qr.Error)
	}
	for _, r := range qr.Results {
		if r.Error != "" {
			return nil, fmt.Errorf("%s: %s", q, r.Error)
		}
	}
	return &qr, nil
}

// serverMessage extracts {"error": "..."} from an InfluxDB error body.
func serverMessage(body []byte) string {
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && e.Error != "" {
		return e.Error
	}
	if len(body) == 0 {
		return "(empty body)"
	}
	return httpw.Snippet(body, 500)
}

func (t *Target) databases(ctx context.Context) (map[string]bool, error) {
	qr, err := t.Query(ctx, "", "SHOW DATABASES")
	if err != nil {
		return nil, err
	}
	dbs := make(map[string]bool)
	for _, r := range qr.Results {
		for _, s := range r.Series {
			for _, v := range s.Values {
				if len(v) > 0 {
					if name, ok := v[0].(string); ok {
						dbs[name] = true
					}
				}
			}
		}
	}
	return dbs, nil
}

// Accepts takes line protocol only: InfluxDB's write API reads nothing else.
func (t *Target) Accepts(f format.Format) error {
	if f != format.ILP {
		return fmt.Errorf("InfluxDB takes line protocol, not %s (generate with --format ilp)", f)
	}
	return nil
}

// Prepare drops (--drop-db), checks (--do-abort-on-exist) and creates
// (--do-create-db) the database, and checks --rp exists.
func (t *Target) Prepare(ctx context.Context, opts load.PrepareOptions) error {
	err := httpw.PrepareDatabase(ctx, opts, &t.cfg.DBName, t.query.BaseURL(), httpw.Database{
		Drop: func(ctx context.Context, db string) error {
			_, err := t.Query(ctx, "", "DROP DATABASE "+quoteIdent(db))
			return err
		},
		Exists: func(ctx context.Context, db string) (bool, error) {
			dbs, err := t.databases(ctx)
			return dbs[db], err
		},
		Create: func(ctx context.Context, db string) error {
			_, err := t.Query(ctx, "", "CREATE DATABASE "+quoteIdent(db))
			return err
		},
	})
	if err != nil {
		return err
	}
	db := t.cfg.DBName
	if t.cfg.RP != "" {
		qr, err := t.Query(ctx, db, "SHOW RETENTION POLICIES ON "+quoteIdent(db))
		if err != nil {
			return err
		}
		found := false
		for _, r := range qr.Results {
			for _, s := range r.Series {
				for _, v := range s.Values {
					if len(v) > 0 && v[0] == t.cfg.RP {
						found = true
					}
				}
			}
		}
		if !found {
			return fmt.Errorf("retention policy %q not found on database %q (--rp)", t.cfg.RP, db)
		}
	}
	return nil
}

// Count returns, per measurement, the number of points. InfluxQL has no
// row count: SELECT COUNT(*) gives one count per field, which undercounts
// when fields are missing (null) in some points. So:
//   - when every field has the same count, that is the number of points;
//   - otherwise, with a the field of the largest count, the points missing a
//     are found as COUNT(b) - COUNT(a + b) for each other numeric field b
//     (a + b is null unless both are present), and the largest is added.
//
// This is exact when no point misses both a and some numeric b that covers
// it, which holds for tsload's data (at most one field of a row is null);
// otherwise it is a lower bound. A missing measurement counts 0.
func (t *Target) Count(ctx context.Context, tables []string) (map[string]int64, error) {
	out := make(map[string]int64, len(tables))
	for _, m := range tables {
		n, err := t.countMeasurement(ctx, m)
		if err != nil {
			return out, err
		}
		out[m] = n
	}
	return out, nil
}

func (t *Target) from(m string) string {
	if t.cfg.RP != "" {
		return quoteIdent(t.cfg.RP) + "." + quoteIdent(m)
	}
	return quoteIdent(m)
}

// counts runs a COUNT query and returns its counts by field name ("" for a
// bare "count" column); an empty result gives an empty map.
func (t *Target) counts(ctx context.Context, q string) (map[string]int64, error) {
	qr, err := t.Query(ctx, t.cfg.DBName, q)
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for _, r := range qr.Results {
		for _, s := range r.Series {
			for _, row := range s.Values {
				for i, v := range row {
					if i >= len(s.Columns) || !strings.HasPrefix(s.Columns[i], "count") {
						continue
					}
					n, err := toInt(v)
					if err != nil {
						return nil, fmt.Errorf("%s: column %s: %v", q, s.Columns[i], err)
					}
					out[strings.TrimPrefix(strings.TrimPrefix(s.Columns[i], "count"), "_")] += n
				}
			}
		}
	}
	return out, nil
}

func (t *Target) countMeasurement(ctx context.Context, m string) (int64, error) {
	per, err := t.counts(ctx, "SELECT COUNT(*) FROM "+t.from(m))
	if err != nil {
		return 0, err
	}
	var best string
	var max, min int64 = 0, -1
	for f, n := range per {
		if n > max || n == max && f < best {
			best, max = f, n
		}
		if min < 0 || n < min {
			min = n
		}
	}
	if len(per) <= 1 || min == max {
		return max, nil
	}
	// Fields missing in some points: add the points that lack best.
	qr, err := t.Query(ctx, t.cfg.DBName, "SHOW FIELD KEYS FROM "+t.from(m))
	if err != nil {
		return 0, err
	}
	var extra int64
	for _, r := range qr.Results {
		for _, s := range r.Series {
			for _, v := range s.Values {
				if len(v) < 2 {
					continue
				}
				f, _ := v[0].(string)
				typ, _ := v[1].(string)
				if f == best || (typ != "float" && typ != "integer") || per[f] == 0 {
					continue
				}
				q := fmt.Sprintf("SELECT COUNT(x) FROM (SELECT %s + %s AS x FROM %s)", quoteIdent(best), quoteIdent(f), t.from(m))
				both, err := t.counts(ctx, q)
				if err != nil {
					return 0, err
				}
				if d := per[f] - both[""]; d > extra {
					extra = d
				}
			}
		}
	}
	return max + extra, nil
}

func toInt(v interface{}) (int64, error) {
	switch x := v.(type) {
	case float64:
		return int64(x), nil
	case json.Number:
		return x.Int64()
	case string:
		return strconv.ParseInt(x, 10, 64)
	case nil:
		return 0, nil
	}
	return 0, fmt.Errorf("unexpected value %v", v)
}

// NewWriter returns the writer of worker (it posts to URL worker % len(URLs)).
func (t *Target) NewWriter(ctx context.Context, worker int) (load.Writer, error) {
	if t.cfg.DBName == "" {
		return nil, errors.New("no database name (--db-name)")
	}
	q := url.Values{"db": {t.cfg.DBName}, "precision": {t.cfg.Precision}}
	if t.cfg.RP != "" {
		q.Set("rp", t.cfg.RP)
	}
	if t.cfg.Consistency != "" {
		q.Set("consistency", t.cfg.Consistency)
	}
	return &Writer{p: t.client.NewPoster(worker), query: q.Encode(), gzip: t.cfg.Gzip, db: t.cfg.DBName, rp: t.cfg.RP}, nil
}
