package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/remnant/passportkit/internal/clitest"
	"github.com/remnant/passportkit/issuer/mcpserver"
)

// cmd runs one command against db and returns its stdout.
func cmd(t *testing.T, db string, args ...string) string {
	t.Helper()
	var out, errs bytes.Buffer
	if code := run(context.Background(), append([]string{"--db", db}, args...), &out, &errs); code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errs.String())
	}
	return out.String()
}

// TestServeRunsTheFlowAndShutsDownGracefully starts serve on a fresh SQLite
// file in development (migrating it), drives a validation over HTTP while
// operator commands work on the same file, and stops it with the context.
func TestServeRunsTheFlowAndShutsDownGracefully(t *testing.T) {
	tmp := t.TempDir()
	db := filepath.Join(tmp, "issuer.db")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs clitest.Buffer
	exit := make(chan int, 1)
	go func() {
		exit <- run(ctx, []string{"--db", db, "serve", "--addr", "127.0.0.1:0", "--body-timeout", "300ms", "--max-header-bytes", "4096", "--keys", filepath.Join(tmp, "keys")}, io.Discard, &logs)
	}()

	urlRE := regexp.MustCompile(`url=(http://127\.0\.0\.1:\d+)`)
	var base string
	for deadline := time.Now().Add(30 * time.Second); base == ""; {
		if m := urlRE.FindStringSubmatch(logs.String()); m != nil {
			base = m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("server did not start: %s", logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}

	var author, reviewer struct {
		PublicID string `json:"publicId"`
		APIKey   string `json:"apiKey"`
	}
	json.Unmarshal([]byte(cmd(t, db, "agents", "create", "--name", "Author", "--json")), &author)
	json.Unmarshal([]byte(cmd(t, db, "agents", "create", "--name", "Reviewer", "--json")), &reviewer)

	call := func(key, method, path, body string) map[string]any {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var v map[string]any
		json.NewDecoder(res.Body).Decode(&v)
		if res.StatusCode >= 300 {
			t.Fatalf("%s %s: %d %v", method, path, res.StatusCode, v)
		}
		return v
	}
	mem := call(author.APIKey, "POST", "/api/memories", `{"category":"SQL","title":"t","content":"c"}`)["id"].(string)
	call(reviewer.APIKey, "GET", "/api/memories/"+mem, "")
	fb := call(reviewer.APIKey, "POST", "/api/memories/"+mem+"/feedback", `{"type":"corroborate","idempotencyKey":"k"}`)
	if fb["ok"] != true {
		t.Fatalf("feedback %v", fb)
	}

	if out := cmd(t, db, "memories", "moderate", mem, "--status", "quarantined", "--reason", "review"); !strings.Contains(out, "active -> quarantined") {
		t.Fatalf("moderate: %s", out)
	}
	out := cmd(t, db, "reputation", "rebuild", author.PublicID)
	if !strings.Contains(out, "1 journal entry in 1 domain") || !strings.Contains(out, "score 0.5") || !strings.Contains(out, "nothing rewritten") {
		t.Fatalf("rebuild: %s", out)
	}

	// The refusals made before or while reading a request are problem
	// details too: oversized headers, an unparseable request, a stalled body.
	addr := strings.TrimPrefix(base, "http://")
	if res, body := clitest.Exchange(t, addr, clitest.Head("GET /healthz HTTP/1.1", 4096)); res.StatusCode != 200 {
		t.Fatalf("a head of exactly --max-header-bytes: %s %s", res.Status, body)
	}
	res, body := clitest.Exchange(t, addr, clitest.Head("GET /healthz HTTP/1.1", 4097))
	clitest.WantProblem(t, res, body, 431, "header_too_large")
	// An MCP message over even the largest bound by its Content-Length is
	// refused before the client is asked to send it.
	res, body = clitest.Exchange(t, addr, fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: application/json\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n", reviewer.APIKey, max(mcpserver.MaxVerifyMessage, mcpserver.MaxArtifactMessage)+1))
	clitest.WantProblem(t, res, body, 413, "body_too_large")
	if !strings.Contains(string(body), `"jsonrpc":"2.0","id":null`) {
		t.Fatalf("413 on /mcp without the JSON-RPC members: %s", body)
	}
	res, body = clitest.Exchange(t, addr, "GET /healthz HTTP/1.1\r\n\r\n")
	clitest.WantProblem(t, res, body, 400, "invalid_request")
	res, body = clitest.Exchange(t, addr, "POST /api/memories/"+mem+"/feedback HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "+reviewer.APIKey+
		"\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"type\":")
	clitest.WantProblem(t, res, body, 408, "request_timeout")

	cancel()
	select {
	case code := <-exit:
		if code != 0 {
			t.Fatalf("serve exited %d: %s", code, logs.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not stop")
	}
	if !strings.Contains(logs.String(), "shut down") {
		t.Fatalf("no shutdown in logs: %s", logs.String())
	}
}

// TestServeHelpMatchesDocs checks that --help and docs/operating.md state
// the same limits and timeouts.
func TestServeHelpMatchesDocs(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run(context.Background(), []string{"serve", "--help"}, &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	section := clitest.Section(t, "../../docs/operating.md", "## Limits and timeouts")
	clitest.CheckHelpMatchesDoc(t, out.String(), section, []string{
		"--rate", "--burst", "--read-header-timeout", "--body-timeout", "--write-timeout", "--idle-timeout", "--max-header-bytes"})
}
