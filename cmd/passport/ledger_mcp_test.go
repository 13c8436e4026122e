package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func readLedgerTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "ledger", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestLedgerMCPStdio starts the real passport binary (this test binary, run
// as passport) with "ledger mcp" and talks to it over its standard input and
// output.
func TestLedgerMCPStdio(t *testing.T) {
	path, err := exec.LookPath("passport")
	if err != nil {
		t.Fatalf("passport is not on PATH: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "ledger", "mcp")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got := cs.InitializeResult().ServerInfo.Name; got != "passport-ledger" {
		t.Errorf("server name %q", got)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "score_counterparty", Arguments: map[string]any{"counterparty": "shop.example", "text": readLedgerTestdata(t, "example.md"), "as_of": "2026-10-22"}})
	if err != nil || res.IsError {
		t.Fatalf("score_counterparty: %v %+v", err, res)
	}
	var s map[string]any
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if s["score"] != 59.6 || s["tier"] != "standard" {
		t.Errorf("score over stdio = %v", s)
	}
}
