package victoriametrics

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tsload/tsload/pkg/format"
	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// checkCase is a CheckLines input, the precision's digits finer than a
// second beyond milliseconds (6: ns), and the line refused and why.
type checkCase struct {
	data string
	fine int
	line int64  // 0: passes
	want string // in the reason
}

func TestCheckLines(t *testing.T) {
	cases := []checkCase{
		{"cpu,host=a usage=1,idle=2i,up=t,x=1.5e-3,y=-.5,z=12u 1451606400000000000\n", 6, 0, ""},
		{"# comment\n\ncpu v=1 1451606400000000000\r\n", 6, 0, ""},
		{"cpu v=1 1451606400000\n", 0, 0, ""},
		{"cpu v=1 1451606400123000\n", 3, 0, ""},
		{"cpu v=1 1451606400000000000\ncpu v=2 1451606400000000001\n", 6, 2, "finer than a millisecond"},
		{"cpu v=1 1451606400000001\n", 3, 1, "finer than a millisecond"},
		{"cpu v=1 123\n", 6, 1, "finer than a millisecond"},
		{"cpu v=1\n", 6, 1, "no timestamp"},
		{"cpu v=1 12a\n", 6, 1, "is not an integer"},
		{"cpu v=1 0\n", 6, 1, "timestamp 0"},
		{"cpu,host=a\\ b v=1\n", 6, 1, "no timestamp"},
		{`cpu s="x" 1451606400000000000` + "\n", 6, 1, "is a string"},
		{`cpu,t="q" v=1 1451606400000000000` + "\n", 6, 0, ""}, // a quote in a tag value is no string field
		{"cpu v=1,w 1451606400000000000\n", 6, 1, "has no value"},
		{`cpu a\=b=1,c\,d=2 1451606400000000000` + "\n", 6, 0, ""},
	}
	// Integers float64 does not hold exactly: the store would round them
	// (9007199254740993 -> ...992), and sums of many can hide it.
	for _, v := range []string{"9007199254740993i", "-9007199254740993i", "9223372036854775807i", "-9223372036854775807i",
		"18446744073709551615u", "9007199254740993u", "99999999999999999999i"} {
		cases = append(cases, checkCase{"cpu v=" + v + " 1451606400000000000\n", 6, 1, "has no exact float64"})
	}
	// Those it does: up to 2^53, and larger powers of two.
	for _, v := range []string{"9007199254740992i", "-9007199254740992i", "4611686018427387904i", "-9223372036854775808i", "0u", "0i"} {
		cases = append(cases, checkCase{"cpu v=" + v + " 1451606400000000000\n", 6, 0, ""})
	}
	// Field values that are no number VictoriaMetrics takes.
	for _, v := range []string{"1x", "1e", "-", "1..2", "nan", "1e999", "-1u", ""} {
		cases = append(cases, checkCase{"cpu v=" + v + " 1451606400000000000\n", 6, 1, "not a number"})
	}
	for _, c := range cases {
		err := CheckLines([]byte(c.data), Rules{Precision: []string{6: "ns", 3: "us", 0: "ms"}[c.fine]}, nil)
		var le *LineError
		switch {
		case c.line == 0 && err != nil:
			t.Errorf("%q: %v", c.data, err)
		case c.line != 0 && (!errors.As(err, &le) || le.Line != c.line || !strings.Contains(le.Reason, c.want)):
			t.Errorf("%q: %v, want line %d saying %q", c.data, err, c.line, c.want)
		}
	}
}

func TestCheckLinesRange(t *testing.T) {
	r := Rules{Precision: "s", Min: 86400000, Max: 1e12}
	for data, ok := range map[string]bool{
		"m v=1 86400\n": true, "m v=1 86399\n": false, "m v=1 1000000000\n": true, "m v=1 1000000001\n": false,
		"m v=1 99999999999999999999\n": false, "m v=1 -5\n": false,
	} {
		if err := CheckLines([]byte(data), r, nil); (err == nil) != ok || err != nil && !strings.Contains(err.Error(), "outside what the server keeps") {
			t.Errorf("%q: %v", data, err)
		}
	}
}

func FuzzCheckLines(f *testing.F) {
	f.Add([]byte("cpu,host=a usage=1,idle=2i 1451606400000000000\n"), 6)
	f.Add([]byte(`cpu s="x",v=1e5 1`+"\n# c\n"), 0)
	f.Add([]byte("a\\ b,c=d\\,e f\\=g=-1.5E+3 -1000000\r\n"), 3)
	f.Fuzz(func(t *testing.T, data []byte, fine int) {
		p := Precisions[(fine%4+4)%4]
		err := CheckLines(data, Rules{Precision: p, Min: 86400000, Max: 4102444800000}, map[string]int{})
		if err == nil {
			return
		}
		var le *LineError
		if !errors.As(err, &le) || le.Line < 1 || le.Line > int64(strings.Count(string(data), "\n"))+1 || le.Reason == "" {
			t.Fatalf("%v", err)
		}
	})
}

func TestInterpret(t *testing.T) {
	b := &load.Batch{Format: format.ILP, Rows: 3, Source: "in.ilp", FirstLine: 101,
		Data: []byte("cpu v=1 1000000\ncpu v=2i2 2000000\ncpu v=3 3000000\n")}
	bad := `cannot process influx line protocol data: incorrect influx line "cpu v=2i2 2000000\ncpu v=3 3000000\n": cannot parse field value for "v": unparsed tail; see https://docs.victoriametrics.com/x` + "\n"
	for _, c := range []struct {
		status    int
		body      string
		rows      int
		retryable bool
		want      string
	}{
		{204, "", 3, false, ""},
		{http.StatusServiceUnavailable, "cannot process insert request for 60.000 seconds because 4 concurrent insert requests are executed", 0, true, "server busy"},
		{400, bad, 0, false, `(400): line 102 "cpu v=2i2 2000000": cannot parse field value for "v": unparsed tail`},
		{400, "too big request; mustn't exceed -influx.maxRequestSize=67108864 bytes", 0, false, "lower BatchSize"},
		{401, "Unauthorized", 0, false, "authentication failed"},
		{500, "boom", 0, false, "server refused the batch (500 boom)"},
	} {
		ack, err := interpret(b, c.status, []byte(c.body))
		if ack.Rows != c.rows || load.IsRetryable(err) != c.retryable || (c.want == "") != (err == nil) ||
			err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%d %q: ack %+v err %v", c.status, c.body, ack, err)
		}
	}
}

func TestMetricsBody(t *testing.T) {
	body := []byte(`vm_app_version{version="victoria-metrics-v1.151.0", short_version="v1.151.0"} 1
flag{name="dedup.minScrapeInterval", value="1ms", is_set="true"} 1
flag{name="retentionPeriod", value="100y", is_set="true"} 1
`)
	if lo, hi, err := keeps(append(body, `flag{name="futureRetention", value="2d", is_set="false"} 1`+"\n"...), time.UnixMilli(1e12)); err != nil ||
		lo != 86400000 || hi != 1e12+2*86400000 {
		t.Errorf("keeps %d %d %v", lo, hi, err)
	}
	if lo, _, err := keeps([]byte(`flag{name="retentionPeriod", value="1", is_set="false"} 1
flag{name="futureRetention", value="2d", is_set="false"} 1
`), time.UnixMilli(1e12)); err != nil || lo != 1e12-31*86400000+3600000 {
		t.Errorf("keeps: 1 month: %d %v", lo, err)
	}
	if d, err := dedupInterval(body); err != nil || d.String() != "1ms" {
		t.Errorf("dedup %v %v", d, err)
	}
	if v, err := appVersion(body); err != nil || v != "victoria-metrics-v1.151.0" {
		t.Errorf("version %q %v", v, err)
	}
	if _, err := dedupInterval([]byte("up 1\n")); err == nil {
		t.Error("no flag: no error")
	}
	if _, err := appVersion([]byte(`vm_app_version{version="", short_version=""} 1` + "\n")); err == nil {
		t.Error("empty version: no error")
	}
}

// The results' setup names the API, so compare.sh's and report's API column
// is not empty for VictoriaMetrics.
func TestDescribeNamesAPI(t *testing.T) {
	tg, err := New(Config{Conn: httpwrite.Conn{URLs: []string{"http://127.0.0.1:1"}, RequestTimeout: time.Second}, Precision: "ns", DBName: "d"})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	s := tg.Describe()
	if s.API != "ilp/http" || s.Database != "db=d" {
		t.Errorf("Describe: API %q, database %q; want ilp/http, db=d", s.API, s.Database)
	}
}
