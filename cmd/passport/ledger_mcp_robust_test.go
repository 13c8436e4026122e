package main

import (
	"bufio"
	"context"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/remnant/passportkit/internal/mcpwire"
	"github.com/remnant/passportkit/internal/mcpwire/mcpwiretest"
	"github.com/remnant/passportkit/ledger"
)

var ledgerRobustness = mcpwiretest.Options{MaxFrame: ledgerMaxFrame, Tools: len(ledgerToolNames)}

// TestLedgerMCPRobustness runs the protocol robustness suite against the
// ledger server in process, over pipes; the end of input then ends the
// session without an error.
func TestLedgerMCPRobustness(t *testing.T) {
	today, _ := ledger.ParseDate("2026-10-22")
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		server := newLedgerServer(ledgerServerConfig{Today: func() ledger.Date { return today }})
		done <- server.Run(context.Background(), &mcpwire.Transport{Reader: inR, Writer: outW, MaxFrame: ledgerMaxFrame})
		outW.Close()
	}()
	mcpwiretest.Run(t, &mcpwiretest.Stdio{In: inW, Out: bufio.NewReader(outR)}, ledgerRobustness)
	inW.Close()
	if err := <-done; err != nil {
		t.Errorf("the session ended with %v at the end of input", err)
	}
}

// TestLedgerMCPRobustnessBinary runs the suite against `passport ledger
// mcp` built from this package, which must exit 0 when its input ends.
func TestLedgerMCPRobustnessBinary(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "passport")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "ledger", "mcp")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	mcpwiretest.Run(t, &mcpwiretest.Stdio{In: in, Out: bufio.NewReader(out)}, ledgerRobustness)
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("passport ledger mcp: %v at the end of input\n%s", err, stderr.String())
	}
}
