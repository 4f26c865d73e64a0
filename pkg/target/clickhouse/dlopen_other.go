//go:build !unix

package clickhouse

import "errors"

// dlopen: chDB's wheels are built for Linux and macOS only.
func dlopen(string) (uintptr, error) {
	return 0, errors.New("chDB runs on Linux and macOS only; use a ClickHouse server (--host)")
}
