// Package victoriametrics is the VictoriaMetrics (single node) target: it
// writes line-protocol batches to /write over HTTP (optional gzip,
// round-robin over Config.URLs) and verifies by counting the samples the
// server holds (count.go).
//
// How the server stores a line. Each field of a line becomes one sample
// of the metric <measurement>_<field> whose labels are the line's tags
// plus db=<database> (the /write request's db argument): a "database" is
// that label, and dropping one deletes its series. Values are numbers:
// integers and booleans become floats, and a quoted string field is read
// as a number when it is one and as 0 when it is not, so the Writer
// refuses string fields. Timestamps are kept to the millisecond (a finer
// part is cut off) and a timestamp of 0, or none, is the time of arrival:
// the Writer refuses such lines, naming them, before sending the batch.
//
// Duplicates. With -dedup.minScrapeInterval=1ms (scripts/start_victoriametrics.sh)
// a series keeps one sample per millisecond, so a batch sent again (a
// retry, a resumed load) overwrites its own samples: the target then
// overwrites (load.Overwriter) and resends batches in doubt. Without
// deduplication a re-sent batch is stored twice and a stopped load cannot
// be resumed. The target reads the setting from the server's /metrics.
//
// What a /write answer means (app/vminsert and lib/httpserver of v1.151.0).
// The server parses the whole body before it stores anything.
//
//	204                                            written
//	503 (too many concurrent inserts for           retryable: nothing, or (storage) part of
//	-insert.maxQueueDuration; storage cannot store) the batch, was stored; a re-send overwrites it
//	network error                                  retryable
//	400 (a line it cannot parse, a body over       fatal, with the server's message; nothing
//	-influx.maxRequestSize)                        of the batch was stored
//	401, 403                                       fatal: check the user and password
//	any other status                               fatal
package victoriametrics

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/results"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// Config is the target's configuration.
type Config struct {
	httpwrite.Conn        // User, Password: -httpAuth.username/-httpAuth.password
	DBName         string // the db label; overridden by PrepareOptions.DBName when set
	Precision      string // ns, us, ms or s: the unit of the input's timestamps
	Protocol       string // ProtocolLine ("": the default) or ProtocolRemoteWrite (remotewrite.go)
	// Log receives notes; nil discards them.
	Log io.Writer
}

// Precisions are the timestamp units the target takes (the server's
// precision argument; it would guess the unit from the digits of anything
// else).
var Precisions = []string{"ns", "us", "ms", "s"}

// Validate checks the configuration.
func (c *Config) Validate() error {
	if unitDigits(c.Precision) < 0 {
		return load.Settingf("invalid {Precision} %q (want ns, us, ms or s)", c.Precision)
	}
	if c.Protocol != "" && c.Protocol != ProtocolLine && c.Protocol != ProtocolRemoteWrite {
		return load.Settingf("invalid {Protocol} %q (want %s or %s)", c.Protocol, ProtocolLine, ProtocolRemoteWrite)
	}
	return c.Conn.Validate()
}

// unitDigits is how many trailing digits of a timestamp in precision are
// finer than a millisecond (-1: not a precision the target takes).
func unitDigits(precision string) int {
	switch precision {
	case "ns":
		return 6
	case "us":
		return 3
	case "ms", "s":
		return 0
	}
	return -1
}

// Target is a VictoriaMetrics server (or several behind Config.URLs).
type Target struct {
	cfg    Config
	client *httpwrite.Client
	p      *httpwrite.Poster // queries and admin calls
	unit   time.Duration     // of the lines' timestamps: Precision, parsed once (load.Hooks.LineUnit)
	// dedup is the server's -dedup.minScrapeInterval, read by Prepare
	// (-1 until then).
	dedup time.Duration
	// minMs, maxMs are the milliseconds the server keeps (its retention),
	// read by Prepare (0, 0 until then).
	minMs, maxMs int64
	// known are the measurements counted so far (count.go: a measurement
	// named after another plus "_" would share its metric names).
	known map[string]bool
	// shape is the number of fields of the lines this process wrote to
	// each measurement (-1: not all the same), merged from the writers.
	mu    sync.Mutex
	shape map[string]int
}

// addShape merges a writer's batch shape (CheckLines) into t.shape.
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

var _ load.Target = (*Target)(nil)

// API names the write API in the results' setup (the report's API
// column): line protocol over HTTP to /write, as QuestDB's "ilp/http".
const API = "ilp/http"

// New checks cfg and returns the target. It does not contact the server.
func New(cfg Config) (*Target, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	o := cfg.Options()
	o.ErrorBodyLimit = 64 << 20 // /metrics and query answers are read whole
	client, err := httpwrite.NewClient(o)
	if err != nil {
		return nil, err
	}
	unit, err := format.ParseUnit(cfg.Precision)
	if err != nil {
		return nil, load.Settingf("invalid {Precision} %q: %v", cfg.Precision, err)
	}
	return &Target{cfg: cfg, client: client, p: client.NewPoster(0), unit: unit, dedup: -1, known: map[string]bool{}, shape: map[string]int{}}, nil
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
		return fmt.Errorf("VictoriaMetrics takes line protocol here, not %s (generate the data as ILP)", f)
	}
	return nil
}

// Ping checks once that the server listens at every URL.
func (t *Target) Ping(ctx context.Context) error {
	return httpwrite.ReachURLs(ctx, "VictoriaMetrics", t.cfg.URLs)
}

// Prepare reads the server's deduplication and retention settings, then
// drops (DropDB:
// deletes every series with the db label), checks (AbortOnExist) the
// database. Creating one needs nothing: the first write makes its series.
func (t *Target) Prepare(ctx context.Context, opts load.PrepareOptions) error {
	m, err := t.metrics(ctx)
	if err != nil {
		return err
	}
	if t.dedup, err = dedupInterval(m); err != nil {
		return err
	}
	if t.minMs, t.maxMs, err = keeps(m, time.Now()); err != nil {
		return err
	}
	return httpwrite.PrepareDatabase(ctx, opts, &t.cfg.DBName, t.p.BaseURL(), httpwrite.Database{
		Drop:   t.drop,
		Exists: t.exists,
		Create: func(context.Context, string) error { return nil },
	})
}

// Overwrites: with deduplication on, a sample with the series and
// millisecond of one the server holds replaces it. Before Prepare it asks
// the server (Hooks are read at the start of a run), for at most two
// seconds; a server that does not answer then counts as one without.
func (t *Target) Overwrites() bool {
	if t.dedup < 0 {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if d, err := t.readDedup(ctx); err == nil {
			t.dedup = d
		}
	}
	return t.dedup > 0
}

// Hooks declares the target's optional behaviours (load.Hooks).
func (t *Target) Hooks() load.Hooks {
	return load.Hooks{
		Overwrites:   t.Overwrites(),
		LineUnit:     t.unit,
		FlushStorage: t.FlushStorage,
		NewQuerier:   t.NewQuerier,
	}
}

// InDoubt: batches in doubt are sent again, which needs
// deduplication on the server (a re-sent batch would otherwise be stored
// twice).
func (t *Target) InDoubt(ctx context.Context, _ []string) (load.InDoubt, error) {
	d, err := t.readDedup(ctx)
	if err != nil {
		return 0, err
	}
	if d <= 0 {
		return 0, errors.New("victoriametrics: the server runs without -dedup.minScrapeInterval, so a batch sent again would be stored twice: a stopped load cannot be resumed (scripts/start_victoriametrics.sh sets 1ms)")
	}
	return load.ResendInDoubt, nil
}

// Describe: the URLs, the API (line protocol over HTTP, /write), the db
// label, and the server's deduplication interval.
func (t *Target) Describe() *results.Setup {
	s := map[string]any{
		"gzip":            t.cfg.Gzip,
		"dedup":           t.dedup > 0,
		"request-timeout": t.cfg.RequestTimeout.String(),
	}
	if t.dedup >= 0 {
		s["dedup.minScrapeInterval"] = t.dedup.String()
	}
	api := API
	if t.cfg.Protocol == ProtocolRemoteWrite {
		api, s["gzip"] = APIRemoteWrite, false
	}
	return &results.Setup{URL: strings.Join(t.cfg.URLs, ","), API: api, Database: "db=" + t.cfg.DBName, Settings: s}
}

// ServerVersion is vm_app_version's version label on /metrics
// ("victoria-metrics-v1.151.0").
func (t *Target) ServerVersion(ctx context.Context) (string, error) {
	m, err := t.metrics(ctx)
	if err != nil {
		return "", err
	}
	v, err := appVersion(m)
	if err != nil {
		return "", err
	}
	return "VictoriaMetrics " + v, nil
}

// NewWriter returns the writer of worker (it posts to URL worker % len(URLs)).
func (t *Target) NewWriter(ctx context.Context, worker int) (load.Writer, error) {
	if t.cfg.DBName == "" {
		return nil, load.Settingf("no database name ({DBName})")
	}
	if t.cfg.Protocol == ProtocolRemoteWrite {
		return t.newRemoteWriter(worker)
	}
	q := url.Values{"db": {t.cfg.DBName}, "precision": {t.cfg.Precision}}
	return &Writer{t: t, p: t.client.NewPoster(worker), query: q.Encode(), gzip: t.cfg.Gzip, rules: Rules{Precision: t.cfg.Precision, Min: t.minMs, Max: t.maxMs}, shape: map[string]int{}}, nil
}

// Writer posts batches to /write for one worker.
type Writer struct {
	t     *Target
	shape map[string]int // the current batch's (CheckLines)
	p     *httpwrite.Poster
	query string
	gzip  bool
	rules Rules
}

var _ load.Writer = (*Writer)(nil)

// Close does nothing: connections belong to the Target's client.
func (w *Writer) Close() error { return nil }

// Write checks b's lines (CheckLines), posts it and interprets the answer
// (see the package documentation).
func (w *Writer) Write(ctx context.Context, b *load.Batch) (load.Ack, error) {
	if b.Format != format.ILP {
		return load.Ack{}, fmt.Errorf("victoriametrics: the server takes line protocol, not %s", b.Format)
	}
	clear(w.shape)
	if err := CheckLines(b.Data, w.rules, w.shape); err != nil {
		var le *LineError
		if errors.As(err, &le) {
			return load.Ack{}, fmt.Errorf("victoriametrics: line %d: %s; nothing of the batch was sent", b.FirstLine+le.Line-1, le.Reason)
		}
		return load.Ack{}, err
	}
	res, err := w.p.Post(ctx, httpwrite.Request{Path: "/write", Query: w.query, Body: b.Data})
	if err != nil {
		return load.Ack{}, fmt.Errorf("victoriametrics: %w", err)
	}
	ack, err := interpret(b, res.Status, res.Body)
	if ack.Rows > 0 {
		w.t.addShape(w.shape)
	}
	return ack, err
}

func interpret(b *load.Batch, status int, body []byte) (load.Ack, error) {
	msg := strings.TrimSpace(httpwrite.Snippet(body, 500))
	switch {
	case status >= 200 && status < 300:
		return load.Ack{Rows: b.Rows}, nil
	case status == http.StatusServiceUnavailable:
		return load.Ack{}, load.Retryable(fmt.Errorf("victoriametrics: server busy (503 %s)", msg))
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return load.Ack{}, load.Settingf("victoriametrics: authentication failed (%d): check the user ({User}) and password ({Password})", status)
	case status == http.StatusBadRequest && strings.Contains(msg, "maxRequestSize"):
		return load.Ack{}, load.Settingf("victoriametrics: request body too large (400 %s): lower {BatchSize} (this batch has %d rows, %d bytes)", msg, b.Rows, len(b.Data))
	}
	if line, reason, ok := badLine(body); ok {
		where := ""
		if i := bytes.Index(b.Data, append([]byte(line), '\n')); i >= 0 && (i == 0 || b.Data[i-1] == '\n') {
			where = fmt.Sprintf(" line %d", b.FirstLine+int64(bytes.Count(b.Data[:i], []byte{'\n'})))
		}
		return load.Ack{}, fmt.Errorf("victoriametrics: server refused the batch (%d):%s %q: %s; nothing of the batch is counted as written", status, where, httpwrite.Snippet([]byte(line), 200), reason)
	}
	return load.Ack{}, fmt.Errorf("victoriametrics: server refused the batch (%d %s); nothing of it is counted as written", status, msg)
}

// badLine reads the line and the reason out of the server's answer to a
// line it cannot parse: `... incorrect influx line "<the rest of the body,
// quoted>": <reason>; see https://...`.
func badLine(body []byte) (line, reason string, ok bool) {
	const marker = `incorrect influx line "`
	i := bytes.Index(body, []byte(marker))
	if i < 0 {
		return "", "", false
	}
	rest := body[i+len(marker)-1:]
	end := -1
	for j := 1; j < len(rest); j++ {
		if rest[j] == '\\' {
			j++
		} else if rest[j] == '"' {
			end = j
			break
		}
	}
	if end < 0 {
		return "", "", false
	}
	quoted, err := strconv.Unquote(string(rest[:end+1]))
	if err != nil {
		return "", "", false
	}
	line, _, _ = strings.Cut(quoted, "\n")
	reason = strings.TrimPrefix(string(rest[end+1:]), ": ")
	reason, _, _ = strings.Cut(reason, "; see https://")
	return line, strings.TrimSpace(reason), true
}

// LineError is a line CheckLines refuses: Line is 1-based within the data.
type LineError struct {
	Line   int64
	Reason string
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Reason) }

// Rules are what CheckLines holds lines to.
type Rules struct {
	// Precision is the unit of the timestamps: ns, us, ms or s.
	Precision string
	// Min and Max are the first and last millisecond the server keeps
	// (its retention; it drops other rows and answers 204); 0, 0: no
	// bound is checked.
	Min, Max int64
}

// CheckLines refuses what VictoriaMetrics would store other than as sent
// (its parser reads a value it cannot parse as a number as 0, takes a
// missing timestamp as the time of arrival, and its storage drops rows
// outside its retention and NaN values, answering 204): a line without a
// timestamp, or with timestamp 0; a timestamp with a part finer than a
// millisecond (the server cuts it off, and rows that differ only there
// would be one) or outside [r.Min, r.Max]; a string field; a field value
// that is not a number, an integer (i, u) or a boolean as line protocol
// writes them, or is NaN or infinite. Comment and blank lines pass.
//
// shape, when not nil, records the number of fields of each measurement's
// lines (-1 once two lines of it differ), for Count.
func CheckLines(data []byte, r Rules, shape map[string]int) error {
	fine := unitDigits(r.Precision)
	var n int64
	for len(data) > 0 {
		n++
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		fields, reason := checkLine(line, fine, r)
		if reason != "" {
			return &LineError{n, reason}
		}
		if shape != nil {
			m := line[:measurementEnd(line)]
			if k, ok := shape[string(m)]; !ok {
				shape[string(m)] = fields
			} else if k != fields {
				shape[string(m)] = -1
			}
		}
	}
	return nil
}

// measurementEnd is the index of the end of line's measurement: the first
// comma or space that no backslash escapes.
func measurementEnd(line []byte) int {
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case ',', ' ':
			return i
		}
	}
	return len(line)
}

// checkLine is CheckLines for one line: its number of fields and "" when
// it passes, else the reason.
func checkLine(line []byte, fine int, r Rules) (int, string) {
	fs := fieldsStart(line)
	sp := bytes.LastIndexByte(line, ' ')
	if sp < fs {
		return 0, "no timestamp (VictoriaMetrics would store the row at the time it arrives)"
	}
	ts := line[sp+1:]
	if !isInt(ts) {
		return 0, fmt.Sprintf("timestamp %q is not an integer (a line without one would be stored at the time it arrives)", ts)
	}
	if bytes.Equal(bytes.TrimPrefix(ts, []byte{'-'}), []byte("0")) {
		return 0, "timestamp 0 (VictoriaMetrics takes it as 'no timestamp' and stores the row at the time it arrives)"
	}
	if fine > 0 && (len(bytes.TrimPrefix(ts, []byte{'-'})) <= fine || !allZero(ts[len(ts)-fine:])) {
		return 0, fmt.Sprintf("timestamp %s has a part finer than a millisecond (VictoriaMetrics keeps milliseconds: rows that differ only there would be stored as one)", ts)
	}
	if r.Max > 0 {
		ms, ok := millis(ts, r.Precision)
		if !ok || ms < r.Min || ms > r.Max {
			return 0, fmt.Sprintf("timestamp %s is outside what the server keeps, %s to %s (it would drop the row and answer 204; see its -retentionPeriod and -futureRetention)",
				ts, time.UnixMilli(r.Min).UTC().Format(time.RFC3339), time.UnixMilli(r.Max).UTC().Format(time.RFC3339))
		}
	}
	fields := line[fs:sp]
	n := 0
	for len(fields) > 0 {
		eq, end := -1, len(fields)
	scan:
		for i := 0; i < len(fields); i++ {
			switch fields[i] {
			case '\\':
				i++
			case '=':
				if eq < 0 {
					eq = i
				}
			case ',':
				end = i
				break scan
			}
		}
		if eq < 0 {
			return 0, fmt.Sprintf("field %q has no value", fields[:end])
		}
		key, val := fields[:eq], fields[eq+1:end]
		if len(val) > 0 && val[0] == '"' {
			return 0, fmt.Sprintf("field %s is a string (VictoriaMetrics stores numbers only: it would store the string as 0)", key)
		}
		if !isNumber(val) {
			return 0, fmt.Sprintf("field %s: %q is not a number, an integer or a boolean (VictoriaMetrics would store 0)", key, val)
		}
		if stored, exact := intAsFloat(val); !exact {
			return 0, fmt.Sprintf("field %s: integer %s has no exact float64 (VictoriaMetrics stores float64, exact for integers up to 2^53: it would store %s)",
				key, val[:len(val)-1], stored)
		}
		n++
		if end == len(fields) {
			break
		}
		fields = fields[end+1:]
	}
	return n, ""
}

// isNumber reports whether v is a line-protocol value VictoriaMetrics reads
// as written: a finite float (123, -1.5, 1e-3, .5), an integer (12i, 12u)
// or a boolean (t, true, f, false and their capitals).
func isNumber(v []byte) bool {
	if len(v) == 0 {
		return false
	}
	switch v[len(v)-1] {
	case 'i':
		return isInt(v[:len(v)-1])
	case 'u':
		return len(v) > 1 && v[0] != '-' && isInt(v[:len(v)-1])
	}
	switch string(v) {
	case "t", "T", "true", "True", "TRUE", "f", "F", "false", "False", "FALSE":
		return true
	}
	i := 0
	if v[i] == '-' || v[i] == '+' {
		i++
	}
	mant := 0
	for ; i < len(v) && v[i] >= '0' && v[i] <= '9'; i++ {
		mant++
	}
	if i < len(v) && v[i] == '.' {
		i++
		for ; i < len(v) && v[i] >= '0' && v[i] <= '9'; i++ {
			mant++
		}
	}
	if mant == 0 {
		return false
	}
	exp := 0
	if i < len(v) && (v[i] == 'e' || v[i] == 'E') {
		i++
		if i < len(v) && (v[i] == '-' || v[i] == '+') {
			i++
		}
		for ; i < len(v) && v[i] >= '0' && v[i] <= '9'; i++ {
			exp++
		}
		if exp == 0 {
			return false
		}
	}
	if i != len(v) {
		return false
	}
	if exp == 0 && mant <= 300 {
		return true // finite: no exponent, fewer digits than float64's range
	}
	f, err := strconv.ParseFloat(string(v), 64)
	return err == nil && !math.IsInf(f, 0)
}

// intAsFloat reports whether v, a value isNumber accepted, is stored as
// sent by a float64 store: true for every float and boolean, and for an
// integer (i, u) that float64 holds exactly; else it also returns the
// value the store would hold instead.
func intAsFloat(v []byte) (stored string, exact bool) {
	if len(v) < 2 {
		return "", true
	}
	digits := string(v[:len(v)-1])
	switch v[len(v)-1] {
	case 'i':
		n, err := strconv.ParseInt(digits, 10, 64)
		if err != nil {
			return "a rounded value", false // beyond int64: no store takes it as sent
		}
		f := float64(n)
		if f < math.MaxInt64 && int64(f) == n {
			return "", true
		}
		return strconv.FormatFloat(f, 'f', 0, 64), false
	case 'u':
		n, err := strconv.ParseUint(digits, 10, 64)
		if err != nil {
			return "a rounded value", false
		}
		f := float64(n)
		if f < math.MaxUint64 && uint64(f) == n {
			return "", true
		}
		return strconv.FormatFloat(f, 'f', 0, 64), false
	}
	return "", true
}

// fieldsStart is the index of line's field set: after the first space
// that no backslash escapes (the measurement and tags hold no other).
func fieldsStart(line []byte) int {
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case ' ':
			return i + 1
		}
	}
	return len(line)
}

// millis is the timestamp ts (an integer, isInt) in milliseconds; false
// when it does not fit.
func millis(ts []byte, precision string) (int64, bool) {
	neg := len(ts) > 0 && ts[0] == '-'
	var v int64
	for _, c := range bytes.TrimPrefix(ts, []byte{'-'}) {
		if v > (math.MaxInt64-9)/10 {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	switch precision {
	case "ns":
		return v / 1e6, true
	case "us":
		return v / 1e3, true
	case "s":
		if v > math.MaxInt64/1000 || v < math.MinInt64/1000 {
			return 0, false
		}
		return v * 1000, true
	}
	return v, true
}

// isInt reports whether b is an optionally negative run of digits.
func isInt(b []byte) bool {
	b = bytes.TrimPrefix(b, []byte{'-'})
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != '0' {
			return false
		}
	}
	return true
}
