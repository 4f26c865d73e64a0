// Package prometheus is the Prometheus target: it sends line-protocol
// batches as remote write 1.0 requests (package remotewrite: protobuf,
// snappy) to /api/v1/write, round-robin over Config.URLs, and verifies
// through PromQL (count.go).
//
// How the server stores a line. Each field of a line becomes one float64
// sample of the series <measurement>_<field> whose labels are the line's
// tags plus db=<database>, as VictoriaMetrics stores a line: a "database"
// is that label, and dropping one deletes its series (the admin API's
// delete_series). Samples keep milliseconds. The Writer refuses, naming
// the line, what the server would store other than as sent: strings,
// integers float64 does not hold exactly, a missing timestamp or one finer than a
// millisecond, names that are not Prometheus names.
//
// The server must run with --web.enable-remote-write-receiver and, for
// data older than its head block (generated data starts in 2016),
// storage.tsdb.out_of_order_time_window in its configuration:
// scripts/start_prometheus.sh sets both.
//
// Duplicates. A sample with the series and millisecond of one the server
// holds is dropped (an identical one silently; in the in-order head a
// different value is refused, 400), and queries merge samples of one
// timestamp: a batch sent again (a retry, a resumed load) stores nothing
// twice, so the target overwrites and resends batches in doubt.
//
// What a /api/v1/write answer means (storage/remote/write_handler.go of
// 2.42). The server appends the samples of a request in one transaction
// and rolls it back on the first error: a refused request stored nothing.
//
//	204                                 written
//	400 out of order, out of bounds,    fatal, with the server's message (out of bounds: a sample
//	    duplicate sample for timestamp  older than the out-of-order window)
//	400 other                           fatal: a body the server could not decode
//	404                                 fatal: the remote-write receiver is off
//	401, 403                            fatal: check the user and password
//	429, 5xx; network error             retryable: nothing of the batch was stored
package prometheus

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/results"
	"github.com/tsload/tsload/pkg/target/httpwrite"
	"github.com/tsload/tsload/pkg/target/remotewrite"
)

// Config is the target's configuration.
type Config struct {
	httpwrite.Conn        // Gzip must be off: remote write bodies are snappy-compressed
	DBName         string // the db label; overridden by PrepareOptions.DBName when set
	Precision      string // ns, us, ms or s: the unit of the input's timestamps
	// Log receives notes; nil discards them.
	Log io.Writer
}

// Validate checks the configuration.
func (c *Config) Validate() error {
	if _, err := unit(c.Precision); err != nil {
		return err
	}
	if c.Gzip {
		return load.Settingf("{Gzip} is not taken: remote write bodies are snappy-compressed")
	}
	return c.Conn.Validate()
}

func unit(precision string) (time.Duration, error) {
	switch precision {
	case "ns", "us", "ms", "s":
		return format.ParseUnit(precision)
	}
	return 0, load.Settingf("invalid {Precision} %q (want ns, us, ms or s)", precision)
}

// API names the write API in the results' setup.
const API = "remote-write 1.0"

// horizon is how far after now the target takes samples: Count and Content
// read up to there.
const horizon = 366 * 24 * time.Hour

// Target is a Prometheus server (or several behind Config.URLs).
type Target struct {
	cfg    Config
	unit   time.Duration
	client *httpwrite.Client
	p      *httpwrite.Poster // queries and admin calls
	// ooo is the server's out_of_order_time_window ("" until read).
	ooo string
	// shape is the number of fields of the lines this process wrote to
	// each measurement (-1: not all the same), merged from the writers.
	mu    sync.Mutex
	shape map[string]int
}

var _ load.Target = (*Target)(nil)

// New checks cfg and returns the target. It does not contact the server.
func New(cfg Config) (*Target, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	u, _ := unit(cfg.Precision)
	o := cfg.Options()
	o.ErrorBodyLimit = 256 << 20 // query answers are read whole
	client, err := httpwrite.NewClient(o)
	if err != nil {
		return nil, err
	}
	return &Target{cfg: cfg, unit: u, client: client, p: client.NewPoster(0), shape: map[string]int{}}, nil
}

// Hooks declares the target's optional behaviours (load.Hooks).
func (t *Target) Hooks() load.Hooks {
	return load.Hooks{
		Overwrites: true,
		LineUnit:   t.unit,
		NewQuerier: t.NewQuerier,
	}
}

// Close releases idle connections.
func (t *Target) Close() error {
	t.client.Close()
	return nil
}

// Takes are the input formats the target loads itself, its Accepts and
// its command's --format help made of them (loadcli.Spec.Takes; the
// runner writes CSV as lines for it).
var Takes = []format.Format{format.ILP}

// Accepts takes line protocol (CSV is written as lines by the runner).
func (t *Target) Accepts(f format.Format) error {
	if !slices.Contains(Takes, f) {
		return fmt.Errorf("Prometheus takes line protocol here, not %s (generate the data as ILP)", f)
	}
	return nil
}

// Ping checks once that the server listens at every URL.
func (t *Target) Ping(ctx context.Context) error {
	return httpwrite.ReachURLs(ctx, "Prometheus", t.cfg.URLs)
}

// ServerAddr is the host:port of the first URL.
func (t *Target) ServerAddr() string { return httpwrite.HostPort(t.cfg.URLs[0]) }

// Prepare checks that the server takes remote writes, reads its
// out-of-order window, then drops (DropDB: deletes every series with the
// db label) and checks (AbortOnExist) the database. Creating one needs
// nothing: the first write makes its series.
func (t *Target) Prepare(ctx context.Context, opts load.PrepareOptions) error {
	if err := t.receiverOn(ctx); err != nil {
		return err
	}
	ooo, err := t.oooWindow(ctx)
	if err != nil {
		return err
	}
	t.ooo = ooo
	return httpwrite.PrepareDatabase(ctx, opts, &t.cfg.DBName, t.p.BaseURL(), httpwrite.Database{
		Drop:   t.drop,
		Exists: t.exists,
		Create: func(context.Context, string) error { return nil },
	})
}

// receiverOn posts an empty WriteRequest to every URL: 204 when the
// remote-write receiver is on.
func (t *Target) receiverOn(ctx context.Context) error {
	for i := range t.cfg.URLs {
		res, err := t.client.NewPoster(i).Post(ctx, httpwrite.Request{Path: "/api/v1/write", ContentType: remotewrite.ContentType,
			Header: remotewrite.Headers, Body: []byte{0}, NoCompress: true})
		if err != nil {
			return fmt.Errorf("prometheus: %w", err)
		}
		if res.Status == http.StatusNotFound {
			return fmt.Errorf("prometheus: %s answers 404: start the server with --web.enable-remote-write-receiver (scripts/start_prometheus.sh does)", res.URL)
		}
		if res.Status/100 != 2 {
			return fmt.Errorf("prometheus: an empty remote write to %s: %d %s", res.URL, res.Status, httpwrite.Snippet(res.Body, 300))
		}
	}
	return nil
}

// oooWindow is storage.tsdb.out_of_order_time_window of the server's
// configuration ("0s" when unset).
func (t *Target) oooWindow(ctx context.Context) (string, error) {
	var ans struct {
		Data struct {
			YAML string `json:"yaml"`
		} `json:"data"`
	}
	if err := t.getJSON(ctx, "/api/v1/status/config", nil, &ans); err != nil {
		return "", fmt.Errorf("prometheus: %w", err)
	}
	var c struct {
		Storage struct {
			TSDB struct {
				Window string `yaml:"out_of_order_time_window"`
			} `yaml:"tsdb"`
		} `yaml:"storage"`
	}
	if err := yaml.Unmarshal([]byte(ans.Data.YAML), &c); err != nil {
		return "", fmt.Errorf("prometheus: /api/v1/status/config: %v", err)
	}
	if w := c.Storage.TSDB.Window; w != "" {
		return w, nil
	}
	return "0s", nil
}

// InDoubt: batches in doubt are sent again: samples already stored are
// dropped as duplicates. Without an out-of-order window a re-sent batch
// older than the head would be refused (400 out of order), so a stopped
// load could not be resumed.
func (t *Target) InDoubt(ctx context.Context, _ []string) (load.InDoubt, error) {
	w, err := t.oooWindow(ctx)
	if err != nil {
		return 0, err
	}
	if w == "0s" {
		return 0, errors.New("prometheus: the server has no storage.tsdb.out_of_order_time_window, so a batch sent again would be refused as out of order: a stopped load cannot be resumed (scripts/start_prometheus.sh sets 100y)")
	}
	return load.ResendInDoubt, nil
}

// Describe: the URLs, the API, the db label and the out-of-order window.
func (t *Target) Describe() *results.Setup {
	s := map[string]any{"request-timeout": t.cfg.RequestTimeout.String()}
	if t.ooo != "" {
		s["out_of_order_time_window"] = t.ooo
	}
	return &results.Setup{URL: strings.Join(t.cfg.URLs, ","), API: API, Database: "db=" + t.cfg.DBName, Settings: s}
}

// ServerVersion is /api/v1/status/buildinfo's version ("Prometheus 2.42.0+ds").
func (t *Target) ServerVersion(ctx context.Context) (string, error) {
	var ans struct {
		Data struct {
			Version string `json:"version"`
		} `json:"data"`
	}
	if err := t.getJSON(ctx, "/api/v1/status/buildinfo", nil, &ans); err != nil {
		return "", fmt.Errorf("prometheus: %w", err)
	}
	if ans.Data.Version == "" {
		return "", errors.New("prometheus: /api/v1/status/buildinfo names no version")
	}
	return "Prometheus " + ans.Data.Version, nil
}

// NewWriter returns the writer of worker (it posts to URL worker % len(URLs)).
func (t *Target) NewWriter(ctx context.Context, worker int) (load.Writer, error) {
	if t.cfg.DBName == "" {
		return nil, load.Settingf("no database name ({DBName})")
	}
	enc, err := remotewrite.New(remotewrite.Rules{Unit: t.unit, Max: time.Now().Add(horizon).UnixMilli(),
		Why: "the loader counts samples up to a year ahead"}, remotewrite.Label{Name: "db", Value: t.cfg.DBName})
	if err != nil {
		return nil, err
	}
	return &Writer{t: t, p: t.client.NewPoster(worker), enc: enc}, nil
}

// Writer posts batches to /api/v1/write for one worker.
type Writer struct {
	t    *Target
	p    *httpwrite.Poster
	enc  *remotewrite.Encoder
	body []byte
}

var _ load.Writer = (*Writer)(nil)

// Close does nothing: connections belong to the Target's client.
func (w *Writer) Close() error { return nil }

// Write encodes b (refusing, before sending anything, a line the server
// would not store as sent), posts it and interprets the answer.
func (w *Writer) Write(ctx context.Context, b *load.Batch) (load.Ack, error) {
	if b.Format != format.ILP {
		return load.Ack{}, fmt.Errorf("prometheus: the target takes line protocol, not %s", b.Format)
	}
	var err error
	if w.body, err = w.enc.Encode(w.body, b.Data); err != nil {
		var le *remotewrite.LineError
		if errors.As(err, &le) {
			return load.Ack{}, fmt.Errorf("prometheus: line %d: %s; nothing of the batch was sent", b.FirstLine+le.Line-1, le.Reason)
		}
		return load.Ack{}, fmt.Errorf("prometheus: %w", err)
	}
	res, err := w.p.Post(ctx, httpwrite.Request{Path: "/api/v1/write", ContentType: remotewrite.ContentType,
		Header: remotewrite.Headers, Body: w.body, NoCompress: true})
	if err != nil {
		return load.Ack{}, fmt.Errorf("prometheus: %w", err)
	}
	ack, err := interpret(b, res.Status, res.Body)
	if ack.Rows > 0 {
		w.t.addShape(w.enc.Shape)
	}
	return ack, err
}

func interpret(b *load.Batch, status int, body []byte) (load.Ack, error) {
	msg := strings.TrimSpace(httpwrite.Snippet(body, 500))
	stored := strings.Contains(msg, "out of order") || strings.Contains(msg, "out of bounds") || strings.Contains(msg, "duplicate sample")
	switch {
	case status >= 200 && status < 300:
		return load.Ack{Rows: b.Rows}, nil
	case stored:
		hint := ""
		if strings.Contains(msg, "out of bounds") || strings.Contains(msg, "out of order") {
			hint = " (samples older than the head need storage.tsdb.out_of_order_time_window: scripts/start_prometheus.sh sets 100y)"
		}
		return load.Ack{}, fmt.Errorf("prometheus: server refused the batch of %s (%d %s)%s; nothing of it was stored", lines(b), status, msg, hint)
	case status == http.StatusTooManyRequests || status >= 500:
		return load.Ack{}, load.Retryable(fmt.Errorf("prometheus: server busy or failing (%d %s)", status, msg))
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return load.Ack{}, load.Settingf("prometheus: authentication failed (%d): check the user ({User}) and password ({Password})", status)
	case status == http.StatusNotFound:
		return load.Ack{}, errors.New("prometheus: /api/v1/write answers 404: start the server with --web.enable-remote-write-receiver")
	}
	return load.Ack{}, fmt.Errorf("prometheus: server refused the batch of %s (%d %s); nothing of it is counted as written", lines(b), status, msg)
}

// lines names the input lines of b.
func lines(b *load.Batch) string {
	return fmt.Sprintf("%s lines %d-%d", b.Source, b.FirstLine, b.FirstLine+int64(bytes.Count(b.Data, []byte{'\n'}))-1)
}

// addShape merges a writer's batch shape into t.shape.
func (t *Target) addShape(batch map[string]int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for m, k := range batch {
		if old, ok := t.shape[m]; !ok {
			t.shape[m] = k
		} else if old != k {
			t.shape[m] = -1
		}
	}
}

// fieldsOf is the number of fields every line this process wrote to m
// had (0: none written, or not all the same).
func (t *Target) fieldsOf(m string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return max(t.shape[m], 0)
}

// getJSON GETs path?v and decodes a 200 answer into out.
func (t *Target) getJSON(ctx context.Context, path string, v url.Values, out any) error {
	return getJSON(ctx, t.p, path, v, out)
}

// getJSON GETs path?v through p and decodes a 200 answer into out.
func getJSON(ctx context.Context, p *httpwrite.Poster, path string, v url.Values, out any) error {
	res, err := p.Post(ctx, httpwrite.Request{Method: http.MethodGet, Path: path, Query: v.Encode(), Accept: "application/json", NoCompress: true})
	if err != nil {
		return err
	}
	if res.Status != 200 || res.Truncated {
		return fmt.Errorf("GET %s: %d %s (truncated %v)", path, res.Status, httpwrite.Snippet(res.Body, 300), res.Truncated)
	}
	if err := json.Unmarshal(res.Body, out); err != nil {
		return fmt.Errorf("GET %s: unreadable answer: %v (%s)", path, err, httpwrite.Snippet(res.Body, 200))
	}
	return nil
}
