// Command passport verifies, inspects and signs passport bundles, and keeps an
// agent's own counterparty ledger. It links no database driver and no issuer
// code: a third party installs it to check passports offline.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/alecthomas/kong"
)

// Exit codes shared by every command.
const (
	exitOK            = 0 // success; for verify, the bundle verified
	exitFailed        = 1 // the operation failed; for verify, not verified
	exitUsage         = 2 // bad flags, unreadable input, invalid trust file
	exitIndeterminate = 3 // verify: no trusted key with the bundle's kid
)

// cli is the command tree. Each command lives in its own file.
type cli struct {
	Verify       verifyCmd       `cmd:"" help:"Verify a bundle against a trust file (exit 0 verified, 1 not, 2 usage, 3 unknown key)."`
	Inspect      inspectCmd      `cmd:"" help:"Show a bundle's header and claims, unverified."`
	Canonicalize canonicalizeCmd `cmd:"" help:"Write the RFC 8785 canonical form of a JSON document."`
	Sign         signCmd         `cmd:"" help:"Sign an unsigned passport and its evidence into a bundle."`
	Assess       assessCmd       `cmd:"" help:"Assess skills offline from evidence files."`
	Keys         keysCmd         `cmd:"" help:"Generate keys and write trust files."`
	Serve        serveCmd        `cmd:"" help:"Serve POST /v1/verify over HTTP."`
	Ledger       ledgerCmd       `cmd:"" help:"Keep and read your own counterparty ledger (REPUTATION.md)."`
	Version      versionCmd      `cmd:"" help:"Print the version."`
}

// env is what every command's Run receives: the process's streams and a
// context cancelled on interrupt.
type env struct {
	ctx    context.Context
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

// exitError carries a specific exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageError marks err as a usage error (exit 2).
func usageError(err error) error { return &exitError{code: exitUsage, err: err} }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run parses args and runs the chosen command, returning the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var root cli
	exited := -1
	parser, err := kong.New(&root,
		kong.Name("passport"),
		kong.Description("Verify, inspect and sign agent passports; keep a counterparty ledger."),
		kong.UsageOnError(),
		kong.Writers(stdout, stderr),
		kong.Exit(func(code int) { exited = code }),
		kong.Bind(&env{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr}),
	)
	if err != nil {
		fmt.Fprintf(stderr, "passport: %v\n", err)
		return exitUsage
	}
	kctx, err := parser.Parse(args)
	if exited >= 0 { // --help
		return exited
	}
	if err != nil {
		fmt.Fprintf(stderr, "passport: %v\n", err)
		return exitUsage
	}
	if err := kctx.Run(); err != nil {
		if exited >= 0 {
			return exited
		}
		var ee *exitError
		if errors.As(err, &ee) {
			if ee.err != nil && ee.err.Error() != "" {
				fmt.Fprintf(stderr, "passport: %v\n", ee.err)
			}
			return ee.code
		}
		fmt.Fprintf(stderr, "passport: %v\n", err)
		return exitFailed
	}
	return exitOK
}
