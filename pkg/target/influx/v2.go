package influx

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// apiV2 is InfluxDB 2.x: /api/v2/write into a bucket of an organization,
// buckets through /api/v2/buckets, counts through Flux on /api/v2/query.
// Errors are JSON {"code": "...", "message": "..."}.
//
// What a write answer means (InfluxDB 2.7.12, checked against the server):
//
//	204                                          written
//	400 "unable to parse '<line>': <reason>"...  NOTHING written; every unparsable line is named:
//	                                             the rest of the batch is re-sent without them and
//	                                             the named lines are reported as rejected
//	400 other (precision, gzip)                  nothing written: fatal
//	401 "unauthorized access"                    fatal (token)
//	403 "insufficient permissions for write"     fatal (token)
//	404 bucket or organization not found         fatal
//	413 "points batch is too large"              fatal: lower the batch size
//	422 "failure writing points to database:     good points written, N dropped by the storage
//	     partial write: <reason> dropped=N"      (field type conflict, retention): reported
//	429, 503                                     retryable (after Retry-After when given)
//	500 "... cache-max-memory-size exceeded"     nothing written: retryable
//	500 "... timeout"                            retryable (a re-send overwrites the same points)
//	500 other                                    fatal
type apiV2 struct{}

func (apiV2) name() API { return APIv2 }

func (c *Config) bucket() string {
	if c.Bucket != "" {
		return c.Bucket
	}
	return c.DBName
}

func (apiV2) write(c *Config) (string, string) {
	q := url.Values{"org": {c.Org}, "bucket": {c.bucket()}, "precision": {precisionNames[APIv2][c.Precision]}}
	return "/api/v2/write", q.Encode()
}

// v2Error is the body of a 2.x error answer.
type v2Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func v2Message(body []byte) string {
	var e v2Error
	if json.Unmarshal(body, &e) == nil && e.Message != "" {
		return e.Message
	}
	if len(body) == 0 {
		return "(empty body)"
	}
	return httpwrite.Snippet(body, 500)
}

const v2StoragePrefix = "failure writing points to database: "

func (a apiV2) interpret(ctx context.Context, w *Writer, b *load.Batch, res *httpwrite.Response) (load.Ack, error) {
	if res.Status >= 200 && res.Status < 300 {
		return load.Ack{Rows: b.Rows}, nil
	}
	msg := v2Message(res.Body)
	switch res.Status {
	case 400:
		if res.Truncated {
			return load.Ack{}, fmt.Errorf("influx: server refused the batch (400) with a message longer than the loader reads: %s", httpwrite.Snippet([]byte(msg), 300))
		}
		return a.refused(ctx, w, b, msg)
	case 401, 403:
		return load.Ack{}, load.Settingf("influx: authentication failed (%d %s): check the token ({Token}) and that it may write to bucket %q", res.Status, msg, w.db)
	case 404:
		return load.Ack{}, load.Settingf("influx: %s (404): create the bucket with {CreateDB}, or check the organization ({Org}) and bucket ({Bucket})", msg)
	case 413:
		return load.Ack{}, load.NotWritten(load.Settingf("influx: request body too large (413 %s): lower {BatchSize} (this batch has %d rows, %d bytes before compression)", msg, b.Rows, len(b.Data)))
	case 422:
		if rest, ok := strings.CutPrefix(msg, v2StoragePrefix); ok && strings.HasPrefix(rest, partialPrefix) {
			// The storage layer's partial write: the same words as 1.x.
			return partialAck(b, []byte(rest))
		}
	case 429, 503:
		return load.Ack{}, busy(res, []byte(msg))
	case 500:
		switch {
		case strings.Contains(msg, "cache-max-memory-size exceeded"):
			return load.Ack{}, load.Retryable(fmt.Errorf("influx: server cache full (500 %s)", msg))
		case msg == "timeout" || strings.HasSuffix(msg, ": timeout"):
			return load.Ack{}, load.Retryable(fmt.Errorf("influx: server write timeout (500 %s)", msg))
		}
	}
	return load.Ack{}, fmt.Errorf("influx: server answered %d: %s", res.Status, msg)
}

// refused handles a 400. When the message lists unparsable lines, 2.x wrote
// nothing of the batch (it parses the whole body before writing): the named
// lines are rejected and the others re-sent once, so the outcome is what
// 1.x's partial write gives. Any other 400 refuses the batch.
func (a apiV2) refused(ctx context.Context, w *Writer, b *load.Batch, msg string) (load.Ack, error) {
	we := parseWriteError([]byte(msg))
	if we.partial || len(we.parse) == 0 {
		return load.Ack{}, load.NotWritten(fmt.Errorf("influx: server refused the batch (400 %s); nothing of it is written", httpwrite.Snippet([]byte(msg), 500)))
	}
	idx := indexLines(b.Data)
	drop := make(map[int64]bool, len(we.parse))
	rej := make([]load.Rejection, 0, len(we.parse))
	for _, f := range we.parse {
		n := idx.take(f.line)
		reason := f.reason
		for _, at := range f.alt {
			if n >= 0 {
				break
			}
			if n = idx.take(f.raw[:at]); n >= 0 {
				reason = string(f.raw[at+3:])
			}
		}
		if n < 0 {
			return load.Ack{}, fmt.Errorf("influx: server refused the batch (400) naming a line that is not in it: unable to parse '%s", httpwrite.Snippet(f.raw, 300))
		}
		drop[n] = true
		rej = append(rej, load.Rejection{Line: b.FirstLine + n, Reason: "unable to parse: " + reason})
	}
	if len(drop) >= b.Rows {
		return load.Ack{Rows: 0, Rejected: rej, Dropped: len(rej)}, nil
	}
	rest := withoutLines(b.Data, drop)
	res, err := w.post(ctx, rest)
	if err != nil {
		return load.Ack{}, fmt.Errorf("%w (re-sending the batch without its %d unparsable lines)", err, len(drop))
	}
	if res.Status < 200 || res.Status >= 300 {
		// Not the same batch any more: classify it, but never re-send twice.
		sub := *b
		sub.Data, sub.Rows = rest, b.Rows-len(drop)
		if res.Status == 400 {
			return load.Ack{}, fmt.Errorf("influx: server refused the batch without its %d unparsable lines too (400 %s)", len(drop), httpwrite.Snippet([]byte(v2Message(res.Body)), 300))
		}
		ack, err := a.interpret(ctx, w, &sub, res)
		if err != nil {
			return ack, fmt.Errorf("%w (re-sending the batch without its %d unparsable lines)", err, len(drop))
		}
		ack.Rejected = append(rej, ack.Rejected...)
		ack.Dropped += len(drop)
		return ack, nil
	}
	return load.Ack{Rows: b.Rows - len(drop), Rejected: rej, Dropped: len(drop)}, nil
}

// withoutLines returns data without the 0-based lines in drop.
func withoutLines(data []byte, drop map[int64]bool) []byte {
	out := make([]byte, 0, len(data))
	var n int64
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i+1], data[i+1:]
		} else {
			data = nil
		}
		if !drop[n] {
			out = append(out, line...)
		}
		n++
	}
	return out
}

// v2Do sends one management request and decodes a 2xx JSON answer into out
// (when out is not nil). It returns the status; a 404 is not an error here
// (the caller knows what is missing).
func (t *Target) v2Do(ctx context.Context, method, path string, query url.Values, in, out any) (int, error) {
	req := httpwrite.Request{Method: method, Path: path, Query: query.Encode(), NoCompress: true, ContentType: "application/json", Accept: "application/json"}
	if in != nil {
		body, err := json.Marshal(in)
		if err != nil {
			return 0, err
		}
		req.Body = body
	}
	res, err := t.query.Post(ctx, req)
	if err != nil {
		return 0, fmt.Errorf("%s %s: %w", method, path, err)
	}
	switch {
	case res.Status == 401 || res.Status == 403:
		return res.Status, load.Settingf("%s %s: authentication failed (%d %s): check the token ({Token})", method, path, res.Status, v2Message(res.Body))
	case res.Status == 404:
		return 404, nil
	case res.Status < 200 || res.Status >= 300:
		return res.Status, fmt.Errorf("%s %s: %s answered %d: %s", method, path, t.query.BaseURL(), res.Status, v2Message(res.Body))
	}
	if out != nil {
		if err := json.Unmarshal(res.Body, out); err != nil {
			return res.Status, fmt.Errorf("%s %s: unreadable answer: %v (%s)", method, path, err, httpwrite.Snippet(res.Body, 200))
		}
	}
	return res.Status, nil
}

func (t *Target) v2OrgID(ctx context.Context) (string, error) {
	var orgs struct {
		Orgs []struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"orgs"`
	}
	status, err := t.v2Do(ctx, http.MethodGet, "/api/v2/orgs", url.Values{"org": {t.cfg.Org}}, nil, &orgs)
	if err != nil {
		return "", err
	}
	for _, o := range orgs.Orgs {
		if status == 200 && o.Name == t.cfg.Org {
			return o.ID, nil
		}
	}
	return "", load.Settingf("organization %q not found on %s ({Org})", t.cfg.Org, t.query.BaseURL())
}

// v2BucketID returns the ID of the bucket named name in org, "" when none.
func (t *Target) v2BucketID(ctx context.Context, orgID, name string) (string, error) {
	var buckets struct {
		Buckets []struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"buckets"`
	}
	status, err := t.v2Do(ctx, http.MethodGet, "/api/v2/buckets", url.Values{"orgID": {orgID}, "name": {name}}, nil, &buckets)
	if err != nil || status == 404 {
		return "", err
	}
	for _, b := range buckets.Buckets {
		if b.Name == name {
			return b.ID, nil
		}
	}
	return "", nil
}

func (apiV2) prepare(ctx context.Context, t *Target, opts load.PrepareOptions) error {
	if opts.DBName != "" {
		t.cfg.DBName = opts.DBName
	}
	orgID, err := t.v2OrgID(ctx)
	if err != nil {
		return err
	}
	// The bucket is Bucket, else the database name.
	bopts := opts
	bopts.DBName = t.cfg.bucket()
	return httpwrite.PrepareDatabase(ctx, bopts, &t.cfg.Bucket, t.query.BaseURL(), httpwrite.Database{
		Drop: func(ctx context.Context, name string) error {
			id, err := t.v2BucketID(ctx, orgID, name)
			if err != nil || id == "" {
				return err
			}
			_, err = t.v2Do(ctx, http.MethodDelete, "/api/v2/buckets/"+url.PathEscape(id), nil, nil, nil)
			return err
		},
		Exists: func(ctx context.Context, name string) (bool, error) {
			id, err := t.v2BucketID(ctx, orgID, name)
			return id != "", err
		},
		Create: func(ctx context.Context, name string) error {
			in := map[string]any{"orgID": orgID, "name": name, "retentionRules": []any{}}
			status, err := t.v2Do(ctx, http.MethodPost, "/api/v2/buckets", nil, in, nil)
			if err == nil && status == 404 {
				err = fmt.Errorf("POST /api/v2/buckets: 404 (organization %q gone?)", t.cfg.Org)
			}
			return err
		},
	})
}

// fluxString quotes s as a Flux string literal.
func fluxString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "${", `\${`).Replace(s) + `"`
}

// v2CountQuery counts the points of measurement m: a point is a series
// (the group key less _field) at one time, whatever fields it has, so the
// distinct times of each series are counted and summed. Points of the same
// series and time are one point, as the storage keeps them. _value goes
// first (fields of one series may differ in type, which unique refuses);
// the count lands in the _field column (count refuses a time column).
func v2CountQuery(bucket, m string) string {
	return `from(bucket: ` + fluxString(bucket) + `)
  |> range(start: 1677-09-21T00:12:44Z, stop: 2262-04-11T23:47:16Z)
  |> filter(fn: (r) => r._measurement == ` + fluxString(m) + `)
  |> drop(columns: ["_value"])
  |> group(columns: ["_field", "_time"], mode: "except")
  |> unique(column: "_time")
  |> count(column: "_field")
  |> group()
  |> sum(column: "_field")`
}

func (apiV2) count(ctx context.Context, t *Target, m string) (int64, error) {
	body, err := t.postFlux(ctx, t.query, v2CountQuery(t.cfg.bucket(), m))
	if err != nil {
		return 0, fmt.Errorf("count %s: %w", m, err)
	}
	return sumFluxColumn(body, "_field")
}

// sumFluxColumn adds up column col of a Flux CSV answer (no annotations;
// one header per table). No rows is 0.
func sumFluxColumn(body []byte, col string) (int64, error) {
	r := csv.NewReader(bytes.NewReader(body))
	r.FieldsPerRecord = -1
	r.ReuseRecord = true
	var total int64
	at := -1
	for {
		rec, err := r.Read()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return total, nil
			}
			return 0, fmt.Errorf("reading the Flux answer: %v (%s)", err, httpwrite.Snippet(body, 200))
		}
		if at < 0 {
			for i, name := range rec {
				if name == col {
					at = i
				}
			}
			if at < 0 {
				if len(rec) > 1 && rec[1] == "error" {
					return 0, fmt.Errorf("flux error: %s", httpwrite.Snippet(body, 300))
				}
				return 0, fmt.Errorf("flux answer without a %s column: %s", col, httpwrite.Snippet(body, 200))
			}
			continue
		}
		if at >= len(rec) {
			return 0, fmt.Errorf("short row in the Flux answer: %s", httpwrite.Snippet(body, 200))
		}
		if rec[at] == col {
			continue // the next table's header (encoding/csv skips the blank line between)
		}
		n, err := strconv.ParseInt(rec[at], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("flux answer: %s is %q: %v", col, rec[at], err)
		}
		total += n
	}
}
