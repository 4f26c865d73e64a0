package influx

import (
	"context"

	"github.com/tsload/tsload/pkg/load"
)

// NewQuerier opens query connection n (load.Hooks.NewQuerier): InfluxQL
// on 1.x (query_influxql.go), Flux on 2.x (query_flux.go). Each querier
// posts to URL n % len(URLs) with a Poster of its own, apart from the
// writers'.
func (t *Target) NewQuerier(ctx context.Context, n int) (load.Querier, error) {
	a, err := t.theAPI(ctx)
	if err != nil {
		return nil, err
	}
	if t.cfg.DBName == "" {
		return nil, load.Settingf("no database name ({DBName})")
	}
	switch a.name() {
	case APIv1:
		return &v1Querier{t: t, p: t.client.NewPoster(n)}, nil
	case APIv2:
		return &v2Querier{t: t, p: t.client.NewPoster(n)}, nil
	}
	return t.newV3Querier(n), nil
}
