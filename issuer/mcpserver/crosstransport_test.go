package mcpserver_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/remnant/passportkit/internal/problem"
)

// transports asks one question of a tool, through the SDK's client, and
// of an HTTP route of the same server on loopback, to compare the answers.
type transports struct {
	t   testing.TB
	srv *httptest.Server
	cs  *mcp.ClientSession
}

// answer is what a transport answered: a body, or problem details.
type answer struct {
	ok      bool
	body    string
	problem problem.Details
}

// tool calls a tool with args, a JSON object, through the SDK's client.
func (tr *transports) tool(name, args string) answer {
	tr.t.Helper()
	res, err := tr.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		tr.t.Fatalf("%s %s: %v", name, args, err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	sc, _ := json.Marshal(res.StructuredContent)
	if !sameValue(sc, []byte(text)) {
		tr.t.Fatalf("%s: the structured content differs from the text:\n%.300s\n%.300s", name, sc, text)
	}
	if !res.IsError {
		return answer{ok: true, body: text}
	}
	var p problem.Details
	if err := json.Unmarshal([]byte(text), &p); err != nil || p.Type != problem.TypeURI(p.Code) || p.Detail == "" {
		tr.t.Fatalf("%s: tool error %q is not problem details", name, text)
	}
	return answer{problem: p}
}

// http requests path anonymously, with body as a JSON body when not "".
func (tr *transports) http(method, path, body string) answer {
	tr.t.Helper()
	req, err := http.NewRequest(method, tr.srv.URL+path, strings.NewReader(body))
	if err != nil {
		tr.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		tr.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode == http.StatusOK {
		return answer{ok: true, body: strings.TrimSuffix(string(b), "\n")}
	}
	var p problem.Details
	if err := json.Unmarshal(b, &p); err != nil || p.Status != res.StatusCode {
		tr.t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, b)
	}
	return answer{problem: p}
}

// get is a successful tool call's answer, decoded into out.
func (tr *transports) get(name, args string, out any) string {
	tr.t.Helper()
	a := tr.tool(name, args)
	if !a.ok {
		tr.t.Fatalf("%s %s: %+v", name, args, a.problem)
	}
	if err := json.Unmarshal([]byte(a.body), out); err != nil {
		tr.t.Fatal(err)
	}
	return a.body
}

// same fails t unless the tool and the route answered alike: the same
// bytes, or the same problem details but for the route's instance.
func (tr *transports) same(what string, tool, route answer) {
	tr.t.Helper()
	route.problem.Instance = ""
	if tool != route {
		tr.t.Errorf("%s:\n tool  %+v\n route %+v", what, tool, route)
	}
}

// sameValue reports whether a and b hold the same JSON value.
func sameValue(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

func args(kv ...any) string {
	m := map[string]any{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	b, _ := json.Marshal(m)
	return string(b)
}
