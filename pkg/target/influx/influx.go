// Package influx is the InfluxDB target. It speaks the write and management
// APIs of InfluxDB 1.x, 2.x and 3.x (detected from the server's /ping, or
// named): line-protocol batches are posted gzip-compressed, round-robin over
// the URLs; the database (a bucket on 2.x) is dropped, checked and created by
// the lifecycle options; rows are counted per measurement afterwards.
//
// The versions differ only in a small strategy, the api interface (api.go):
// where a write goes, how its answer reads, how the database is managed,
// how rows are counted and how a query is asked (InfluxQL, Flux, SQL). See
// v1.go, v2.go and v3.go for what each answer means there.
package influx

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// API is the HTTP API of an InfluxDB major version (--api).
type API string

// APIs of the versions.
const (
	APIv1 API = "v1" // /write, /query (InfluxQL)
	APIv2 API = "v2" // /api/v2/write, /api/v2/buckets, /api/v2/query (Flux)
	APIv3 API = "v3" // /api/v3/write_lp, /api/v3/configure/database, /api/v3/query_sql
)

// APIs lists the APIs Config.API accepts ("" detects).
var APIs = []API{APIv1, APIv2, APIv3}

// Config is the target's configuration.
type Config struct {
	// Conn: User and Password authenticate with Basic auth (v1).
	httpwrite.Conn
	// API is v1, v2 or v3; empty detects it from the first URL's /ping.
	API    API
	DBName string // overridden by PrepareOptions.DBName when set
	// v1 only.
	RP          string // retention policy (empty: the database default)
	Consistency string // any, one, quorum, all (empty: server default)
	// Precision of the input's timestamps: n, u, ms, s (and m, h on v1).
	Precision string
	// Token is sent as "Authorization: Token <token>" (v2, v3; v1.8+
	// takes it too) instead of Basic auth.
	Token string
	// v2: the organization and bucket (Bucket defaults to DBName).
	Org, Bucket string
	// v3: AcceptPartial writes a batch's valid lines when some are refused
	// (else a bad line refuses the whole batch); NoSync acknowledges
	// before the write-ahead log is persisted.
	AcceptPartial, NoSync bool
}

// Precisions accepted by InfluxDB 1.x /write. The server silently treats any
// other value as nanoseconds, so the loader refuses it. 2.x and 3.x take
// the first four (precisionNames).
var Precisions = []string{"n", "u", "ms", "s", "m", "h"}

// precisionNames are the precisions the 2.x and 3.x writes take, each by
// the name the API gives it (1.x: the loader's own names, Precisions).
var precisionNames = map[API]map[string]string{
	APIv2: {"n": "ns", "u": "us", "ms": "ms", "s": "s"},
	APIv3: {"n": "nanosecond", "u": "microsecond", "ms": "millisecond", "s": "second"},
}

// Consistencies accepted by /write (meaningful on clusters).
var Consistencies = []string{"any", "one", "quorum", "all"}

// Validate checks the configuration.
func (c *Config) Validate() error {
	if err := c.Conn.Validate(); err != nil {
		return err
	}
	if c.API != "" && !slices.Contains(APIs, c.API) {
		return load.Settingf("invalid {API} %q (want v1, v2, v3, or nothing to detect it)", c.API)
	}
	if !contains(Precisions, c.Precision) {
		return load.Settingf("invalid {Precision} %q (InfluxDB 1.x accepts %s; it would silently take anything else as n)", c.Precision, strings.Join(Precisions, ", "))
	}
	if c.Consistency != "" && !contains(Consistencies, c.Consistency) {
		return load.Settingf("invalid {Consistency} %q (want %s)", c.Consistency, strings.Join(Consistencies, ", "))
	}
	if c.Token != "" && (c.User != "" || c.Password != "") {
		return load.Settingf("give a token ({Token}) or a user and password ({User}, {Password}), not both")
	}
	if c.API != "" {
		return c.validateFor(c.API)
	}
	return nil
}

// validateFor checks what only some APIs take.
func (c *Config) validateFor(api API) error {
	if api != APIv1 {
		if c.RP != "" || c.Consistency != "" {
			return load.Settingf("{RP} and {Consistency} are InfluxDB 1.x settings; the server speaks the %s API", api)
		}
		if _, ok := precisionNames[api][c.Precision]; !ok {
			return load.Settingf("{Precision} %s is InfluxDB 1.x only; the %s API takes n, u, ms or s", c.Precision, api)
		}
	}
	if api != APIv3 && (c.AcceptPartial || c.NoSync) {
		return load.Settingf("{AcceptPartial} and {NoSync} are InfluxDB 3 settings; the server speaks the %s API", api)
	}
	// An Org (from INFLUX_ORG, say) is harmless elsewhere; a Bucket would silently not be where the data goes.
	if api != APIv2 && c.Bucket != "" {
		return load.Settingf("{Bucket} is an InfluxDB 2 setting (the server speaks the %s API): name the database with {DBName}", api)
	}
	if api == APIv2 && c.Org == "" {
		return load.Settingf("InfluxDB 2 writes into a bucket of an organization: give the organization ({Org})")
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

// Target is an InfluxDB server (or several of one version behind the URLs).
type Target struct {
	cfg    Config
	client *httpwrite.Client
	query  *httpwrite.Poster // management requests, to the first URL
	unit   time.Duration     // of the lines' timestamps: Precision, parsed once (load.Hooks.LineUnit)

	mu  sync.Mutex
	api api // nil until named or detected
}

var _ load.Target = (*Target)(nil)

// New checks cfg and returns the target. It does not contact the server.
func New(cfg Config) (*Target, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	opts := cfg.Options()
	// A partial write quotes every unparsable line: allow for a whole batch.
	opts.ErrorBodyLimit = 64 << 20
	if cfg.Token != "" {
		opts.Authorization = "Token " + cfg.Token
	}
	client, err := httpwrite.NewClient(opts)
	if err != nil {
		return nil, err
	}
	unit, err := format.ParseUnit(cfg.Precision)
	if err != nil {
		return nil, load.Settingf("invalid {Precision} %q: %v", cfg.Precision, err)
	}
	t := &Target{cfg: cfg, client: client, query: client.NewPoster(0), unit: unit}
	if cfg.API != "" {
		t.api = newAPI(cfg.API)
	}
	return t, nil
}

// Close releases idle connections.
func (t *Target) Close() error {
	t.client.Close()
	return nil
}

// API returns the API the target speaks: the one configured, else the one
// the server's /ping (or /health) names, asked once.
func (t *Target) API(ctx context.Context) (API, error) {
	a, err := t.theAPI(ctx)
	if err != nil {
		return "", err
	}
	return a.name(), nil
}

func (t *Target) theAPI(ctx context.Context) (api, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.api != nil {
		return t.api, nil
	}
	name, err := detect(ctx, t.query)
	if err != nil {
		return nil, err
	}
	if err := t.cfg.validateFor(name); err != nil {
		return nil, err
	}
	t.api = newAPI(name)
	return t.api, nil
}

// Overwrites: InfluxDB stores a point with the series and timestamp of one
// it holds in its place, so loading points already there adds nothing to a
// count (load.Hooks.Overwrites).
func (t *Target) Overwrites() bool { return true }

// Takes are the input formats the target loads itself, its Accepts and
// its command's --format help made of them (loadcli.Spec.Takes; the
// runner writes CSV as lines for it).
var Takes = []format.Format{format.ILP}

// Accepts takes line protocol only: InfluxDB's write APIs read nothing else.
func (t *Target) Accepts(f format.Format) error {
	if !slices.Contains(Takes, f) {
		return fmt.Errorf("InfluxDB takes line protocol, not %s (generate the data as ILP)", f)
	}
	return nil
}

// Prepare drops (DropDB), checks (AbortOnExist) and creates (CreateDB)
// the database (the bucket on 2.x).
func (t *Target) Prepare(ctx context.Context, opts load.PrepareOptions) error {
	a, err := t.theAPI(ctx)
	if err != nil {
		return err
	}
	return a.prepare(ctx, t, opts)
}

// Count returns, per measurement, the number of points (rows) in the
// database; a missing measurement counts 0.
func (t *Target) Count(ctx context.Context, tables []string) (map[string]int64, error) {
	a, err := t.theAPI(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(tables))
	for _, m := range tables {
		n, err := a.count(ctx, t, m)
		if err != nil {
			return out, err
		}
		out[m] = n
	}
	return out, nil
}

// NewWriter returns the writer of worker (it posts to URL worker % len(URLs)).
func (t *Target) NewWriter(ctx context.Context, worker int) (load.Writer, error) {
	a, err := t.theAPI(ctx)
	if err != nil {
		return nil, err
	}
	if t.cfg.DBName == "" {
		return nil, load.Settingf("no database name ({DBName})")
	}
	path, query := a.write(&t.cfg)
	return &Writer{p: t.client.NewPoster(worker), api: a, path: path, query: query, gzip: t.cfg.Gzip, db: t.cfg.DBName, rp: t.cfg.RP,
		volatile: t.cfg.NoSync}, nil
}
