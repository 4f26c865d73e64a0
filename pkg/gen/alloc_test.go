package gen

import (
	"testing"

	"github.com/tsload/tsload/pkg/usecase"
)

// TestZeroAllocsPerRow: advancing a group one epoch and encoding its rows
// allocates nothing once the buffers have grown.
func TestZeroAllocsPerRow(t *testing.T) {
	for _, uc := range usecase.Names {
		for _, f := range formats {
			t.Run(uc+"."+f.String(), func(t *testing.T) {
				cfg := small(uc, f)
				cfg.Scale = 50
				if err := cfg.normalize(); err != nil {
					t.Fatal(err)
				}
				m, err := newModel(uc, params{seed: 1, scale: cfg.Scale, start: cfg.Start, interval: cfg.Interval})
				if err != nil {
					t.Fatal(err)
				}
				encs, idx, err := newEncoders(f, m.tables(), false)
				if err != nil {
					t.Fatal(err)
				}
				for ti := range m.tables() {
					g := m.newGroup(ti, 0, cfg.Scale)
					c := epochCtx{start: cfg.Start.UnixNano(), step: int64(cfg.Interval), enc: encs[ti], table: idx[ti]}
					u := &unit{}
					step := func() {
						u.reset(ti)
						c.ns = c.start + c.e*c.step
						if err := g.epoch(&c, u); err != nil {
							t.Fatal(err)
						}
						c.e++
					}
					for i := 0; i < 20; i++ {
						step()
					}
					if a := testing.AllocsPerRun(50, step); a != 0 {
						t.Errorf("table %s: %.1f allocations per epoch of %d series", m.tables()[ti].Name, a, cfg.Scale)
					}
				}
			})
		}
	}
}
