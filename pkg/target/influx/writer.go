package influx

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/target/httpw"
)

// Writer posts batches to /write for one worker.
type Writer struct {
	p     *httpw.Poster
	query string
	gzip  bool
	db    string
	rp    string
}

var _ load.Writer = (*Writer)(nil)

// Close does nothing: connections belong to the Target's client.
func (w *Writer) Close() error { return nil }

// Write posts b's line protocol and interprets the answer (see the package
// documentation for what each status means).
func (w *Writer) Write(ctx context.Context, b *load.Batch) (load.Ack, error) {
	if b.Format != format.ILP {
		return load.Ack{}, fmt.Errorf("influx: InfluxDB takes line protocol, not %s (convert the input or use another loader)", b.Format)
	}
	res, err := w.p.Post(ctx, httpw.Request{Path: "/write", Query: w.query, Body: b.Data})
	if err != nil {
		return load.Ack{}, fmt.Errorf("influx: %w", err)
	}
	return w.interpret(b, res.Status, res.Body, res.Truncated)
}

func (w *Writer) interpret(b *load.Batch, status int, body []byte, truncated bool) (load.Ack, error) {
	if status >= 200 && status < 300 {
		return load.Ack{Rows: b.Rows}, nil
	}
	msg := errorText(body)
	switch status {
	case 400:
		if truncated {
			return load.Ack{}, fmt.Errorf("influx: server refused lines (400) with a message longer than the loader reads: %s", httpw.Snippet(msg, 300))
		}
		return partialAck(b, msg)
	case 401, 403:
		return load.Ack{}, fmt.Errorf("influx: authentication failed (%d %s): check --user and --password (INFLUX_USERNAME, INFLUX_PASSWORD)", status, msg)
	case 404:
		return load.Ack{}, fmt.Errorf("influx: %s (404): create it with --do-create-db or check --db-name", msg)
	case 413:
		return load.Ack{}, fmt.Errorf("influx: request body too large (413: %s): lower --batch-size (this batch has %d rows, %d bytes before compression)%s; or raise [http] max-body-size on the server",
			msg, b.Rows, len(b.Data), map[bool]string{false: " or enable --gzip", true: ""}[w.gzip])
	case 429, 503:
		return load.Ack{}, load.Retryable(fmt.Errorf("influx: server busy (%d %s)", status, msg))
	case 500:
		switch {
		case bytes.Contains(msg, []byte("cache-max-memory-size exceeded")):
			return load.Ack{}, load.Retryable(fmt.Errorf("influx: server cache full (500 %s)", msg))
		case string(msg) == "timeout" || bytes.HasSuffix(msg, []byte(": timeout")):
			return load.Ack{}, load.Retryable(fmt.Errorf("influx: server write timeout (500 %s)", msg))
		case bytes.Contains(msg, []byte("retention policy not found")):
			return load.Ack{}, fmt.Errorf("influx: %s (500): check --rp (database %q)", msg, w.db)
		}
	}
	return load.Ack{}, fmt.Errorf("influx: server answered %d: %s", status, msg)
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
			return load.Ack{}, fmt.Errorf("influx: server reports %d dropped lines in a batch of %d rows: %s", dropped, b.Rows, httpw.Snippet(msg, 300))
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
			return load.Ack{}, fmt.Errorf("influx: server reports %d dropped points in a batch of %d rows: %s", dropped, b.Rows, httpw.Snippet(msg, 300))
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
	return load.Ack{}, fmt.Errorf("influx: server refused the batch (400: %s); nothing of it is counted as written", httpw.Snippet(msg, 500))
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
