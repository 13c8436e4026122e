package main

import (
	"bufio"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/remnant/passportkit/internal/mcpwire/mcpwiretest"
	"github.com/remnant/passportkit/ledger/ledgermcp"
)

// ledgerRobustness runs the suite with the server's frame bound and its
// eleven tools (the names are pinned by ledgermcp's TestLedgerMCPTools).
var ledgerRobustness = mcpwiretest.Options{MaxFrame: ledgermcp.MaxFrame, Tools: 11}

// TestLedgerMCPRobustnessBinary runs the suite against passport-ledger-mcp
// built from this package, which must exit 0 when its input ends.
func TestLedgerMCPRobustnessBinary(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "passport-ledger-mcp")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin)
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
		t.Errorf("passport-ledger-mcp: %v at the end of input\n%s", err, stderr.String())
	}
}
