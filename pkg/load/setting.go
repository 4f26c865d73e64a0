package load

import (
	"fmt"
	"regexp"
	"strings"
)

// A SettingError is an error about settings: a value a target's Config (or
// the runner's) does not take, settings that do not go together, or a
// failure a setting is the likely cause of. Its text names each setting by
// its Config field in braces ("invalid {Precision} %q"); Error writes the
// field name ("invalid Precision \"x\""), so a library error speaks of what
// the library's user set, and a command line writes its flag instead
// (Render), so the command's error speaks of what its user typed.
type SettingError struct {
	format string
	args   []any
	err    error // fmt.Errorf(format, args...): the %w chain
}

// Settingf returns a *SettingError: format and args as fmt.Errorf takes
// them (%w wraps), with settings named in format as {Field}. Braces in args
// are left alone.
func Settingf(format string, args ...any) error {
	return &SettingError{format: format, args: args, err: fmt.Errorf(format, args...)}
}

var settingRef = regexp.MustCompile(`\{([A-Z][A-Za-z0-9]*)\}`)

// Error names the settings by their Config fields.
func (e *SettingError) Error() string { return e.Render(nil) }

// Render writes the error with each setting named by name(field); a nil
// name, or one that returns "", keeps the field name.
func (e *SettingError) Render(name func(field string) string) string {
	f := settingRef.ReplaceAllStringFunc(e.format, func(ref string) string {
		field := ref[1 : len(ref)-1]
		if name != nil {
			if s := name(field); s != "" {
				return strings.ReplaceAll(s, "%", "%%")
			}
		}
		return field
	})
	return fmt.Errorf(f, e.args...).Error()
}

// Settings returns the fields the error names, in order.
func (e *SettingError) Settings() []string {
	var out []string
	for _, m := range settingRef.FindAllStringSubmatch(e.format, -1) {
		out = append(out, m[1])
	}
	return out
}

// Unwrap returns what the error wraps with %w.
func (e *SettingError) Unwrap() []error {
	switch u := e.err.(type) {
	case interface{ Unwrap() []error }:
		return u.Unwrap()
	case interface{ Unwrap() error }:
		if w := u.Unwrap(); w != nil {
			return []error{w}
		}
	}
	return nil
}

// RenderSettings returns err's text with every SettingError in its chain
// rendered by name (see SettingError.Render). It relies on wrappers quoting
// the text of what they wrap, as fmt.Errorf's %w and errors.Join do.
func RenderSettings(err error, name func(field string) string) string {
	msg := err.Error()
	var walk func(error)
	walk = func(e error) {
		if e == nil {
			return
		}
		if se, ok := e.(*SettingError); ok {
			if lib, cli := se.Error(), se.Render(name); lib != cli {
				msg = strings.Replace(msg, lib, cli, 1)
			}
		}
		switch u := e.(type) {
		case interface{ Unwrap() []error }:
			for _, x := range u.Unwrap() {
				walk(x)
			}
		case interface{ Unwrap() error }:
			walk(u.Unwrap())
		}
	}
	walk(err)
	return msg
}
