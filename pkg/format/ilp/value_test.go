package ilp

import (
	"testing"

	"github.com/influxdata/line-protocol/v2/lineprotocol"
)

func TestAsFloat(t *testing.T) {
	for _, tc := range []struct {
		v    lineprotocol.Value
		want float64
		ok   bool
	}{
		{lineprotocol.MustNewValue(1.5), 1.5, true},
		{lineprotocol.MustNewValue(int64(-3)), -3, true},
		{lineprotocol.MustNewValue(uint64(7)), 7, true},
		{lineprotocol.MustNewValue("x"), 0, false},
		{lineprotocol.MustNewValue(true), 0, false},
	} {
		if got, ok := AsFloat(tc.v); got != tc.want || ok != tc.ok {
			t.Errorf("%v: %v, %v; want %v, %v", tc.v, got, ok, tc.want, tc.ok)
		}
	}
}
