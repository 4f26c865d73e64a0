//go:build unix

package clickhouse

import "github.com/ebitengine/purego"

// dlopen loads a shared library, its symbols global (chDB's module needs
// libpython's).
func dlopen(path string) (uintptr, error) {
	return purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_GLOBAL)
}
