package timescale

import (
	"strings"
	"testing"
)

// Certificate checks are on by default for a server off this machine; a
// loopback server keeps libpq's "prefer"; an explicit mode always wins.
func TestDefaultTLSVerifiesRemoteServers(t *testing.T) {
	tests := []struct {
		name       string
		cfg        Config
		wantVerify bool // TLS required with the certificate and host name checked
	}{
		{"remote host flags", Config{Host: "db.example.com", Port: 5432, User: "u"}, true},
		{"remote URL", Config{URL: "postgres://u@db.example.com:5432/postgres"}, true},
		{"remote URL with a query", Config{URL: "postgres://u@db.example.com/postgres?connect_timeout=5"}, true},
		{"remote DSN", Config{URL: "host=db.example.com user=u"}, true},
		{"loopback", Config{Host: "127.0.0.1", Port: 5432, User: "u"}, false},
		{"localhost URL", Config{URL: "postgres://u@localhost/postgres"}, false},
		{"explicit flag", Config{Host: "db.example.com", Port: 5432, User: "u", SSLMode: "require"}, false},
		{"explicit in URL", Config{URL: "postgres://u@db.example.com/postgres?sslmode=disable"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("PGSSLMODE", "")
			cc, err := tc.cfg.connConfig("")
			if err != nil {
				t.Fatal(err)
			}
			verify := cc.TLSConfig != nil && !cc.TLSConfig.InsecureSkipVerify && cc.TLSConfig.ServerName != "" && len(cc.Fallbacks) == 0
			if verify != tc.wantVerify {
				t.Fatalf("verify-full = %v, want %v (tls %+v, fallbacks %d)", verify, tc.wantVerify, cc.TLSConfig != nil, len(cc.Fallbacks))
			}
		})
	}
}

// TestURLScheme: a misspelt scheme is named as such, not parsed as
// key=value settings and quoted back garbled with a masked password
// (issue 43 item 15); a DSN holding "://" in a value is still a DSN.
func TestURLScheme(t *testing.T) {
	for _, u := range []string{"postgress://u:secret@db/x", "http://u:secret@db/x"} {
		_, err := (&Config{URL: u, Password: "secret"}).connConfig("")
		if err == nil || !strings.Contains(err.Error(), "is not PostgreSQL's: want postgres:// or postgresql://") || strings.Contains(err.Error(), "secret") || strings.Contains(err.Error(), "xxx") {
			t.Errorf("%s: %v", u, err)
		}
	}
	if _, err := (&Config{URL: "host=db options='-c x=a://b'"}).connConfig(""); err != nil {
		t.Errorf("a DSN: %v", err)
	}
}
