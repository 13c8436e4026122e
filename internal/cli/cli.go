// Package cli is what the project's commands share: exit codes, errors that
// carry one, and running a kong command tree to an exit code.
package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/alecthomas/kong"
)

// Exit codes every command uses; a command may define more above these.
const (
	ExitOK     = 0 // success
	ExitFailed = 1 // the operation failed or was refused
	ExitUsage  = 2 // bad flags, arguments or input files
)

// ExitError carries a specific exit code out of a command. An empty Err
// prints nothing: the command has already said what happened.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// Exit returns an error that ends the command with code, printing err.
func Exit(code int, err error) error { return &ExitError{Code: code, Err: err} }

// Usage marks err as a usage error (ExitUsage).
func Usage(err error) error { return Exit(ExitUsage, err) }

// Silent ends the command with code and prints nothing more.
func Silent(code int) error { return Exit(code, errors.New("")) }

// Program describes a command tree to run.
type Program struct {
	Name        string
	Description string
	// Options are further kong options, such as bindings and variables.
	Options []kong.Option
	// Prepare, when set, runs after parsing and before the command, to bind
	// what depends on the parsed flags.
	Prepare func(*kong.Context)
	// Describe, when set, renders a command's error for the terminal.
	Describe func(error) string
}

// Run parses args into root and runs the chosen command, returning the exit
// code. Help exits as kong says; parse errors are usage errors.
func (p Program) Run(root any, args []string, stdout, stderr io.Writer) int {
	exited := -1
	opts := append([]kong.Option{
		kong.Name(p.Name),
		kong.Description(p.Description),
		kong.UsageOnError(),
		kong.Writers(stdout, stderr),
		kong.Exit(func(code int) { exited = code }),
	}, p.Options...)
	parser, err := kong.New(root, opts...)
	if err != nil {
		p.report(stderr, err.Error())
		return ExitUsage
	}
	kctx, err := parser.Parse(args)
	if exited >= 0 { // --help
		return exited
	}
	if err != nil {
		p.report(stderr, err.Error())
		return ExitUsage
	}
	if p.Prepare != nil {
		p.Prepare(kctx)
	}
	err = kctx.Run()
	switch ee, ok := errors.AsType[*ExitError](err); {
	case exited >= 0:
		return exited
	case err == nil:
		return ExitOK
	case ok:
		if ee.Err != nil && ee.Err.Error() != "" {
			p.report(stderr, ee.Err.Error())
		}
		return ee.Code
	case p.Describe != nil:
		p.report(stderr, p.Describe(err))
	default:
		p.report(stderr, err.Error())
	}
	return ExitFailed
}

// report writes msg to stderr after the program's name, once: a message
// from a package of the same name ("passport: …") is not prefixed again.
func (p Program) report(stderr io.Writer, msg string) {
	fmt.Fprintf(stderr, "%s: %s\n", p.Name, strings.TrimPrefix(msg, p.Name+": "))
}
