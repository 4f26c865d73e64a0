package load

import "strings"

// CheckPGScheme refuses a PostgreSQL connection string (setting names its
// flag, as Settingf writes it: "{URL}") that is a URL of another scheme
// than postgres:// or postgresql:// (a slip such as postgress://): pgx
// would read it as key=value settings and quote it back garbled, its
// password masked. Only the scheme is named. Key=value settings pass.
func CheckPGScheme(setting, s string) error {
	i := strings.Index(s, "://")
	if i <= 0 || !isScheme(s[:i]) || strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://") {
		return nil
	}
	return Settingf(setting+": scheme %q is not PostgreSQL's: want postgres:// or postgresql:// (or key=value settings)", s[:i+3])
}

// isScheme reports whether s is a URL scheme (RFC 3986: a letter, then
// letters, digits, +, - and .).
func isScheme(s string) bool {
	for i, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && (r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.')) {
			return false
		}
	}
	return s != ""
}
