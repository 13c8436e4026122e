package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"passport-ledger-mcp": func() {
			os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
		},
	})
}

func readLedgerTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "ledger", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestLedgerMCPStdio starts the command (this test binary, run as
// passport-ledger-mcp) and talks to it over its standard input and output.
func TestLedgerMCPStdio(t *testing.T) {
	path, err := exec.LookPath("passport-ledger-mcp")
	if err != nil {
		t.Fatalf("passport-ledger-mcp is not on PATH: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path)
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

// TestFlagErrors checks that unreadable key and trust files are usage
// errors (exit 2) that name the file, before anything is served.
func TestFlagErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"kty":"OKP"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--sign", filepath.Join(dir, "missing.jwk")},
		{"--sign", bad},
		{"--trust", bad},
		{"--unknown"},
	} {
		var stdout, stderr strings.Builder
		if code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr); code != 2 {
			t.Errorf("%v: exit %d, want 2\n%s", args, code, stderr.String())
		}
		if !strings.HasPrefix(stderr.String(), "passport-ledger-mcp: ") {
			t.Errorf("%v: stderr %q", args, stderr.String())
		}
	}
}
