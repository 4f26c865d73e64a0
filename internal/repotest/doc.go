// Package repotest holds tests of the repository itself rather than of a
// package: what a user who clones it relies on before building anything
// (the scripts the README tells them to run). It has no code of its own.
package repotest
