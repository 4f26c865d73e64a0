// Package redact keeps secrets out of everything tsload writes: the flags
// recorded in a results file, error messages, logs. Every masked secret reads
// Mask, so a reader (and a test) finds them all the same way.
package redact

import (
	"net/url"
	"regexp"
	"strings"
)

// Mask replaces a secret.
const Mask = "REDACTED"

// secretWords mark names (flags, configuration keys) whose values are secret.
var secretWords = []string{"password", "passwd", "token", "secret", "credential", "auth", "api-key", "apikey", "api_key"}

// IsSecret reports whether a flag or configuration key named name holds a
// secret.
func IsSecret(name string) bool {
	n := strings.ToLower(name)
	for _, w := range secretWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// Flags returns a copy of flags with secret values replaced by Mask (empty
// values stay empty, so the results show a secret was not set), and
// credentials inside the other values masked (see Value).
func Flags(flags map[string]string) map[string]string {
	out := make(map[string]string, len(flags))
	for k, v := range flags {
		if IsSecret(k) && v != "" {
			v = Mask
		} else {
			v = Value(v)
		}
		out[k] = v
	}
	return out
}

var (
	// scheme://user:password@ (the password may not hold '@', ',' or '/',
	// which a URL percent-encodes; ',' separates URL lists).
	urlPassword = regexp.MustCompile(`(://[^:/?#@\s,]*):[^@\s,/]*@`)
	// password=..., token=... in a key=value DSN or a URL query; a value may
	// be single-quoted.
	keyPassword = regexp.MustCompile(`(?i)([a-z0-9_]*(?:password|passwd|pwd|token|secret|api[-_]?key)[a-z0-9_]*)\s*=\s*('(?:[^'\\]|\\.)*'|[^\s;&,]*)`)
	// A QuestDB client configuration string starts with its schema and "::".
	confSchema = regexp.MustCompile(`^[a-z]+::`)
)

// Value masks the credentials inside a value: the password of a URL
// (postgres://u:pw@host/db, a comma list of http://u:pw@host), the value of a
// password= or token= setting (a DSN, a URL query), and the secrets of a
// client configuration string (see Conf).
func Value(v string) string {
	if confSchema.MatchString(v) {
		return Conf(v)
	}
	if !strings.Contains(v, "@") && !strings.Contains(v, "=") {
		return v
	}
	v = urlPassword.ReplaceAllString(v, "${1}:"+Mask+"@")
	return keyPassword.ReplaceAllString(v, "${1}="+Mask)
}

// URL masks the password of one URL; a string that does not parse is masked
// as text (see Value).
func URL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return Value(s)
	}
	if u.User == nil {
		return s
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), Mask)
	}
	return u.String()
}

// Conf masks the secret values of a QuestDB client configuration string
// ("http::addr=h:9000;username=u;password=pw;"), where ";;" inside a value is
// an escaped ';'. A string without a schema is masked whole.
func Conf(s string) string {
	sch, rest, ok := strings.Cut(s, "::")
	if !ok {
		return Mask
	}
	var b strings.Builder
	b.WriteString(sch + "::")
	for len(rest) > 0 {
		i := 0
		for i < len(rest) {
			if rest[i] == ';' {
				if i+1 < len(rest) && rest[i+1] == ';' {
					i += 2
					continue
				}
				break
			}
			i++
		}
		pair := rest[:i]
		key, _, _ := strings.Cut(pair, "=")
		if IsSecret(key) {
			b.WriteString(key + "=" + Mask)
		} else {
			b.WriteString(pair)
		}
		if i < len(rest) {
			b.WriteByte(';')
			i++
		}
		rest = rest[i:]
	}
	return b.String()
}

// String replaces every occurrence of each non-empty secret in s with Mask:
// for messages that may quote a password verbatim (a driver's parse error).
func String(s string, secrets ...string) string {
	for _, sec := range secrets {
		if sec != "" {
			s = strings.ReplaceAll(s, sec, Mask)
		}
	}
	return s
}

// Error returns err with every occurrence of the secrets masked in its
// message; errors.Is and errors.As still see err. It returns err itself when
// the message holds none of them.
func Error(err error, secrets ...string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if m := String(msg, secrets...); m != msg {
		return &maskedError{msg: m, err: err}
	}
	return err
}

type maskedError struct {
	msg string
	err error
}

func (e *maskedError) Error() string { return e.msg }
func (e *maskedError) Unwrap() error { return e.err }
