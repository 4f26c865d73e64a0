package influx

import (
	"context"
	"fmt"

	"github.com/tsload/tsload/pkg/fingerprint"
	"github.com/tsload/tsload/pkg/target/contentq"
)

// contenter is the api's part of content verification: the fingerprint
// of one measurement, in the query language of the version (InfluxQL on
// 1.x, content_v1.go; Flux on 2.x, content_v2.go; SQL on 3.x,
// content_v3.go).
type contenter interface {
	content(ctx context.Context, t *Target, q fingerprint.Query) (*fingerprint.Table, error)
}

// Content answers each query (a measurement) in the API's query language.
// A measurement that does not exist has no rows. Rows acknowledged by an
// InfluxDB 3 with no_sync are waited for by Await, as for Count.
func (t *Target) Content(ctx context.Context, qs []fingerprint.Query) (map[string]*fingerprint.Table, error) {
	if len(qs) == 0 {
		return nil, nil // asked whether content can be verified: it can
	}
	a, err := t.theAPI(ctx)
	if err != nil {
		return nil, err
	}
	c, ok := a.(contenter)
	if !ok {
		return nil, fmt.Errorf("influx: content verification is not available on the %s API", a.name())
	}
	return contentq.Each(qs, func(q fingerprint.Query) (*fingerprint.Table, error) {
		fp, err := c.content(ctx, t, q)
		if err != nil {
			return nil, fmt.Errorf("influx: content of %s: %w", q.Table, err)
		}
		return fp, nil
	})
}
