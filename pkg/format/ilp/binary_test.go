package ilp

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestBinaryDouble(t *testing.T) {
	for _, tc := range []struct {
		text string
		want float64 // NaN: not converted
	}{
		{"58.1", 58.1}, {"0", 0}, {"-0", math.Copysign(0, -1)}, {"42", 42}, {"+1.5", 1.5},
		{"1.", 1}, {".5", 0.5}, {"-.5", -0.5}, {"1e5", 1e5}, {"1E-5", 1e-5}, {"1.e3", 1e3},
		{"007", 7}, {"0.1", 0.1}, {"4.9e-324", 5e-324}, {"1.7976931348623157e308", math.MaxFloat64},
		{"123456789012345678901234567890", 123456789012345678901234567890},
		{"2.2250738585072011e-308", 2.2250738585072011e-308},
		{"0e999999", 0}, // zero stays zero, whatever its exponent
		// Sent as text: the server decides as it would have.
		{"1e309", math.NaN()}, {"1e-400", math.NaN()}, {"NaN", math.NaN()}, {"Infinity", math.NaN()},
		{"-Infinity", math.NaN()}, {"Inf", math.NaN()}, {"0x10", math.NaN()}, {"1_0", math.NaN()},
		{"5i", math.NaN()}, {"5u", math.NaN()}, {"t", math.NaN()}, {"false", math.NaN()}, {"", math.NaN()},
		{".", math.NaN()}, {"-", math.NaN()}, {"1e", math.NaN()}, {"1e+", math.NaN()}, {"1.2.3", math.NaN()},
		{"1.5\r", math.NaN()}, {`"1.5"`, math.NaN()},
	} {
		b, ok := BinaryDouble([]byte(tc.text))
		if math.IsNaN(tc.want) {
			if ok {
				t.Errorf("%q: converted to % x, want it sent as text", tc.text, b)
			}
			continue
		}
		if !ok || b[0] != '=' || b[1] != 16 || math.Float64bits(tc.want) != binary.LittleEndian.Uint64(b[2:]) {
			t.Errorf("%q: % x %v, want the bits of %v", tc.text, b, ok, tc.want)
		}
	}
}

func TestAppendBinaryDoubles(t *testing.T) {
	bin := func(f float64) string {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(f))
		return "==\x10" + string(b[:])
	}
	for _, tc := range []struct{ in, want string }{
		{"cpu,host=h1 usage=58.1,idle=2 1451606400000000000", "cpu,host=h1 usage" + bin(58.1) + ",idle" + bin(2) + " 1451606400000000000"},
		{"cpu usage=58.1", "cpu usage" + bin(58.1)},
		{`m,t\ x=a\,b k\=1=1.5,s="a=1.5, b=\"2.5\"",i=3i,u=4u,b=true,n=NaN,f=-0.25 17`,
			`m,t\ x=a\,b k\=1` + bin(1.5) + `,s="a=1.5, b=\"2.5\"",i=3i,u=4u,b=true,n=NaN,f` + bin(-0.25) + ` 17`},
		{"m  v=1.5   17", "m  v" + bin(1.5) + "   17"},
		{`m\ x v=1`, `m\ x v` + bin(1)},
		{"no fields", "no fields"},
		{"m v=1e400 1", "m v=1e400 1"},
	} {
		if got := string(AppendBinaryDoubles(nil, []byte(tc.in))); got != tc.want {
			t.Errorf("%q:\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// FuzzBinaryDouble checks the text-to-binary double encoding against
// strconv: a value converted holds exactly the bits strconv.ParseFloat
// reads from its text; a value not converted is not a plain decimal, or
// strconv refuses it, or it is not finite, or an underflow.
func FuzzBinaryDouble(f *testing.F) {
	for _, s := range []string{"58.1", "-0", "1e5", ".5", "1.", "4.9e-324", "1e-400", "1e309", "NaN", "0x1p-2", "123456789012345678901234567890.5e-10", "+7"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, ok := BinaryDouble([]byte(s))
		want, err := strconv.ParseFloat(s, 64)
		if ok {
			if err != nil || b[0] != '=' || b[1] != BinaryDoubleType || binary.LittleEndian.Uint64(b[2:]) != math.Float64bits(want) {
				t.Fatalf("%q: % x, strconv %v (%x) %v", s, b, want, math.Float64bits(want), err)
			}
			return
		}
		plain, nonzero := decimalRE(s)
		if plain && err == nil && !math.IsInf(want, 0) && (want != 0 || !nonzero) {
			t.Fatalf("%q: plain decimal %v that strconv reads, not converted", s, want)
		}
	})
}

// decimalRE is the plain decimal syntax, written out again for the fuzzer,
// and whether the mantissa has a digit other than 0.
func decimalRE(s string) (plain, nonzero bool) {
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	mant, exp, hasExp := strings.Cut(strings.ReplaceAll(s, "E", "e"), "e")
	if hasExp {
		if len(exp) > 0 && (exp[0] == '+' || exp[0] == '-') {
			exp = exp[1:]
		}
		if exp == "" || strings.Trim(exp, "0123456789") != "" {
			return false, false
		}
	}
	whole, frac, _ := strings.Cut(mant, ".")
	plain = whole+frac != "" && strings.Trim(whole, "0123456789") == "" && strings.Trim(frac, "0123456789") == ""
	return plain, strings.Trim(whole+frac, "0") != ""
}

// FuzzAppendBinaryDoubles: a line with its doubles in binary form holds the
// same fields as the line: every float field that is a plain decimal turned
// to the bits strconv reads from it, every other byte as it was.
func FuzzAppendBinaryDoubles(f *testing.F) {
	for _, s := range []string{"cpu,host=h1 usage=58.1,idle=2i 1451606400000000000", `m,t\ x=a\,b k\=1=1.5,s="a=1.5, b=\"2\"",b=t 17`, "m v=1e400,w=.5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		line := []byte(s)
		if strings.ContainsAny(s, "\n\x10") || Scan(line).Reason != "" || !Scan(line).Row {
			return
		}
		out := AppendBinaryDoubles(nil, line)
		// Back to text: each binary double as the shortest text of its bits.
		var text []byte
		converted := 0
		for i := 0; i < len(out); i++ {
			if i+BinaryDoubleLen+1 <= len(out) && out[i] == '=' && out[i+1] == '=' && out[i+2] == BinaryDoubleType {
				f := math.Float64frombits(binary.LittleEndian.Uint64(out[i+3:]))
				text = strconv.AppendFloat(append(text, '='), f, 'g', -1, 64)
				i += BinaryDoubleLen
				converted++
				continue
			}
			text = append(text, out[i])
		}
		a, b := fieldsOf(t, line), fieldsOf(t, text)
		if a == nil {
			return // a value Fields cannot decode (TestAppendBinaryDoubles has such lines)
		}
		if len(a) != len(b) {
			t.Fatalf("%q: %d fields, %q after: %d", s, len(a), text, len(b))
		}
		want := 0
		for i := range a {
			if a[i].key != b[i].key || a[i].kind != b[i].kind || a[i].val != b[i].val && !(math.IsNaN(a[i].f) && math.IsNaN(b[i].f)) {
				t.Fatalf("%q: field %d %+v, %q after: %+v", s, i, a[i], text, b[i])
			}
			if _, ok := BinaryDouble(a[i].raw); ok {
				want++
			}
		}
		if converted != want {
			t.Fatalf("%q: %d doubles in binary, want %d (%q)", s, converted, want, out)
		}
		if converted == 0 && !bytes.Equal(out, line) {
			t.Fatalf("%q: changed to %q without a double", s, out)
		}
	})
}

type fuzzField struct {
	key  string
	kind Kind
	val  string
	f    float64
	raw  []byte
}

// fieldsOf lists a line's fields as ilp.Fields decodes them, with each
// unquoted value's text.
func fieldsOf(t *testing.T, line []byte) []fuzzField {
	r := Scan(line)
	if r.Reason != "" {
		t.Fatalf("%q: %s", line, r.Reason)
	}
	var out []fuzzField
	_, err := Fields(line, r, false, func(key []byte, v Value) {
		ff := fuzzField{key: string(key), kind: v.Kind, val: fmt.Sprintf("%+v", v)}
		if v.Kind == KindFloat {
			ff.f = v.Float()
			ff.val = fmt.Sprintf("%x", math.Float64bits(ff.f))
		}
		out = append(out, ff)
	})
	if err != nil {
		return nil
	}
	// The raw text of each unquoted value, in order.
	i, k := fieldsStart(line), 0
	for i >= 0 && i < len(line) && k < len(out) {
		for i < len(line) && line[i] != '=' {
			if line[i] == '\\' {
				i++
			}
			i++
		}
		i++
		s := i
		if i < len(line) && line[i] == '"' {
			for i++; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) && (line[i+1] == '"' || line[i+1] == '\\') {
					i++
				}
			}
			i++
		} else {
			for i < len(line) && line[i] != ',' && line[i] != ' ' {
				i++
			}
			out[k].raw = line[s:i]
		}
		k++
		if i >= len(line) || line[i] == ' ' {
			break
		}
		i++
	}
	return out
}

// BenchmarkAppendBinaryDoubles re-encodes a cpu-only line (10 doubles).
func BenchmarkAppendBinaryDoubles(b *testing.B) {
	line := []byte("cpu,hostname=host_0,region=eu-central-1,datacenter=eu-central-1a,rack=6,os=Ubuntu15.10,arch=x86,team=SF,service=19,service_version=1,service_environment=test usage_user=58.13,usage_system=2.7,usage_idle=24.08,usage_nice=61.2,usage_iowait=22.5,usage_irq=63.76,usage_softirq=6.1,usage_steal=44.59,usage_guest=80.3,usage_guest_nice=38 1451606400000000000")
	dst := make([]byte, 0, 2*len(line))
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		dst = AppendBinaryDoubles(dst[:0], line)
	}
}
