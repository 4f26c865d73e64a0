package questdb

import (
	"encoding/json"
	"math"
	"slices"
	"testing"
)

// TestJSONText: /exec's dataset values read as the text the rows' layout
// parses: null as "", strings unescaped, numbers and booleans as written.
func TestJSONText(t *testing.T) {
	for raw, want := range map[string]string{
		`null`: "", `"host_1"`: "host_1", `"a\"b\\c\u00e9"`: "a\"b\\cé", `""`: "",
		`-1.25E-7`: "-1.25E-7", `9007199254740993`: "9007199254740993", `true`: "true", `"2016-01-01T00:00:00.000000Z"`: "2016-01-01T00:00:00.000000Z",
	} {
		got, err := jsonText(json.RawMessage(raw))
		if err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", raw, got, err, want)
		}
	}
	if _, err := jsonText(json.RawMessage(`"\x"`)); err == nil {
		t.Error(`"\x": no error`)
	}
}

// TestExecAnswer: /exec's answer read as rows of text, the error message,
// and malformed answers refused.
func TestExecAnswer(t *testing.T) {
	msg, rows, err := execAnswer([]byte(`{"query":"SELECT 1","columns":[{"name":"h","type":"SYMBOL"},{"name":"v","type":"DOUBLE"},{"name":"a","type":"DOUBLE[]"}],"timestamp":-1,` +
		`"dataset":[["host_1",1.5E-7,[1.0,2.0]],["a\"b",null,null]],"count":2,"explain":{"x":[1,{"y":2}]}}`))
	want := [][]string{{"host_1", "1.5E-7", "[1.0,2.0]"}, {`a"b`, "", ""}}
	if err != nil || msg != "" || !slices.EqualFunc(rows, want, slices.Equal) {
		t.Fatalf("rows %q msg %q err %v", rows, msg, err)
	}
	if msg, rows, err := execAnswer([]byte(`{"query":"SELECT x","error":"Invalid column: x","position":7}`)); err != nil || msg != "Invalid column: x" || rows != nil {
		t.Fatalf("error answer: %q %q %v", msg, rows, err)
	}
	if _, rows, err := execAnswer([]byte(`{"ddl":"OK"}`)); err != nil || len(rows) != 0 {
		t.Fatalf("ddl: %q %v", rows, err)
	}
	for _, bad := range []string{``, `not json`, `[]`, `{"dataset":[1,2]}`, `{"dataset":[[1]`, `{"dataset":{}}`, `{"dataset":[["\x"]]}`, `{"a":1}{}`, `{"error":"x"`} {
		if _, _, err := execAnswer([]byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// execAnswerV1 is the reading execAnswer replaced (encoding/json into raw
// values), the fuzzer's reference.
func execAnswerV1(body []byte) (string, [][]string, error) {
	var doc struct {
		Error   string              `json:"error"`
		Dataset [][]json.RawMessage `json:"dataset"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return "", nil, err
	}
	var rows [][]string
	for _, r := range doc.Dataset {
		row := []string{}
		for _, v := range r {
			s, err := jsonText(v)
			if err != nil {
				return "", nil, err
			}
			row = append(row, s)
		}
		rows = append(rows, row)
	}
	return doc.Error, rows, nil
}

// FuzzExecAnswer: any bytes are read without a panic, and only valid JSON
// is accepted; an answer built from the fuzzed values reads as
// encoding/json reads it.
func FuzzExecAnswer(f *testing.F) {
	f.Add([]byte(`{"dataset":[["a",1]],"count":1}`), "host_1", `a"b\c`, 1.5, uint8(3))
	f.Add([]byte(`{"error":"bad","dataset":null}`), "é✓", "\xff", -0.0, uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, a, b string, x float64, n uint8) {
		if _, _, err := execAnswer(data); err == nil && !json.Valid(data) {
			t.Fatalf("%q: accepted, not valid JSON", data)
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			x = 0
		}
		doc := map[string]any{"query": a, "columns": []map[string]string{{"name": b, "type": "SYMBOL"}}, "count": int(n)}
		var ds [][]any
		for i := range int(n % 8) {
			ds = append(ds, []any{a, x * float64(i), nil, b, []float64{x}, i%2 == 0})
		}
		doc["dataset"] = ds
		if n%5 == 1 {
			doc["error"] = b
		}
		body, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		msg, rows, err := execAnswer(body)
		msg1, rows1, err1 := execAnswerV1(body)
		if err != nil || err1 != nil || msg != msg1 || len(rows) != len(rows1) || (len(rows) > 0 && !slices.EqualFunc(rows, rows1, slices.Equal)) {
			t.Fatalf("%s:\n%q %q %v\nencoding/json: %q %q %v", body, msg, rows, err, msg1, rows1, err1)
		}
	})
}
