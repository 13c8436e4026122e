package mcpserver_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/remnant/passportkit/issuer/httpapi"
	"github.com/remnant/passportkit/issuer/mcpserver"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
)

// syncBuffer is a buffer the server's goroutines write log lines to.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestMCPLogLinesCarryTheRequestID: every line logged while /mcp answers a
// request, the SDK's own included, carries the request's identifier, the
// one the client chose or the one the response names.
func TestMCPLogLinesCarryTheRequestID(t *testing.T) {
	db := storetest.Open(t, store.SQLite, store.Options{})
	app := storetest.Service(db)
	var logs syncBuffer
	log := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv := httptest.NewServer(httpapi.New(app, log, httpapi.Config{MCP: mcpserver.Handler(app, log, "test")}))
	defer srv.Close()
	for _, chosen := range []string{"mcp-call-1", ""} {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_agent_profile","arguments":{}}}`
		req, _ := http.NewRequest("POST", srv.URL+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if chosen != "" {
			req.Header.Set("X-Request-Id", chosen)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		id := res.Header.Get("X-Request-Id")
		if id == "" || chosen != "" && id != chosen {
			t.Fatalf("X-Request-Id %q, chose %q", id, chosen)
		}
		lines := 0
		sc := bufio.NewScanner(strings.NewReader(logs.String()))
		for sc.Scan() {
			var line map[string]any
			if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
				t.Fatalf("a log line that is not JSON: %q", sc.Text())
			}
			if line["request_id"] != id {
				t.Errorf("a line without the request's id %s: %s", id, sc.Text())
			}
			lines++
		}
		if lines < 2 {
			t.Errorf("%d lines: want the SDK's and the request's own:\n%s", lines, logs.String())
		}
		logs.mu.Lock()
		logs.buf.Reset()
		logs.mu.Unlock()
	}
}
