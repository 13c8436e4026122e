// Package docstest holds the test that runs the shell recipes of README.md
// and docs/*.md as written, against the commands built from this clone, and
// checks the links between those pages. It has no code of its own; see
// docs/development.md, "The recipes of these pages".
package docstest
