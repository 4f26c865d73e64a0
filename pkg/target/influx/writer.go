package influx

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// Writer posts batches for one worker to its API's write endpoint.
type Writer struct {
	p     *httpwrite.Poster
	api   api
	path  string
	query string
	gzip  bool
	db    string
	rp    string
	// volatile: the server acknowledges before its write-ahead log is
	// persisted (InfluxDB 3 no_sync), so a server crash may lose an
	// acknowledged batch: every acknowledgement is load.Ack.Volatile.
	volatile bool
}

var _ load.Writer = (*Writer)(nil)

// Close does nothing: connections belong to the Target's client.
func (w *Writer) Close() error { return nil }

// Write posts b's line protocol and interprets the answer (see each API's
// type for what each status means).
func (w *Writer) Write(ctx context.Context, b *load.Batch) (load.Ack, error) {
	if b.Format != format.ILP {
		return load.Ack{}, fmt.Errorf("influx: InfluxDB takes line protocol, not %s (convert the input or use another loader)", b.Format)
	}
	res, err := w.post(ctx, b.Data)
	if err != nil {
		return load.Ack{}, err
	}
	ack, err := w.api.interpret(ctx, w, b, res)
	if err == nil && ack.Rows > 0 {
		ack.Volatile = w.volatile
	}
	return ack, err
}

func (w *Writer) post(ctx context.Context, data []byte) (*httpwrite.Response, error) {
	res, err := w.p.Post(ctx, httpwrite.Request{Path: w.path, Query: w.query, Body: data})
	if err != nil {
		return nil, fmt.Errorf("influx: %w", err)
	}
	return res, nil
}

// busy is the retryable error of a 429 or 503 answer, carrying the
// server's Retry-After (seconds or an HTTP date) when it sent one.
func busy(res *httpwrite.Response, msg []byte) error {
	err := fmt.Errorf("influx: server busy (%d %s)", res.Status, msg)
	if d, ok := retryAfter(res.Header.Get("Retry-After"), time.Now()); ok {
		return load.RetryableAfter(fmt.Errorf("%w; it asks to retry after %s", err, d), d)
	}
	return load.Retryable(err)
}

// retryAfter parses a Retry-After value: delay-seconds or an HTTP date.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
		return time.Duration(min(n, 3600)) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// partialAck interprets a 400 answer. On a partial write, Ack.Rows +
// Ack.Dropped == b.Rows; Rejected names each dropped line the server (or the
// loader's own parse) identified, plus one entry with Line 0 for points the
// server dropped without naming them.
func partialAck(b *load.Batch, msg []byte) (load.Ack, error) {
	we := parseWriteError(msg)
	switch {
	case we.partial && len(we.parse) > 0:
		// Parse failures only: each dropped line is named; dropped=N (0 in
		// practice) counts points the storage layer refused on top.
		rej := rejections(b, we.parse)
		dropped := len(rej) + max(we.dropped, 0)
		if dropped > b.Rows {
			return load.Ack{}, fmt.Errorf("influx: server reports %d dropped lines in a batch of %d rows: %s", dropped, b.Rows, httpwrite.Snippet(msg, 300))
		}
		return load.Ack{Rows: b.Rows - dropped, Rejected: rej, Dropped: dropped}, nil
	case we.partial && we.dropped >= 0:
		// A storage-layer refusal (field type conflict, points beyond
		// retention, max-values-per-tag, max-series-per-database). The lines
		// are not named; lines that failed to parse in the same batch were
		// dropped too but are not mentioned, so find them here.
		rej := localParseFailures(b)
		dropped := we.dropped + len(rej)
		if dropped > b.Rows {
			return load.Ack{}, fmt.Errorf("influx: server reports %d dropped points in a batch of %d rows: %s", dropped, b.Rows, httpwrite.Snippet(msg, 300))
		}
		if we.dropped > 0 {
			// One entry for the unnamed points (Dropped carries the total).
			rej = append(rej, load.Rejection{Reason: fmt.Sprintf("%s (%d points; the server does not name the lines)", we.reason, we.dropped)})
		}
		return load.Ack{Rows: b.Rows - dropped, Rejected: rej, Dropped: dropped}, nil
	case !we.partial && len(we.parse) == b.Rows && b.Rows > 0:
		// Every line was unparsable: nothing written, every line named.
		rej := rejections(b, we.parse)
		return load.Ack{Rows: 0, Rejected: rej, Dropped: len(rej)}, nil
	}
	return load.Ack{}, fmt.Errorf("influx: server refused the batch (400: %s); nothing of it is counted as written", httpwrite.Snippet(msg, 500))
}

// errorText returns the "error" of an InfluxDB JSON error body (or the body).
func errorText(body []byte) []byte {
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && e.Error != "" {
		return []byte(e.Error)
	}
	if len(body) == 0 {
		return []byte("(empty body)")
	}
	return []byte(strings.TrimSpace(string(body)))
}
