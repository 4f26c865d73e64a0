package influx

import (
	"context"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/query"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// NewQuerier opens query connection n (load.Hooks.NewQuerier): InfluxQL
// on 1.x (query_influxql.go), Flux on 2.x (query_flux.go), SQL on 3.x
// (query_v3.go). Each querier posts to URL n % len(URLs) with a Poster of
// its own, apart from the writers'.
func (t *Target) NewQuerier(ctx context.Context, n int) (load.Querier, error) {
	a, err := t.theAPI(ctx)
	if err != nil {
		return nil, err
	}
	if t.cfg.DBName == "" {
		return nil, load.Settingf("no database name ({DBName})")
	}
	return t.newQuerier(a, n), nil
}

// querier answers queries over a connection of its own (load.Querier) in
// the dialect of its API (api.ask).
type querier struct {
	t *Target
	a api
	p *httpwrite.Poster
}

func (t *Target) newQuerier(a api, n int) *querier {
	return &querier{t: t, a: a, p: t.client.NewPoster(n)}
}

func (q *querier) Query(ctx context.Context, qy *query.Query) (*query.Answer, error) {
	return q.a.ask(ctx, q.t, q.p, qy)
}

func (q *querier) Close() error { return nil }
