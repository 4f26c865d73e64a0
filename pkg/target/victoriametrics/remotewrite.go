package victoriametrics

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/target/httpwrite"
	"github.com/tsload/tsload/pkg/target/remotewrite"
)

// The second write path: Prometheus remote write 1.0 to /api/v1/write
// (Config.Protocol = ProtocolRemoteWrite), with the lines turned into
// samples by the loader (package remotewrite) instead of the server. A
// line becomes the same series either way (<measurement>_<field>, the
// tags, db=<database>), so counting, content, queries and resume are the
// line path's. What the loader refuses differs a little: remote write
// carries float64 values, so an integer float64 does not hold exactly is
// refused, as the line path refuses it.
//
// What an /api/v1/write answer means (app/vminsert of v1.151.0): the
// server decodes the whole body before it stores anything.
//
//	204                    written
//	429, 503; network      retryable: a re-send overwrites what was stored
//	400                    fatal, with the server's message; nothing stored
//	401, 403               fatal: check the user and password
//	any other status       fatal

// Protocols are the write paths of Config.Protocol.
const (
	ProtocolLine        = "line"         // line protocol to /write (the default)
	ProtocolRemoteWrite = "remote-write" // remote write 1.0 to /api/v1/write
)

// APIRemoteWrite names the remote-write path in the results' setup.
const APIRemoteWrite = "remote-write 1.0"

// rwWriter posts batches to /api/v1/write for one worker.
type rwWriter struct {
	t    *Target
	p    *httpwrite.Poster
	enc  *remotewrite.Encoder
	body []byte
}

func (t *Target) newRemoteWriter(worker int) (load.Writer, error) {
	u, err := format.ParseUnit(t.cfg.Precision)
	if err != nil {
		return nil, load.Settingf("invalid {Precision} %q (want ns, us, ms or s)", t.cfg.Precision)
	}
	enc, err := remotewrite.New(remotewrite.Rules{Unit: u, Min: t.minMs, Max: t.maxMs, NoZeroTime: true,
		Why: "what the server keeps: it would drop the row and answer 204; see its -retentionPeriod and -futureRetention"},
		remotewrite.Label{Name: "db", Value: t.cfg.DBName})
	if err != nil {
		return nil, err
	}
	return &rwWriter{t: t, p: t.client.NewPoster(worker), enc: enc}, nil
}

func (w *rwWriter) Close() error { return nil }

// Write encodes b (refusing, before sending anything, a line the server
// would not store as sent), posts it and interprets the answer.
func (w *rwWriter) Write(ctx context.Context, b *load.Batch) (load.Ack, error) {
	if b.Format != format.ILP {
		return load.Ack{}, fmt.Errorf("victoriametrics: the target takes line protocol, not %s", b.Format)
	}
	var err error
	if w.body, err = w.enc.Encode(w.body, b.Data); err != nil {
		var le *remotewrite.LineError
		if errors.As(err, &le) {
			return load.Ack{}, fmt.Errorf("victoriametrics: line %d: %s; nothing of the batch was sent", b.FirstLine+le.Line-1, le.Reason)
		}
		return load.Ack{}, fmt.Errorf("victoriametrics: %w", err)
	}
	res, err := w.p.Post(ctx, httpwrite.Request{Path: "/api/v1/write", ContentType: remotewrite.ContentType,
		Header: remotewrite.Headers, Body: w.body, NoCompress: true})
	if err != nil {
		return load.Ack{}, fmt.Errorf("victoriametrics: %w", err)
	}
	msg := strings.TrimSpace(httpwrite.Snippet(res.Body, 500))
	switch s := res.Status; {
	case s >= 200 && s < 300:
		w.t.addShape(w.enc.Shape)
		return load.Ack{Rows: b.Rows}, nil
	case s == http.StatusServiceUnavailable || s == http.StatusTooManyRequests:
		return load.Ack{}, load.Retryable(fmt.Errorf("victoriametrics: server busy (%d %s)", s, msg))
	case s == http.StatusUnauthorized || s == http.StatusForbidden:
		return load.Ack{}, load.Settingf("victoriametrics: authentication failed (%d): check the user ({User}) and password ({Password})", s)
	}
	return load.Ack{}, fmt.Errorf("victoriametrics: server refused the batch from line %d (%d %s); nothing of it is counted as written", b.FirstLine, res.Status, msg)
}
