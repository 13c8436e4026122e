// Command passport verifies, inspects and signs passport bundles, and keeps an
// agent's own counterparty ledger. It links no database driver and no issuer
// code: a third party installs it to check passports offline.
package main

import (
	"context"
	"io"
	"os"
	"reflect"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/remnant/passportkit/internal/cli"
)

// exitIndeterminate is verify's exit code when no trusted key has the
// bundle's kid; the other codes are cli's: 0 verified, 1 not verified,
// 2 usage.
const exitIndeterminate = 3

// commands is the command tree. Each command lives in its own file.
type commands struct {
	Verify       verifyCmd       `cmd:"" help:"Verify a bundle or a presentation against a trust file (exit 0 verified, 1 not, 2 usage, 3 unknown key)."`
	Present      presentCmd      `cmd:"" help:"Present a bundle: bind it to your holder key, a relying party and its nonce."`
	Inspect      inspectCmd      `cmd:"" help:"Show a bundle's header and claims, unverified."`
	Canonicalize canonicalizeCmd `cmd:"" help:"Write the RFC 8785 canonical form of a JSON document."`
	Sign         signCmd         `cmd:"" help:"Sign an unsigned passport and its evidence into a bundle."`
	Assess       assessCmd       `cmd:"" help:"Assess skills offline from evidence files."`
	Keys         keysCmd         `cmd:"" help:"Generate keys and write trust files."`
	Ledger       ledgerCmd       `cmd:"" help:"Keep and read your own counterparty ledger (REPUTATION.md)."`
	Trust        trustCmd        `cmd:"" help:"Reader-local trust and contradictions from your own trust set."`
	Version      versionCmd      `cmd:"" help:"Print the version."`
}

// env is what every command's Run receives: the process's streams and a
// context. No command runs long enough to be worth catching signals for
// (passport-serve does): setting up os/signal starts a goroutine and, with
// it, threads, which in a cgo build cost a verification several times
// over.
type env struct {
	ctx    context.Context
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run parses args and runs the chosen command, returning the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return cli.Program{
		Name:        "passport",
		Description: "Verify, inspect and sign agent passports; keep a counterparty ledger.",
		Options:     []kong.Option{kong.Bind(&env{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr})},
	}.Run(commandTree(args), args, stdout, stderr)
}

// commandTree returns the part of the command tree that args can reach:
// only the named command when the first argument names one, else the whole
// tree. Building kong's model of every command costs a process more CPU
// than verifying a typical bundle, so `passport verify` builds only its own.
func commandTree(args []string) any {
	full := reflect.TypeFor[commands]()
	if len(args) > 0 {
		for i := range full.NumField() {
			f := full.Field(i)
			if strings.ToLower(f.Name) == args[0] {
				one := reflect.StructOf([]reflect.StructField{{Name: f.Name, Type: f.Type, Tag: f.Tag}})
				return reflect.New(one).Interface()
			}
		}
	}
	return &commands{}
}
