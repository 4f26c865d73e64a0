package influx

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/query"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// api is what differs between InfluxDB 1.x, 2.x and 3.x. The Target and its
// Writers hold everything else (client, compression, retries, counting
// loop) once.
type api interface {
	name() API
	// write returns the write endpoint's path and query string.
	write(c *Config) (path, query string)
	// interpret reads the answer to one write of b. It may post again
	// through w (2.x re-sends a batch without the lines it named as
	// unparsable, since it wrote none of the batch).
	interpret(ctx context.Context, w *Writer, b *load.Batch, res *httpwrite.Response) (load.Ack, error)
	// prepare drops, checks and creates the database by opts.
	prepare(ctx context.Context, t *Target, opts load.PrepareOptions) error
	// count returns the points of measurement m (0 when it is missing).
	count(ctx context.Context, t *Target, m string) (int64, error)
	// ask answers q over p, a query connection of its own (querier).
	ask(ctx context.Context, t *Target, p *httpwrite.Poster, q *query.Query) (*query.Answer, error)
}

func newAPI(name API) api {
	switch name {
	case APIv2:
		return apiV2{}
	case APIv3:
		return apiV3{}
	}
	return apiV1{}
}

// detect asks the server which API it speaks. Every version answers /ping
// with an X-Influxdb-Version header: "1.8.10" (204), "v2.7.12" (204),
// "3.x.y" (200, with a JSON body). InfluxDB 3 may require a token for /ping
// and /health (401 without one).
func detect(ctx context.Context, p *httpwrite.Poster) (API, error) {
	res, err := p.Post(ctx, httpwrite.Request{Method: http.MethodGet, Path: "/ping"})
	if err != nil {
		return "", fmt.Errorf("influx: detecting the InfluxDB version of %s: %w", p.BaseURL(), err)
	}
	version := res.Header.Get("X-Influxdb-Version")
	if name, ok := apiOfVersion(version); ok {
		return name, nil
	}
	// A proxy may drop the header: /health says it too (1.8+ and 2.x: JSON
	// with "version"; 3.x: "OK").
	if h, err := p.Post(ctx, httpwrite.Request{Method: http.MethodGet, Path: "/health"}); err == nil {
		var health struct {
			Version string `json:"version"`
		}
		switch {
		case h.Status == http.StatusOK && strings.TrimSpace(string(h.Body)) == "OK":
			return APIv3, nil
		case json.Unmarshal(h.Body, &health) == nil && health.Version != "":
			if name, ok := apiOfVersion(health.Version); ok {
				return name, nil
			}
		}
	}
	if res.Status == http.StatusUnauthorized || res.Status == http.StatusForbidden {
		return "", load.Settingf("influx: %s answered %d to /ping: a server that wants a token for it is InfluxDB 3: give the token ({Token})", p.BaseURL(), res.Status)
	}
	return "", load.Settingf("influx: cannot tell which InfluxDB API %s speaks (/ping answered %d with X-Influxdb-Version %q): name it with {API} v1, v2 or v3", p.BaseURL(), res.Status, version)
}

// apiOfVersion maps an X-Influxdb-Version value to an API name by its
// major version.
func apiOfVersion(v string) (API, bool) {
	v = strings.TrimPrefix(strings.TrimSpace(v), "v")
	major, _, _ := strings.Cut(v, ".")
	switch major {
	case "1":
		return APIv1, true
	case "2":
		return APIv2, true
	case "3":
		return APIv3, true
	}
	return "", false
}
