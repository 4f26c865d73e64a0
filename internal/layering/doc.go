// Package layering holds the test that keeps tsload's packages in their
// layers: targets and format packages are libraries that a second program
// could use without the command line, so they never depend on the runner,
// the loaders' command-line front end or urfave/cli; the generator does not
// depend on the loaders. The bottom layers (pkg/load and each pkg/format
// package) also have an allowlist of what they may import at all
// (TestImportAllowlist). It has no code of its own.
package layering
