package ledgermcp

import (
	"bufio"
	"context"
	"io"
	"testing"

	"github.com/remnant/passportkit/internal/mcpwire"
	"github.com/remnant/passportkit/internal/mcpwire/mcpwiretest"
	"github.com/remnant/passportkit/ledger"
)

var ledgerRobustness = mcpwiretest.Options{MaxFrame: MaxFrame, Tools: len(ledgerToolNames)}

// TestLedgerMCPRobustness runs the protocol robustness suite against the
// ledger server in process, over pipes; the end of input then ends the
// session without an error.
func TestLedgerMCPRobustness(t *testing.T) {
	today, _ := ledger.ParseDate("2026-10-22")
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		server := New(Config{Today: func() ledger.Date { return today }})
		done <- server.Run(context.Background(), &mcpwire.Transport{Reader: inR, Writer: outW, MaxFrame: MaxFrame})
		outW.Close()
	}()
	mcpwiretest.Run(t, &mcpwiretest.Stdio{In: inW, Out: bufio.NewReader(outR)}, ledgerRobustness)
	inW.Close()
	if err := <-done; err != nil {
		t.Errorf("the session ended with %v at the end of input", err)
	}
}
