package loadcli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/tsload/tsload/pkg/load"
	"github.com/tsload/tsload/pkg/runner"
	"github.com/tsload/tsload/pkg/target/httpwrite"
)

// httpSpec is a loader with the HTTP flag set s; New records what HTTP reads.
func httpSpec(s HTTPFlagSet, got *HTTPSettings) Spec {
	return Spec{Name: "load_test", Target: "test", Flags: s.Flags(),
		New: func(c *cli.Context, _ runner.Config) (load.Target, Overrides, error) {
			*got = HTTP(c)
			return nil, Overrides{}, nil
		}}
}

// TestHTTPFlags: every HTTP flag reaches HTTPSettings under its one name,
// defaults and environment variables included, and the older names given as
// aliases (load_questdb's --username, --tls-insecure-skip-verify) still work.
func TestHTTPFlags(t *testing.T) {
	set := HTTPFlagSet{URLs: "http://a:1", Precision: "ns", Gzip: true, User: "root", UserEnv: []string{"TEST_HTTP_USER"},
		PasswordEnv: []string{"TEST_HTTP_PASSWORD"}, RequestTimeout: time.Minute,
		UserAliases: []string{"username"}, InsecureAliases: []string{"tls-insecure-skip-verify"}}
	t.Setenv("TEST_HTTP_PASSWORD", "pw")
	for _, tc := range []struct {
		args []string
		want HTTPSettings
	}{
		{nil, HTTPSettings{Conn: httpwrite.Conn{URLs: []string{"http://a:1"}, Gzip: true, GzipLevel: 1, User: "root", Password: "pw", RequestTimeout: time.Minute}, Precision: "ns"}},
		{[]string{"--urls", "http://b:2, http://c:3", "--precision", "ms", "--gzip=false", "--gzip-level", "9", "--user", "bob",
			"--password", "x", "--token", "t", "--insecure-skip-verify", "--request-timeout", "5s"},
			HTTPSettings{Conn: httpwrite.Conn{URLs: []string{"http://b:2", "http://c:3"}, GzipLevel: 9, User: "bob", Password: "x", InsecureSkipVerify: true, RequestTimeout: 5 * time.Second}, Precision: "ms", Token: "t"}},
		{[]string{"--username", "ann", "--tls-insecure-skip-verify"},
			HTTPSettings{Conn: httpwrite.Conn{URLs: []string{"http://a:1"}, Gzip: true, GzipLevel: 1, User: "ann", Password: "pw", InsecureSkipVerify: true, RequestTimeout: time.Minute}, Precision: "ns"}},
	} {
		var got HTTPSettings
		err := Run(context.Background(), httpSpec(set, &got), append([]string{"load_test", "--do-load=false"}, tc.args...), strings.NewReader("cpu v=1 1\n"), &bytes.Buffer{})
		if err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", tc.args, got, tc.want)
		}
	}
}

// TestHTTPFlagsLeftOut: a set without --urls, --precision or --token has no
// such flag (QuestDB has --http-url, CnosDB no token).
func TestHTTPFlagsLeftOut(t *testing.T) {
	set := HTTPFlagSet{NoURLs: true, NoToken: true}
	for _, f := range set.Flags() {
		switch f.Names()[0] {
		case FlagURLs, FlagPrecision, FlagToken:
			t.Errorf("flag --%s offered", f.Names()[0])
		}
	}
	var got HTTPSettings
	err := Run(context.Background(), httpSpec(set, &got), []string{"load_test", "--do-load=false", "--token", "x"}, bytes.NewReader(nil), &bytes.Buffer{})
	if err == nil {
		t.Fatal("--token accepted by a set without it")
	}
}

// TestSettingErrorsNameFlags: a load.SettingError from the target names the
// flags of Spec.Settings, the common and the HTTP ones (a credential with
// its environment variables); an unknown field stays as it is, and the
// error chain is kept.
func TestSettingErrorsNameFlags(t *testing.T) {
	s := Spec{Name: "load_test", Target: "test", Settings: map[string]string{"URL": "url"},
		Flags: append(HTTPFlagSet{PasswordEnv: []string{"TEST_PW"}}.Flags(), &cli.StringFlag{Name: "url"}),
		New: func(*cli.Context, runner.Config) (load.Target, Overrides, error) {
			return nil, Overrides{}, fmt.Errorf("test: %w", load.Settingf("bad {URL}, {BatchSize}, {GzipLevel}, {Password} or {Other}: %w", io.EOF))
		}}
	err := Run(context.Background(), s, []string{"load_test"}, strings.NewReader(""), &bytes.Buffer{})
	if want := "test: bad --url, --batch-size, --gzip-level, --password or TEST_PW or Other: EOF"; err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
	if !errors.Is(err, io.EOF) {
		t.Errorf("the chain is lost: %v", err)
	}
}
