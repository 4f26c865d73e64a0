package ilp

import "github.com/influxdata/line-protocol/v2/lineprotocol"

// AsFloat is a numeric field value as a float column takes it: a float as
// it is, an integer (signed or unsigned) converted; ok is false for a
// string or a boolean.
func AsFloat(v lineprotocol.Value) (f float64, ok bool) {
	switch v.Kind() {
	case lineprotocol.Float:
		return v.FloatV(), true
	case lineprotocol.Int:
		return float64(v.IntV()), true
	case lineprotocol.Uint:
		return float64(v.UintV()), true
	}
	return 0, false
}
