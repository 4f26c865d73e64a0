package questdb

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// retryStatus are the HTTP statuses after which QuestDB's own clients
// re-send a request.
var retryStatus = map[int]bool{500: true, 503: true, 504: true, 507: true, 509: true, 523: true, 524: true, 529: true, 599: true}

// httpWriter posts batches to /write?precision=n.
type httpWriter struct {
	t       *Target
	p       *httpwrite.Poster
	buf     []byte
	seen    map[string]bool
	version int // line protocol version
}

func checkILP(b *load.Batch) error {
	if b.Format != format.ILP {
		return fmt.Errorf("questdb: %s: %s input is not supported: load_questdb sends ILP (generate the data as ILP)", b.Source, b.Format)
	}
	if n, reason := nullValue(b.Data); n > 0 {
		return fmt.Errorf("questdb: input line %d: %s; nothing of the batch was sent", b.FirstLine+n-1, reason)
	}
	return nil
}

// body returns the bytes to send for b in line protocol version: b.Data,
// or a copy without comment and blank-only lines when it has any, or with
// its doubles in binary form (version 2 and later).
func body(buf *[]byte, b *load.Batch, version int) []byte {
	if version >= 2 {
		*buf = appendBody((*buf)[:0], b.Data, version)
		return *buf
	}
	if !needsClean(b.Data) {
		return b.Data
	}
	*buf = appendClean((*buf)[:0], b.Data)
	return *buf
}

// requestTimeout is the clients' rule: request_timeout plus the time the
// body takes at request_min_throughput.
func (t *Target) requestTimeout(n int) time.Duration {
	return t.cfg.RequestTimeout + time.Duration(float64(n)/float64(t.cfg.MinThroughput)*float64(time.Second))
}

func (w *httpWriter) Write(ctx context.Context, b *load.Batch) (load.Ack, error) {
	// Refused before it is sent: nothing of it is written.
	if err := checkILP(b); err != nil {
		return load.Ack{}, load.NotWritten(err)
	}
	if err := w.t.tablesReady(ctx, w.seen, b); err != nil {
		return load.Ack{}, load.NotWritten(err)
	}
	data := body(&w.buf, b, w.version)
	if len(data) == 0 {
		return load.Ack{Rows: b.Rows}, nil
	}
	// A network error or our request timeout leaves the request's fate
	// unknown; the Poster marks it retryable, as QuestDB's clients re-send
	// (safe with DEDUP, may duplicate without it: verification decides).
	resp, err := w.p.Post(ctx, httpwrite.Request{Path: "/write", Query: "precision=n", Body: data, Timeout: w.t.requestTimeout(len(data))})
	if err != nil {
		return load.Ack{}, fmt.Errorf("questdb: %w", err)
	}
	ack, err := classify(resp.Status, resp.Body, b)
	if err == nil {
		w.t.sentBytes.Add(int64(len(data)))
	}
	return ack, err
}

func (w *httpWriter) Close() error { return nil }

// serverError is QuestDB's JSON error answer to /write.
type serverError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Line    int64  `json:"line"`
	ErrorID string `json:"errorId"`
}

// classify turns an answer to /write into an Ack or an error: 2xx is
// success (204 = committed to the WAL); retryStatus answers are Retryable;
// anything else is fatal, with the server's line number mapped back to the
// input line (b.FirstLine + n - 1, where n counts the batch's physical lines).
func classify(status int, msg []byte, b *load.Batch) (load.Ack, error) {
	if status/100 == 2 {
		return load.Ack{Rows: b.Rows}, nil
	}
	var se serverError
	text := strings.TrimSpace(string(msg))
	if json.Unmarshal(msg, &se) == nil && (se.Message != "" || se.Code != "") {
		text = strings.ReplaceAll(se.Message, "\n", " ")
	}
	if len(text) > 500 {
		text = text[:500] + "..."
	}
	if retryStatus[status] {
		return load.Ack{}, load.Retryable(fmt.Errorf("questdb: HTTP %d (retryable): %s", status, text))
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "questdb: HTTP %d: ", status)
	if se.Line > 0 {
		if l := inputLine(b.Data, se.Line); l > 0 {
			fmt.Fprintf(&sb, "input line %d: %s", b.FirstLine+l-1, text)
			lt := lineText(b.Data, l)
			if len(lt) > 200 {
				lt = append(lt[:200:200], "..."...)
			}
			fmt.Fprintf(&sb, " [line: %q]", lt)
		} else {
			fmt.Fprintf(&sb, "request line %d: %s", se.Line, text)
		}
	} else {
		sb.WriteString(text)
	}
	if se.Code != "" || se.ErrorID != "" {
		fmt.Fprintf(&sb, " (code %s, errorId %s)", se.Code, se.ErrorID)
	}
	sb.WriteString("; the whole request was rolled back")
	return load.Ack{}, load.NotWritten(fmt.Errorf("%s", sb.String()))
}
