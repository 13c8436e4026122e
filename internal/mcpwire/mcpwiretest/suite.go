// Package mcpwiretest is the protocol robustness suite the project's MCP
// servers run: frames a client may send by mistake or in malice, each
// followed by a valid request that must still be answered correctly. The
// stdio ledger server and the issuer's /mcp run it in process and as built
// binaries. [Session] and [CallTool] reach a server with the SDK's own
// client, as an agent would.
package mcpwiretest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Answer is a server's answer to one frame.
type Answer struct {
	Status      int    // the HTTP status; 0 over stdio
	ContentType string // the HTTP Content-Type; "" over stdio
	Body        []byte // the JSON answer
}

// Conn carries frames to one server.
type Conn interface {
	// Send sends a frame that must be answered and returns the answer.
	Send(t *testing.T, frame []byte) Answer
	// Notify sends a frame that gets no JSON-RPC answer (over HTTP the
	// implementation checks for 202 Accepted).
	Notify(t *testing.T, frame []byte)
}

// Options describe the server under test.
type Options struct {
	// MaxFrame is the server's frame bound in bytes.
	MaxFrame int
	// HTTP is set for the streamable HTTP transport: errors then carry an
	// HTTP status and problem details.
	HTTP bool
	// Stateless is set for a server that keeps no session between
	// requests, so that a request before initialize and a second
	// initialize are answered normally.
	Stateless bool
	// Tools is the number of tools tools/list must return.
	Tools int
}

// anyError stands for any JSON-RPC error code: the SDK's own answer to
// requests out of session order, which this suite does not pin.
const anyError = 1

// Case is one frame and the answer it must get.
type Case struct {
	Name   string
	Frame  []byte
	Code   int64 // the JSON-RPC error code, 0 for a result, anyError for any error
	ID     any   // the id of the answer: nil (null), float64 or string
	Status int   // over HTTP, the status
}

const initialize = `{"jsonrpc":"2.0","id":%s,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"robustness","version":"1"}}}`

// Cases returns the suite's frames for a server with opts, in the order
// they are sent. The first is sent before initialize.
func Cases(opts Options) []Case {
	outOfOrder, outOfOrderStatus := int64(anyError), http.StatusOK
	if opts.Stateless {
		outOfOrder = 0
	}
	pad := func(n int, id string) []byte {
		head := `{"jsonrpc":"2.0","id":"` + id + `","method":"tools/list"`
		return []byte(head + strings.Repeat(" ", n-len(head)-1) + "}")
	}
	tooLarge := http.StatusRequestEntityTooLarge
	return []Case{
		{"before initialize", []byte(`{"jsonrpc":"2.0","id":"early","method":"tools/list"}`), outOfOrder, "early", outOfOrderStatus},
		{"malformed JSON", []byte(`{"jsonrpc":"2.0","id":1,"method": }`), jsonrpc.CodeParseError, nil, 400},
		{"truncated frame", []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/li`), jsonrpc.CodeParseError, nil, 400},
		{"invalid UTF-8", []byte("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"params\":{\"x\":\"\xff\xfe\"}}"), jsonrpc.CodeParseError, nil, 400},
		{"empty object", []byte(`{}`), jsonrpc.CodeInvalidRequest, nil, 400},
		{"jsonrpc 1.0", []byte(`{"jsonrpc":"1.0","id":4,"method":"tools/list"}`), jsonrpc.CodeInvalidRequest, 4.0, 400},
		{"jsonrpc missing", []byte(`{"id":5,"method":"tools/list"}`), jsonrpc.CodeInvalidRequest, 5.0, 400},
		{"jsonrpc a number", []byte(`{"jsonrpc":2.0,"id":"v","method":"tools/list"}`), jsonrpc.CodeInvalidRequest, "v", 400},
		{"empty array", []byte(`[]`), jsonrpc.CodeInvalidRequest, nil, 400},
		{"number", []byte(`42`), jsonrpc.CodeInvalidRequest, nil, 400},
		{"string", []byte(`"tools/list"`), jsonrpc.CodeInvalidRequest, nil, 400},
		{"null", []byte(`null`), jsonrpc.CodeInvalidRequest, nil, 400},
		{"batch", []byte(`[{"jsonrpc":"2.0","id":6,"method":"tools/list"},{"jsonrpc":"2.0","id":7,"method":"ping"}]`), jsonrpc.CodeInvalidRequest, nil, 400},
		{"object id", []byte(`{"jsonrpc":"2.0","id":{"n":8},"method":"tools/list"}`), jsonrpc.CodeInvalidRequest, nil, 400},
		{"array id", []byte(`{"jsonrpc":"2.0","id":[9],"method":"tools/list"}`), jsonrpc.CodeInvalidRequest, nil, 400},
		{"float id", []byte(`{"jsonrpc":"2.0","id":10.5,"method":"tools/list"}`), jsonrpc.CodeInvalidRequest, nil, 400},
		{"exponent id", []byte(`{"jsonrpc":"2.0","id":1e3,"method":"tools/list"}`), jsonrpc.CodeInvalidRequest, nil, 400},
		{"id beyond 2^53-1", []byte(`{"jsonrpc":"2.0","id":9007199254740992,"method":"tools/list"}`), jsonrpc.CodeInvalidRequest, nil, 400},
		{"null id", []byte(`{"jsonrpc":"2.0","id":null,"method":"tools/list"}`), jsonrpc.CodeInvalidRequest, nil, 400},
		{"duplicate member", []byte(`{"jsonrpc":"2.0","id":11,"method":"tools/list","method":"tools/call"}`), jsonrpc.CodeInvalidRequest, nil, 400},
		{"duplicate argument", []byte(`{"jsonrpc":"2.0","id":18,"method":"tools/call","params":{"name":"x","arguments":{"a":1,"A":2,"a":3}}}`), jsonrpc.CodeInvalidRequest, nil, 400},
		{"lone surrogate", []byte(`{"jsonrpc":"2.0","id":19,"method":"tools/list","params":{"cursor":"\udc00"}}`), jsonrpc.CodeInvalidRequest, nil, 400},
		{"member in another case", []byte(`{"jsonrpc":"2.0","id":12,"Method":"tools/list"}`), jsonrpc.CodeInvalidRequest, 12.0, 400},
		{"params a number", []byte(`{"jsonrpc":"2.0","id":13,"method":"tools/list","params":1}`), jsonrpc.CodeInvalidRequest, 13.0, 400},
		{"method a number", []byte(`{"jsonrpc":"2.0","id":14,"method":7}`), jsonrpc.CodeInvalidRequest, 14.0, 400},
		{"response without result or error", []byte(`{"jsonrpc":"2.0","id":15}`), jsonrpc.CodeInvalidRequest, 15.0, 400},
		{"notification carrying an id", []byte(`{"jsonrpc":"2.0","id":16,"method":"notifications/initialized"}`), jsonrpc.CodeInvalidRequest, 16.0, 400},
		{"unknown method", []byte(`{"jsonrpc":"2.0","id":17,"method":"no/such/method"}`), jsonrpc.CodeMethodNotFound, 17.0, 200},
		{"second initialize", fmt.Appendf(nil, initialize, `"again"`), outOfOrder, "again", outOfOrderStatus},
		{"frame at the bound", pad(opts.MaxFrame, "at-bound"), 0, "at-bound", 200},
		{"frame above the bound", pad(opts.MaxFrame+1, "above-bound"), jsonrpc.CodeInvalidRequest, nil, tooLarge},
	}
}

// Run runs the suite over c: the first case before initialize, then
// initialize, then every other case, each followed by tools/list, which must
// list opts.Tools tools under its own id.
func Run(t *testing.T, c Conn, opts Options) {
	cases := Cases(opts)
	check(t, opts, cases[0], c.Send(t, cases[0].Frame))
	init := Case{Name: "initialize", Frame: fmt.Appendf(nil, initialize, "0"), ID: 0.0, Status: 200}
	check(t, opts, init, c.Send(t, init.Frame))
	c.Notify(t, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	for i, tc := range cases {
		ok := t.Run(tc.Name, func(t *testing.T) {
			if i > 0 {
				check(t, opts, tc, c.Send(t, tc.Frame))
			}
			next := float64(1000 + i)
			a := c.Send(t, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, int(next)))
			result := check(t, opts, Case{Name: "tools/list after " + tc.Name, ID: next, Status: 200}, a)
			var list struct {
				Tools []struct {
					Name string `json:"name"`
				} `json:"tools"`
			}
			if err := json.Unmarshal(result, &list); err != nil || len(list.Tools) != opts.Tools {
				t.Fatalf("tools/list after %s: %d tools (%v), want %d", tc.Name, len(list.Tools), err, opts.Tools)
			}
		})
		if !ok {
			return // the session may be gone; later cases would only repeat it
		}
	}
}

// check checks an answer against its case and returns the result of a
// successful one.
func check(t *testing.T, opts Options, c Case, a Answer) json.RawMessage {
	t.Helper()
	if opts.HTTP && a.Status != c.Status {
		t.Fatalf("%s: status %d, want %d: %s", c.Name, a.Status, c.Status, a.Body)
	}
	var msg struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  json.RawMessage `json:"result"`
		Error   *jsonrpc.Error  `json:"error"`
		// Problem details, over HTTP.
		Type   string `json:"type"`
		Status int    `json:"status"`
		Code   string `json:"code"`
	}
	d := json.NewDecoder(bytes.NewReader(a.Body))
	if err := d.Decode(&msg); err != nil {
		t.Fatalf("%s: answer is not JSON: %v: %q", c.Name, err, a.Body)
	}
	var id any
	if msg.ID != nil {
		json.Unmarshal(msg.ID, &id)
	}
	if msg.JSONRPC != "2.0" || msg.ID == nil || id != c.ID {
		t.Fatalf("%s: answer %s, want jsonrpc 2.0 and id %v", c.Name, a.Body, c.ID)
	}
	switch {
	case c.Code == 0 && (msg.Error != nil || msg.Result == nil):
		t.Fatalf("%s: answer %s, want a result", c.Name, a.Body)
	case c.Code == anyError && msg.Error == nil:
		t.Fatalf("%s: answer %s, want an error", c.Name, a.Body)
	case c.Code != 0 && c.Code != anyError && (msg.Error == nil || msg.Error.Code != c.Code || msg.Result != nil):
		t.Fatalf("%s: answer %s, want error %d", c.Name, a.Body, c.Code)
	}
	if opts.HTTP {
		problem := a.Status >= 400
		if got := a.ContentType; problem && got != "application/problem+json" || !problem && got != "application/json" {
			t.Fatalf("%s: Content-Type %q for status %d", c.Name, got, a.Status)
		}
		if problem && (msg.Status != a.Status || msg.Code == "" || !strings.HasPrefix(msg.Type, "urn:passportkit:problem:")) {
			t.Fatalf("%s: not problem details with a code: %s", c.Name, a.Body)
		}
	}
	return msg.Result
}
