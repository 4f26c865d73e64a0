package influx

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/tsload/tsload/pkg/fingerprint"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// apiV1 is InfluxDB 1.x: /write, and InfluxQL over /query.
//
// What a /write answer means (InfluxDB 1.6.7, checked):
//
//	204                                    written
//	400 "partial write: ... dropped=N"     good lines written, the rest dropped: reported, never re-sent
//	400 other                              nothing written (e.g. every line unparsable): fatal
//	404 database not found                 fatal
//	401/403                                fatal (credentials)
//	413                                    fatal: lower the batch size or enable Gzip
//	500 "cache-max-memory-size exceeded"   nothing written: retryable
//	500 "timeout"                          retryable (a re-send overwrites the same points)
//	500 "retention policy not found"       fatal
//	503 "request throttled, queue full"    retryable (max-concurrent-write-limit); also 429
//	network error                          retryable
type apiV1 struct{}

func (apiV1) name() API { return APIv1 }

func (apiV1) write(c *Config) (path, query string) {
	q := url.Values{"db": {c.DBName}, "precision": {c.Precision}}
	if c.RP != "" {
		q.Set("rp", c.RP)
	}
	if c.Consistency != "" {
		q.Set("consistency", c.Consistency)
	}
	return "/write", q.Encode()
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
			Name    string            `json:"name"`
			Tags    map[string]string `json:"tags"`
			Columns []string          `json:"columns"`
			Values  [][]interface{}   `json:"values"`
		} `json:"series"`
	} `json:"results"`
	Error string `json:"error"`
}

// Query runs one InfluxQL statement and returns its result, treating an
// error in the body (which /query reports with HTTP 200) as an error.
func (t *Target) Query(ctx context.Context, db, q string) (*queryResponse, error) {
	return t.query1(ctx, db, q, false)
}

// query1 is Query; exact keeps the answer's numbers as json.Number
// (integer sums and nanosecond times exceed a float64's 53 bits).
func (t *Target) query1(ctx context.Context, db, q string, exact bool) (*queryResponse, error) {
	form := url.Values{"q": {q}}
	if db != "" {
		form.Set("db", db)
	}
	res, err := t.query.Post(ctx, httpwrite.Request{
		Path: "/query", ContentType: "application/x-www-form-urlencoded",
		Body: []byte(form.Encode()), NoCompress: true,
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", q, err)
	}
	var qr queryResponse
	dec := json.NewDecoder(bytes.NewReader(res.Body))
	if exact {
		dec.UseNumber()
	}
	jerr := dec.Decode(&qr)
	switch {
	case res.Status == 401 || res.Status == 403:
		return nil, load.Settingf("%s: authentication failed (%d %s): check the user ({User}) and password ({Password})", q, res.Status, serverMessage(res.Body))
	case res.Status != 200:
		return nil, fmt.Errorf("%s: %s answered %d: %s", q, t.query.BaseURL(), res.Status, serverMessage(res.Body))
	case jerr != nil:
		return nil, fmt.Errorf("%s: unreadable answer from %s: %v (%s)", q, t.query.BaseURL(), jerr, httpwrite.Snippet(res.Body, 200))
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
	return httpwrite.Snippet(body, 500)
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

// prepare drops, checks and creates the database, and checks RP exists.
func (apiV1) prepare(ctx context.Context, t *Target, opts load.PrepareOptions) error {
	err := httpwrite.PrepareDatabase(ctx, opts, &t.cfg.DBName, t.query.BaseURL(), httpwrite.Database{
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
			return load.Settingf("retention policy %q not found on database %q ({RP})", t.cfg.RP, db)
		}
	}
	return nil
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

// count returns the number of points of measurement m. InfluxQL has no
// row count: SELECT COUNT(*) gives one count per field, which undercounts
// when fields are missing (null) in some points. So:
//   - when every field has the same count, that is the number of points;
//   - otherwise, with a the numeric field of the largest count, the points
//     missing a are found as COUNT(b) - COUNT(a + b) for each other numeric
//     field b (a + b is null unless both are present), and the largest is
//     added. a must be numeric: a + b with a boolean or string a is always
//     null, which counted every point of b again.
//
// This is exact when no point misses both a and some numeric b that covers
// it, which holds for tsload's data (at most one field of a row is null);
// otherwise it is a lower bound. A missing measurement counts 0.
func (apiV1) count(ctx context.Context, t *Target, m string) (int64, error) {
	per, err := t.counts(ctx, "SELECT COUNT(*) FROM "+t.from(m))
	if err != nil {
		return 0, err
	}
	return t.pointsOf(ctx, m, per, nil)
}

// pointsOf is count's reckoning from per, the count of every field of m;
// types are m's field types when the caller has them (nil: asked).
func (t *Target) pointsOf(ctx context.Context, m string, per map[string]int64, types map[string]fingerprint.Kind) (int64, error) {
	var max, min int64 = 0, -1
	for _, n := range per {
		max = maxInt(max, n)
		if min < 0 || n < min {
			min = n
		}
	}
	if len(per) <= 1 || min == max {
		return max, nil
	}
	// Fields missing in some points: add the points that lack best.
	if types == nil {
		var err error
		if types, err = t.fieldTypes(ctx, m); err != nil {
			return 0, err
		}
	}
	var numeric []string
	for f, k := range types {
		if (k == fingerprint.Float || k == fingerprint.Int) && per[f] > 0 {
			numeric = append(numeric, f)
		}
	}
	sort.Strings(numeric)
	best := ""
	for _, f := range numeric {
		if best == "" || per[f] > per[best] {
			best = f
		}
	}
	if best == "" {
		return max, nil
	}
	var extra int64
	for _, f := range numeric {
		if f == best {
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
	return maxInt(max, per[best]+extra), nil
}

func maxInt(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
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

// interpret reads a /write answer (see apiV1).
func (apiV1) interpret(_ context.Context, w *Writer, b *load.Batch, res *httpwrite.Response) (load.Ack, error) {
	status, body, truncated := res.Status, res.Body, res.Truncated
	if status >= 200 && status < 300 {
		return load.Ack{Rows: b.Rows}, nil
	}
	msg := errorText(body)
	switch status {
	case 400:
		if truncated {
			return load.Ack{}, fmt.Errorf("influx: server refused lines (400) with a message longer than the loader reads: %s", httpwrite.Snippet(msg, 300))
		}
		return partialAck(b, msg)
	case 401, 403:
		return load.Ack{}, load.Settingf("influx: authentication failed (%d %s): check the user ({User}) and password ({Password})", status, msg)
	case 404:
		return load.Ack{}, load.Settingf("influx: %s (404): create it with {CreateDB} or check {DBName}", msg)
	case 413:
		return load.Ack{}, load.NotWritten(load.Settingf("influx: request body too large (413: %s): lower {BatchSize} (this batch has %d rows, %d bytes before compression)"+
			map[bool]string{false: " or enable {Gzip}", true: ""}[w.gzip]+"; or raise [http] max-body-size on the server", msg, b.Rows, len(b.Data)))
	case 429, 503:
		return load.Ack{}, busy(res, msg)
	case 500:
		switch {
		case bytes.Contains(msg, []byte("cache-max-memory-size exceeded")):
			return load.Ack{}, load.Retryable(fmt.Errorf("influx: server cache full (500 %s)", msg))
		case string(msg) == "timeout" || bytes.HasSuffix(msg, []byte(": timeout")):
			return load.Ack{}, load.Retryable(fmt.Errorf("influx: server write timeout (500 %s)", msg))
		case bytes.Contains(msg, []byte("retention policy not found")):
			return load.Ack{}, load.Settingf("influx: %s (500): check {RP} (database %q)", msg, w.db)
		}
	}
	return load.Ack{}, fmt.Errorf("influx: server answered %d: %s", status, msg)
}
