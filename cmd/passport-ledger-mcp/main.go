// Command passport-ledger-mcp serves the counterparty ledger tools
// (REPUTATION.md) over the Model Context Protocol on standard input and
// output, until the client disconnects or the process is interrupted.
//
// It is a command of its own, not a subcommand of passport, so that
// passport, which third parties install to verify bundles, does not link
// the MCP SDK: a process that only verifies starts faster without it.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/alecthomas/kong"

	"github.com/remnant/passportkit/internal/cli"
	"github.com/remnant/passportkit/internal/mcpwire"
	"github.com/remnant/passportkit/ledger"
	"github.com/remnant/passportkit/ledger/ledgermcp"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/verifier"
)

// server is the command: its flags and what it serves.
type server struct {
	Sign  string `placeholder:"KEY" help:"Sign the ids of the summaries share_summary makes with this private key file."`
	Trust string `placeholder:"FILE" help:"Check the signatures of received summaries against this trust file."`
}

// env is what Run receives: the process's streams and a context cancelled
// on interrupt.
type env struct {
	ctx    context.Context
	stdin  io.Reader
	stdout io.Writer
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run parses args and serves, returning the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return cli.Program{
		Name:        "passport-ledger-mcp",
		Description: "Serve the REPUTATION.md ledger tools over MCP on standard input and output.",
		Options:     []kong.Option{kong.Bind(&env{ctx: ctx, stdin: stdin, stdout: stdout})},
	}.Run(&server{}, args, stdout, stderr)
}

// Run serves the ledger tools until the input ends or the process is
// interrupted.
func (c *server) Run(e *env) error {
	var cfg ledgermcp.Config
	if c.Sign != "" {
		b, err := cli.ReadFile(e.stdin, c.Sign, passport.MaxKeySize)
		if err != nil {
			return err
		}
		key, err := passport.ParsePrivateKey(b)
		if err != nil {
			return cli.Usage(fmt.Errorf("%s: %w", c.Sign, err))
		}
		cfg.Signer = passport.NewSigner(key)
	}
	if c.Trust != "" {
		b, err := cli.ReadFile(e.stdin, c.Trust, verifier.MaxTrustFileSize)
		if err != nil {
			return err
		}
		if cfg.Trust, err = verifier.ParseTrust(b); err != nil {
			return cli.Usage(fmt.Errorf("%s: %w", c.Trust, err))
		}
	}
	cfg.Today = func() ledger.Date { return ledger.DateOf(time.Now()) }
	err := ledgermcp.New(cfg).Run(e.ctx, &mcpwire.Transport{Reader: e.stdin, Writer: e.stdout, MaxFrame: ledgermcp.MaxFrame})
	if err != nil && e.ctx.Err() != nil {
		return nil // interrupted
	}
	return err
}
