package influx

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// apiV3 is InfluxDB 3 (Core, Enterprise): /api/v3/write_lp, databases
// through /api/v3/configure/database, counts through SQL on
// /api/v3/query_sql. The server also takes /write and /api/v2/write; the
// loader uses the native endpoint for accept_partial and no_sync.
//
// What a write answer means (InfluxDB 3 documentation and server source):
//
//	204                                         written (after the WAL is persisted, unless no_sync)
//	400 {"error": "line protocol parsing        accept_partial=false: NOTHING written; data names
//	     error", "data": {line_number, ...}}    the first refused line: fatal
//	400 {"error": "partial write of line        accept_partial=true: the valid lines written; data
//	     protocol occurred", "data": [...]}     lists each refused line: reported as rejected
//	422 the same, with a limit among them       (columns or tables per database, databases): reported
//	422 {"error": "Adding a new database would  fatal: a limit of the server, not retried
//	     exceed limit of N databases"}
//	401, 403 (empty body)                       fatal (token)
//	413 or 500 "max request size (N bytes)     fatal, nothing written: the limit holds for the
//	     exceeded"                              body as sent and decompressed; 3.6.0 answers 500
//	429 "this service is overloaded, ..."       retryable (after Retry-After when given); also 503
//	500 "... wal buffer full ..."               retryable
//	500 other                                   fatal
//
// A refused line's line_number counts the request's lines less blank and
// comment lines, from 1; original_line is cut to 20 bytes by the server,
// so lines are mapped back by number.
type apiV3 struct{}

func (apiV3) name() API { return APIv3 }

func (apiV3) write(c *Config) (string, string) {
	q := url.Values{
		"db":             {c.DBName},
		"precision":      {precisionNames[APIv3][c.Precision]},
		"accept_partial": {strconv.FormatBool(c.AcceptPartial)},
		"no_sync":        {strconv.FormatBool(c.NoSync)},
	}
	return "/api/v3/write_lp", q.Encode()
}

// v3Error is the JSON body of most 3.x error answers.
type v3Error struct {
	Error string          `json:"error"`
	Data  json.RawMessage `json:"data"`
}

// v3LineError is one refused line.
type v3LineError struct {
	ErrorMessage string `json:"error_message"`
	LineNumber   int64  `json:"line_number"`
	OriginalLine string `json:"original_line"`
}

// v3Limit reports whether a refusal is one of the server's limits.
func v3Limit(msg string) bool {
	return strings.HasPrefix(msg, "Update to schema would exceed") || strings.HasPrefix(msg, "Adding a new database would exceed")
}

// v3Reason says what kind of refusal msg is, for the report.
func v3Reason(msg string) string {
	switch {
	case v3Limit(msg):
		return "server limit (not retried; raise it on the server or split the data): " + msg
	case strings.Contains(msg, "tag set is immutable") || strings.Contains(msg, "incorrect series key"):
		return "schema conflict (this server fixes a table's tags at its first write; write the new tag to another table): " + msg
	case strings.Contains(msg, "invalid column type") || strings.Contains(msg, "type mismatch") || strings.Contains(msg, "Series key mismatch"):
		return "schema conflict (a table's columns keep the kind, tag or field, and the type of their first write): " + msg
	}
	return "invalid line: " + msg
}

func (a apiV3) interpret(_ context.Context, w *Writer, b *load.Batch, res *httpwrite.Response) (load.Ack, error) {
	if res.Status >= 200 && res.Status < 300 {
		return load.Ack{Rows: b.Rows}, nil
	}
	var e v3Error
	isJSON := json.Unmarshal(res.Body, &e) == nil && e.Error != ""
	msg := e.Error
	if !isJSON {
		msg = strings.TrimSpace(string(res.Body))
		if msg == "" {
			msg = "(empty body)"
		}
	}
	switch res.Status {
	case 400, 422:
		if res.Truncated {
			return load.Ack{}, fmt.Errorf("influx: server refused lines (%d) with a message longer than the loader reads: %s", res.Status, httpwrite.Snippet(res.Body, 300))
		}
		if isJSON && len(e.Data) > 0 && e.Data[0] == '[' {
			return v3Partial(b, e.Data)
		}
		if isJSON && len(e.Data) > 0 && e.Data[0] == '{' {
			var le v3LineError
			if err := json.Unmarshal(e.Data, &le); err == nil {
				where := "a line the loader cannot place"
				if n := rowLine(b, le.LineNumber); n > 0 {
					where = fmt.Sprintf("line %d", n)
				}
				hint := "; {AcceptPartial} writes the valid lines and reports the refused ones"
				if v3Limit(le.ErrorMessage) {
					hint = ""
				}
				return load.Ack{}, load.NotWritten(load.Settingf("influx: server refused the batch, nothing of it written (%d %s): %s: %s"+hint, res.Status, msg, where, v3Reason(le.ErrorMessage)))
			}
		}
		if v3Limit(msg) {
			return load.Ack{}, fmt.Errorf("influx: %s (%d)", v3Reason(msg), res.Status)
		}
	case 401, 403:
		return load.Ack{}, load.Settingf("influx: authentication failed (%d %s): InfluxDB 3 needs a token that may write to database %q ({Token})", res.Status, msg, w.db)
	case 413:
		return load.Ack{}, v3TooLarge(b, res.Status, msg)
	case 429, 503:
		return load.Ack{}, busy(res, []byte(msg))
	case 500:
		if strings.Contains(msg, "max request size") {
			// 3.6.0 answers 500, not 413, to a body over its limit.
			return load.Ack{}, v3TooLarge(b, res.Status, msg)
		}
		if strings.Contains(msg, "wal buffer full") {
			return load.Ack{}, load.Retryable(fmt.Errorf("influx: server write-ahead log full (500 %s)", msg))
		}
	}
	return load.Ack{}, fmt.Errorf("influx: server answered %d: %s", res.Status, httpwrite.Snippet([]byte(msg), 500))
}

var v3MaxSize = regexp.MustCompile(`max request size \((\d+) bytes\)`)

// v3TooLarge is the error of a batch over the server's request size limit:
// the server wrote nothing of it, and sending it again would be refused
// again, so the load stops with the limit and a batch size under it.
func v3TooLarge(b *load.Batch, status int, msg string) error {
	hint := "lower {BatchSize}"
	if m := v3MaxSize.FindStringSubmatch(msg); m != nil && b.Rows > 0 && len(b.Data) > 0 {
		if limit, err := strconv.ParseInt(m[1], 10, 64); err == nil && limit > 0 {
			// The limit applies to the decompressed body too: size by it.
			rows := int64(float64(limit) / float64(len(b.Data)) * float64(b.Rows) * 0.9)
			hint = fmt.Sprintf("the server takes at most %d bytes per request, decompressed; lower {BatchSize} to %d rows or fewer", limit, max(rows, 1))
		}
	}
	return load.NotWritten(load.Settingf("influx: request body too large, nothing of the batch written (%d %s): "+hint+" (this batch has %d rows, %d bytes before compression), or raise the server's --max-http-request-size", status, msg, b.Rows, len(b.Data)))
}

// v3Partial reads the refused lines of an accept_partial write: the others
// were written.
func v3Partial(b *load.Batch, data json.RawMessage) (load.Ack, error) {
	var lines []v3LineError
	if err := json.Unmarshal(data, &lines); err != nil {
		return load.Ack{}, fmt.Errorf("influx: unreadable partial-write answer: %v (%s)", err, httpwrite.Snippet(data, 300))
	}
	seen := make(map[int64]bool, len(lines))
	rej := make([]load.Rejection, 0, len(lines))
	for _, l := range lines {
		if seen[l.LineNumber] {
			continue
		}
		seen[l.LineNumber] = true
		r := load.Rejection{Line: rowLine(b, l.LineNumber), Reason: v3Reason(l.ErrorMessage)}
		if r.Line == 0 {
			r.Reason = fmt.Sprintf("request line %d (%q...): %s", l.LineNumber, l.OriginalLine, r.Reason)
		}
		rej = append(rej, r)
	}
	if len(rej) > b.Rows {
		return load.Ack{}, fmt.Errorf("influx: server reports %d refused lines in a batch of %d rows", len(rej), b.Rows)
	}
	return load.Ack{Rows: b.Rows - len(rej), Rejected: rej, Dropped: len(rej)}, nil
}

// rowLine returns the input line number of the n-th (from 1) line of b that
// is neither blank nor a comment, 0 when there is none.
func rowLine(b *load.Batch, n int64) int64 {
	if n <= 0 {
		return 0
	}
	data := b.Data
	var i, row int64
	for len(data) > 0 {
		line := data
		if j := bytes.IndexByte(data, '\n'); j >= 0 {
			line, data = data[:j], data[j+1:]
		} else {
			data = nil
		}
		line = bytes.TrimLeft(line, " \t\r")
		if len(line) > 0 && line[0] != '#' {
			row++
			if row == n {
				return b.FirstLine + i
			}
		}
		i++
	}
	return 0
}

// v3Do sends one management request; it returns the status and body of
// any answer other than 401/403.
func (t *Target) v3Do(ctx context.Context, method, path string, query url.Values, in any) (*httpwrite.Response, error) {
	return t.v3DoOn(ctx, t.query, method, path, query, in)
}

// v3DoOn is v3Do over poster p (a Poster serves one goroutine).
func (t *Target) v3DoOn(ctx context.Context, p *httpwrite.Poster, method, path string, query url.Values, in any) (*httpwrite.Response, error) {
	req := httpwrite.Request{Method: method, Path: path, Query: query.Encode(), NoCompress: true, Accept: "application/json"}
	if in != nil {
		body, err := json.Marshal(in)
		if err != nil {
			return nil, err
		}
		req.Body, req.ContentType = body, "application/json"
	}
	res, err := p.Post(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	if res.Status == 401 || res.Status == 403 {
		return nil, load.Settingf("%s %s: authentication failed (%d): InfluxDB 3 needs a token ({Token})", method, path, res.Status)
	}
	return res, nil
}

func v3Text(res *httpwrite.Response) string {
	var e v3Error
	if json.Unmarshal(res.Body, &e) == nil && e.Error != "" {
		return e.Error
	}
	if len(res.Body) == 0 {
		return "(empty body)"
	}
	return httpwrite.Snippet(res.Body, 500)
}

const v3DatabasePath = "/api/v3/configure/database"

func (apiV3) prepare(ctx context.Context, t *Target, opts load.PrepareOptions) error {
	return httpwrite.PrepareDatabase(ctx, opts, &t.cfg.DBName, t.query.BaseURL(), httpwrite.Database{
		Drop: func(ctx context.Context, db string) error {
			// hard_delete_at=now: a soft delete (the default) keeps the
			// database's files for 72 hours and its tables in the catalog,
			// where they count against Core's limit of 2000 tables, so a
			// matrix of loads with --drop-db would reach it.
			res, err := t.v3Do(ctx, http.MethodDelete, v3DatabasePath, url.Values{"db": {db}, "hard_delete_at": {"now"}}, nil)
			if err != nil || res.Status == 200 || res.Status == 204 || res.Status == 404 {
				return err
			}
			return fmt.Errorf("DELETE %s: %d %s", v3DatabasePath, res.Status, v3Text(res))
		},
		Exists: func(ctx context.Context, db string) (bool, error) {
			res, err := t.v3Do(ctx, http.MethodGet, v3DatabasePath, url.Values{"format": {"json"}}, nil)
			if err != nil {
				return false, err
			}
			if res.Status != 200 {
				return false, fmt.Errorf("GET %s: %d %s", v3DatabasePath, res.Status, v3Text(res))
			}
			var rows []map[string]any
			if len(bytes.TrimSpace(res.Body)) > 0 {
				if err := json.Unmarshal(res.Body, &rows); err != nil {
					return false, fmt.Errorf("GET %s: unreadable answer: %v (%s)", v3DatabasePath, err, httpwrite.Snippet(res.Body, 200))
				}
			}
			for _, r := range rows {
				if r["iox::database"] == db {
					return true, nil
				}
			}
			return false, nil
		},
		Create: func(ctx context.Context, db string) error {
			res, err := t.v3Do(ctx, http.MethodPost, v3DatabasePath, nil, map[string]string{"db": db})
			if err != nil || res.Status == 200 || res.Status == 201 || res.Status == 204 || res.Status == 409 {
				return err
			}
			if res.Status == 422 {
				return fmt.Errorf("%s (422)", v3Reason(v3Text(res)))
			}
			return fmt.Errorf("POST %s: %d %s", v3DatabasePath, res.Status, v3Text(res))
		},
	})
}

// sqlIdent quotes a SQL identifier.
func sqlIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// count counts m's rows with SELECT COUNT(*). A server holding m in more
// Parquet files than its query file limit (--query-file-limit, 432 by
// default: 72 hours of 10-minute files) refuses a query over all of them,
// so such a table, e.g. 2016 data spread over weeks once persisted, is
// counted in time ranges: the rows outside the persisted files' range,
// then that range halved until each part is under the limit.
func (apiV3) count(ctx context.Context, t *Target, m string) (int64, error) {
	n, tooMany, err := v3CountWhere(ctx, t, m, "")
	if !tooMany {
		return n, err
	}
	lo, hi, err := v3FileRange(ctx, t, m)
	if err != nil {
		return 0, err
	}
	// (Two queries: the planner does not prune files for an OR.)
	var outside int64
	for _, where := range []string{fmt.Sprintf("time < to_timestamp_nanos(%d)", lo), fmt.Sprintf("time > to_timestamp_nanos(%d)", hi)} {
		n, tooMany, err := v3CountWhere(ctx, t, m, where)
		if err == nil && tooMany {
			err = fmt.Errorf("counting %s where %s: the server still refuses the query for its file limit", m, where)
		}
		if err != nil {
			return 0, err
		}
		outside += n
	}
	inside, err := v3CountRange(ctx, t, m, lo, hi)
	return outside + inside, err
}

// v3CountRange counts m's rows with lo <= time <= hi, halving the range
// while the server refuses it for its file limit.
func v3CountRange(ctx context.Context, t *Target, m string, lo, hi int64) (int64, error) {
	n, tooMany, err := v3CountWhere(ctx, t, m, fmt.Sprintf("time >= to_timestamp_nanos(%d) AND time <= to_timestamp_nanos(%d)", lo, hi))
	if !tooMany || err != nil {
		return n, err
	}
	if hi <= lo {
		return 0, fmt.Errorf("counting %s: the server refuses even one instant's files for its query file limit", m)
	}
	mid := lo + (hi-lo)/2
	a, err := v3CountRange(ctx, t, m, lo, mid)
	if err != nil {
		return 0, err
	}
	b, err := v3CountRange(ctx, t, m, mid+1, hi)
	return a + b, err
}

// v3CountWhere runs SELECT COUNT(*) on m (with the condition when not
// empty); tooMany reports the server's refusal for its query file limit.
func v3CountWhere(ctx context.Context, t *Target, m, where string) (n int64, tooMany bool, err error) {
	q := "SELECT COUNT(*) AS n FROM " + sqlIdent(m)
	if where != "" {
		q += " WHERE " + where
	}
	res, err := t.v3Do(ctx, http.MethodPost, "/api/v3/query_sql", nil, map[string]string{"db": t.cfg.DBName, "q": q, "format": "json"})
	if err != nil {
		return 0, false, err
	}
	text := v3Text(res)
	switch {
	case res.Status == 404:
		return 0, false, nil // no such database: nothing was written
	case res.Status != 200 && strings.Contains(text, "exceed file limit"):
		return 0, true, nil
	case res.Status != 200 && strings.Contains(text, "not found"):
		return 0, false, nil // no such table
	case res.Status != 200:
		return 0, false, fmt.Errorf("%s: %s answered %d: %s", q, t.query.BaseURL(), res.Status, text)
	}
	var rows []struct {
		N *int64 `json:"n"`
	}
	if err := json.Unmarshal(res.Body, &rows); err != nil || len(rows) != 1 || rows[0].N == nil {
		return 0, false, fmt.Errorf("%s: unexpected answer %s", q, httpwrite.Snippet(res.Body, 200))
	}
	return *rows[0].N, false, nil
}

// v3SQL runs q in the target's database and decodes the JSON rows into out.
func (t *Target) v3SQL(ctx context.Context, q string, out any) error {
	res, err := t.v3Do(ctx, http.MethodPost, "/api/v3/query_sql", nil, map[string]string{"db": t.cfg.DBName, "q": q, "format": "json"})
	if err != nil {
		return err
	}
	if res.Status != 200 {
		return fmt.Errorf("%s: %s answered %d: %s", q, t.query.BaseURL(), res.Status, v3Text(res))
	}
	if err := json.Unmarshal(res.Body, out); err != nil {
		return fmt.Errorf("%s: unexpected answer %s", q, httpwrite.Snippet(res.Body, 200))
	}
	return nil
}
