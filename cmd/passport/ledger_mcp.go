package main

import (
	"time"

	"github.com/remnant/passportkit/internal/mcpwire"
	"github.com/remnant/passportkit/ledger"
	"github.com/remnant/passportkit/ledger/ledgermcp"
)

type ledgerMCPCmd struct {
	Sign  string `placeholder:"KEY" help:"Sign the ids of the summaries share_summary makes with this private key file."`
	Trust string `placeholder:"FILE" help:"Check the signatures of received summaries against this trust file."`
}

// Run serves the ledger tools over MCP on standard input and output until
// the client disconnects or the process is interrupted.
func (c ledgerMCPCmd) Run(e *env) error {
	signer, trust, err := readSigningFlags(e, c.Sign, c.Trust)
	if err != nil {
		return err
	}
	s := ledgermcp.New(ledgermcp.Config{
		Today:  func() ledger.Date { return ledger.DateOf(time.Now()) },
		Signer: signer,
		Trust:  trust,
	})
	err = s.Run(e.ctx, &mcpwire.Transport{Reader: e.stdin, Writer: e.stdout, MaxFrame: ledgermcp.MaxFrame})
	if err != nil && e.ctx.Err() != nil {
		return nil // interrupted
	}
	return err
}
