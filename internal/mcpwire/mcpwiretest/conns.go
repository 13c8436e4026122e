package mcpwiretest

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
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
