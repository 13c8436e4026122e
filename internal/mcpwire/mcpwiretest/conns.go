package mcpwiretest

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// timeout bounds the wait for one answer; a server that stops answering
// fails the test rather than hanging it.
const timeout = 2 * time.Minute

// Stdio is a [Conn] over a server's standard input and output.
type Stdio struct {
	In  io.Writer     // the server's standard input
	Out *bufio.Reader // the server's standard output
}

// Send writes frame and a newline and reads one line back.
func (s *Stdio) Send(t *testing.T, frame []byte) Answer {
	t.Helper()
	s.Notify(t, frame)
	type line struct {
		b   []byte
		err error
	}
	ch := make(chan line, 1)
	go func() {
		b, err := s.Out.ReadBytes('\n')
		ch <- line{b, err}
	}()
	select {
	case l := <-ch:
		if l.err != nil {
			t.Fatalf("reading the answer: %v (the session ended?)", l.err)
		}
		return Answer{Body: l.b}
	case <-time.After(timeout):
		t.Fatalf("no answer within %v", timeout)
		return Answer{}
	}
}

// Notify writes frame and a newline.
func (s *Stdio) Notify(t *testing.T, frame []byte) {
	t.Helper()
	if _, err := s.In.Write(append(frame[:len(frame):len(frame)], '\n')); err != nil {
		t.Fatalf("writing a frame: %v (the session ended?)", err)
	}
}

// HTTP is a [Conn] that posts each frame to a streamable HTTP endpoint.
type HTTP struct {
	URL    string // the endpoint
	Bearer string // an API key, sent as a bearer token
	Client *http.Client
	// Header holds more headers for every request, such as a
	// Content-Encoding.
	Header http.Header
}

// Post posts body with the given method and Content-Type and the Accept
// header the transport requires.
func (h *HTTP) Post(t *testing.T, method, contentType string, body []byte) Answer {
	t.Helper()
	req, err := http.NewRequest(method, h.URL, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+h.Bearer)
	for k, v := range h.Header {
		req.Header[k] = v
	}
	client := h.Client
	if client == nil {
		client = &http.Client{Timeout: timeout}
	}
	res, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, h.URL, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	ct, _, _ := strings.Cut(res.Header.Get("Content-Type"), ";")
	return Answer{Status: res.StatusCode, ContentType: ct, Body: b}
}

// Send posts frame as application/json.
func (h *HTTP) Send(t *testing.T, frame []byte) Answer {
	t.Helper()
	return h.Post(t, http.MethodPost, "application/json", frame)
}

// Notify posts frame and checks for 202 Accepted.
func (h *HTTP) Notify(t *testing.T, frame []byte) {
	t.Helper()
	if a := h.Send(t, frame); a.Status != http.StatusAccepted {
		t.Fatalf("notification: status %d: %s", a.Status, a.Body)
	}
}

// bearer sends an API key as a bearer token on every request.
type bearer struct {
	key  string
	next http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	if b.key == "" {
		return b.next.RoundTrip(r)
	}
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return b.next.RoundTrip(r)
}

// Session connects the SDK's own client to the streamable HTTP endpoint
// url, with key as a bearer token (none when key is empty) and without
// the standalone event stream, and closes the session when t ends.
func Session(t testing.TB, url, key string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpwiretest", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint:             url,
		HTTPClient:           &http.Client{Transport: bearer{key: key, next: http.DefaultTransport}, Timeout: timeout},
		DisableStandaloneSSE: true,
		MaxRetries:           -1,
	}, nil)
	if err != nil {
		t.Fatalf("connecting to %s: %v", url, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// CallTool calls a tool and returns its result, failing t on a protocol
// error; a tool error is a result with IsError set.
func CallTool(t testing.TB, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(res.Content) == 0 {
		t.Fatalf("%s: a result without content", name)
	}
	return res
}

// Text returns the text of a tool result's first content.
func Text(t testing.TB, res *mcp.CallToolResult) string {
	t.Helper()
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("the first content is %T, not text", res.Content[0])
	}
	return tc.Text
}
