package questdb

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	"github.com/tsload/tsload/pkg/format/ilp"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// Line protocol versions (Config.ProtocolVersion). Version 1 is text line
// protocol as written in the input; 2 (QuestDB 9.0.0+) sends double fields
// as 8 binary bytes (ilp.BinaryDouble); 3 (9.2.0+) adds decimals, which
// text input does not hold, so tsload writes it as 2.
const (
	// ProtocolAuto is what QuestDB's clients do: over HTTP, the highest
	// version of /settings' line.proto.support.versions (1 when the server
	// has no /settings or lists none); over TCP, which cannot ask, 1.
	ProtocolAuto = 0
	// ProtocolMax is the highest version tsload writes.
	ProtocolMax = 3
)

// ParseProtocolVersion reads a line protocol version as QuestDB's clients
// take it: auto, 1, 2 or 3.
func ParseProtocolVersion(s string) (int, error) {
	switch s {
	case "auto":
		return ProtocolAuto, nil
	case "1", "2", "3":
		return int(s[0] - '0'), nil
	}
	return 0, fmt.Errorf("%q: want auto, 1, 2 or 3", s)
}

// ProtocolVersion returns the line protocol version the load writes,
// deciding it on the first call (ProtocolAuto asks the server's /settings
// over HTTP; a version given is checked against the versions the server
// lists when it has /settings).
func (t *Target) ProtocolVersion(ctx context.Context) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.proto != 0 {
		return t.proto, nil
	}
	v := t.cfg.ProtocolVersion
	if v == 1 || v == ProtocolAuto && t.cfg.Transport == TCP {
		t.proto = 1
		return 1, nil
	}
	listed, err := t.supportedVersions(ctx)
	if err != nil {
		return 0, err
	}
	switch {
	case v == ProtocolAuto && len(listed) == 0:
		v = 1
	case v == ProtocolAuto:
		v = 0
		for _, l := range listed {
			if l <= ProtocolMax && l > v {
				v = l
			}
		}
		if v == 0 {
			return 0, fmt.Errorf("questdb: the server supports line protocol versions %v, none of which tsload writes (1-%d)", listed, ProtocolMax)
		}
	case listed == nil:
		return 0, load.Settingf("questdb: {ProtocolVersion} %d: the server has no /settings to say it supports it (QuestDB before 9.0.0 reads version 1 only)", v)
	case !slices.Contains(listed, v):
		return 0, load.Settingf("questdb: {ProtocolVersion} %d: the server supports line protocol versions %v", v, listed)
	}
	t.proto = v
	return v, nil
}

// supportedVersions asks GET /settings for line.proto.support.versions
// (inside "config" from QuestDB 9.x; at the top level before): nil when the
// server has no /settings (404: QuestDB before 8.x) or lists none. The
// request has the base request timeout: a server that does not answer is
// an error, not a hang.
func (t *Target) supportedVersions(ctx context.Context) ([]int, error) {
	if t.client == nil {
		return nil, load.Settingf("questdb: {ProtocolVersion} needs the HTTP URL ({URL}) to ask /settings")
	}
	resp, err := t.client.NewPoster(0).Post(ctx, httpwrite.Request{Method: http.MethodGet, Path: "/settings", NoCompress: true, Timeout: t.cfg.RequestTimeout})
	if err != nil {
		return nil, fmt.Errorf("questdb: asking /settings for the line protocol versions: %w", err)
	}
	if resp.Status == http.StatusNotFound {
		return nil, nil
	}
	if resp.Status/100 != 2 {
		return nil, fmt.Errorf("questdb: /settings: HTTP %d: %.200q", resp.Status, resp.Body)
	}
	if len(bytes.TrimSpace(resp.Body)) == 0 {
		return nil, nil // lists none, as QuestDB's clients read it
	}
	var doc struct {
		Versions []int `json:"line.proto.support.versions"`
		Config   struct {
			Versions []int `json:"line.proto.support.versions"`
		} `json:"config"`
	}
	if err := json.Unmarshal(resp.Body, &doc); err != nil {
		return nil, fmt.Errorf("questdb: /settings: %w: %.200q", err, resp.Body)
	}
	if len(doc.Config.Versions) > 0 {
		return doc.Config.Versions, nil
	}
	return doc.Versions, nil
}

// appendBody appends the request body of a batch: its lines without the
// comment and blank-only ones QuestDB refuses (see lines.go), and with
// version 2 or later each double field in binary form.
func appendBody(dst, data []byte, version int) []byte {
	for len(data) > 0 {
		line := data
		if nl := bytes.IndexByte(data, '\n'); nl >= 0 {
			line = data[:nl]
			data = data[nl+1:]
		} else {
			data = nil
		}
		if skippable(line) {
			continue
		}
		if version >= 2 {
			dst = ilp.AppendBinaryDoubles(dst, line)
		} else {
			dst = append(dst, line...)
		}
		dst = append(dst, '\n')
	}
	return dst
}

// Report (load.Hooks.Report): the bytes of line protocol the server took
// (request bodies of acknowledged batches, before gzip; over TCP, the
// batches written), which differ from the input's bytes with protocol
// version 2 (a double is 10 bytes after its '=') and without comments.
func (t *Target) Report() map[string]float64 {
	return map[string]float64{"sent_bytes": float64(t.sentBytes.Load())}
}
