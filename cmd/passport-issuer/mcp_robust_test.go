package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/remnant/passportkit/internal/mcpwire/mcpwiretest"
	"github.com/remnant/passportkit/issuer/mcpserver"
)

// TestMCPRobustnessBinary runs the protocol robustness suite against /mcp
// of `passport-issuer serve` built from this package, on a loopback port
// with a SQLite file, then stops it with an interrupt.
func TestMCPRobustnessBinary(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "passport-issuer")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	db := filepath.Join(dir, "issuer.db")
	if out, err := exec.Command(bin, "--db", db, "migrate").CombinedOutput(); err != nil {
		t.Fatalf("migrate: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--db", db, "agents", "create", "--name", "Prober", "--json").Output()
	if err != nil {
		t.Fatalf("agents create: %v", err)
	}
	var agent struct {
		APIKey string `json:"apiKey"`
	}
	if err := json.Unmarshal(out, &agent); err != nil || agent.APIKey == "" {
		t.Fatalf("agents create: %q: %v", out, err)
	}

	// A budget above the suite's request count: rate limits are not under test.
	cmd := exec.Command(bin, "--db", db, "serve", "--keys", filepath.Join(dir, "keys"), "--addr", "127.0.0.1:0", "--rate", "1000", "--burst", "1000")
	base := startProcess(t, cmd)

	mcpwiretest.Run(t, &mcpwiretest.HTTP{URL: base + "/mcp", Bearer: agent.APIKey},
		mcpwiretest.Options{MaxFrame: mcpserver.MaxMessage, HTTP: true, Stateless: true, Tools: 21})

	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("serve after an interrupt: %v", err)
	}
}
