package ilp

import (
	"fmt"
	"math"

	"github.com/influxdata/line-protocol/v2/lineprotocol"

	"github.com/tsload/tsload/pkg/schema"
)

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

// ColumnValue is a field value as a column of type t takes it: float64
// (float32 for Float4) from any number; int64 from an integer or a
// boolean (1, 0), in int32's range for Int4; the string for Text (another
// kind as its line-protocol text). A value the column cannot hold is an
// error saying why.
func ColumnValue(t schema.Type, v lineprotocol.Value) (any, error) {
	k := v.Kind()
	switch t {
	case schema.Float8, schema.Float4:
		f, ok := AsFloat(v)
		if !ok {
			return nil, fmt.Errorf("a %v into a %s column", k, t)
		}
		if t == schema.Float4 {
			return float32(f), nil
		}
		return f, nil
	case schema.Int8, schema.Int4:
		var n int64
		switch k {
		case lineprotocol.Int:
			n = v.IntV()
		case lineprotocol.Uint:
			if v.UintV() > math.MaxInt64 {
				return nil, fmt.Errorf("%d is out of range for a 64-bit integer", v.UintV())
			}
			n = int64(v.UintV())
		case lineprotocol.Bool:
			if v.BoolV() {
				n = 1
			}
		default:
			return nil, fmt.Errorf("a %v into a %s column", k, t)
		}
		if t == schema.Int4 && (n > math.MaxInt32 || n < math.MinInt32) {
			return nil, fmt.Errorf("%d is out of range for a 32-bit integer", n)
		}
		return n, nil
	case schema.Text:
		if k == lineprotocol.String {
			return v.StringV(), nil
		}
		return v.String(), nil
	}
	return nil, fmt.Errorf("a %v into a %s column", k, t)
}
