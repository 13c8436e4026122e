package main

import (
	"errors"

	"github.com/remnant/passportkit/internal/cli"
)

// ledgerMCPCmd says where the ledger MCP server went: it is the command
// passport-ledger-mcp, so that passport does not link the MCP SDK.
type ledgerMCPCmd struct {
	Args []string `arg:"" optional:"" passthrough:""`
}

func (ledgerMCPCmd) Run() error {
	return cli.Usage(errors.New("the ledger tools are served over MCP by the passport-ledger-mcp command; in a clone of the repository, go install ./cmd/passport-ledger-mcp"))
}
