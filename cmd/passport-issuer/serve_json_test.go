package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/remnant/passportkit/internal/clitest"
)

// TestServeJSONLogsAreAllJSON starts serve in development with
// --log-format json on a fresh store with no signing key, so that it
// migrates the store and makes a key, answers an MCP request and shuts
// down: every line it writes to stderr is a JSON object, and each line of
// the MCP request carries the request's identifier.
func TestServeJSONLogsAreAllJSON(t *testing.T) {
	tmp := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs clitest.Buffer
	exit := make(chan int, 1)
	go func() {
		exit <- run(ctx, []string{"--db", filepath.Join(tmp, "issuer.db"), "--log-format", "json", "serve", "--addr", "127.0.0.1:0",
			"--keys", filepath.Join(tmp, "keys")}, io.Discard, &logs)
	}()
	urlRE := regexp.MustCompile(`"url":"(http://127\.0\.0\.1:\d+)"`)
	var base string
	for deadline := time.Now().Add(30 * time.Second); base == ""; {
		if m := urlRE.FindStringSubmatch(logs.String()); m != nil {
			base = m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("server did not start: %s", logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	req, _ := http.NewRequest("POST", base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("X-Request-Id", "json-logs-1")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("tools/list without a key: %d", res.StatusCode)
	}
	cancel()
	select {
	case code := <-exit:
		if code != 0 {
			t.Fatalf("serve exited %d: %s", code, logs.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not stop")
	}
	messages := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(logs.String()))
	for sc.Scan() {
		var line struct {
			Msg       string `json:"msg"`
			RequestID string `json:"request_id"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Errorf("a line that is not JSON: %q", sc.Text())
			continue
		}
		messages[line.Msg] = true
		if strings.HasPrefix(line.Msg, "server ") && line.RequestID != "json-logs-1" {
			t.Errorf("an MCP line without the request's id: %s", sc.Text())
		}
	}
	for _, want := range []string{"applied migration", "development: no signing key was active, so a new key was created and made active",
		"serving", "request", "server connecting", "shut down"} {
		if !messages[want] {
			t.Errorf("no %q line in:\n%s", want, logs.String())
		}
	}
}
