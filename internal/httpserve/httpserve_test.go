package httpserve

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/remnant/passportkit/internal/clitest"
	"github.com/remnant/passportkit/internal/httpbody"
	"github.com/remnant/passportkit/internal/problem"
	"github.com/remnant/passportkit/internal/problem/problemhttp"
)

func limits() Limits {
	return Limits{ReadHeaderTimeout: time.Second, BodyTimeout: time.Second, WriteTimeout: 2 * time.Second,
		IdleTimeout: time.Second, MaxHeaderBytes: 4096}
}

func TestValidateRefusesDisabledLimits(t *testing.T) {
	if err := limits().Validate(); err != nil {
		t.Fatal(err)
	}
	for name, mutate := range map[string]func(*Limits){
		"zero read-header timeout": func(l *Limits) { l.ReadHeaderTimeout = 0 },
		"negative body timeout":    func(l *Limits) { l.BodyTimeout = -time.Second },
		"zero write timeout":       func(l *Limits) { l.WriteTimeout = 0 },
		"zero idle timeout":        func(l *Limits) { l.IdleTimeout = 0 },
		"tiny header bound":        func(l *Limits) { l.MaxHeaderBytes = MinHeaderBytes - 1 },
	} {
		l := limits()
		mutate(&l)
		if err := l.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestServeAnswersThenStopsCleanly serves on loopback, answers a request,
// and returns nil once its context ends; an oversized header is answered
// with problem details, not net/http's plain text.
func TestServeAnswersThenStopsCleanly(t *testing.T) {
	l := limits()
	ln, err := l.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	srv := l.Server(ctx, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, srv, ln, time.Second) }()

	url := "http://" + ln.Addr().String() + "/"
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if string(body) != "ok" {
		t.Fatalf("answer %q", body)
	}

	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("X-Big", strings.Repeat("x", l.MaxHeaderBytes))
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusRequestHeaderFieldsTooLarge || res.Header.Get("Content-Type") != "application/problem+json" {
		t.Fatalf("oversized header: %d %q", res.StatusCode, res.Header.Get("Content-Type"))
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve = %v after a clean stop", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after its context ended")
	}
}

// start serves h under l on loopback until t ends and returns its address.
func start(t *testing.T, l Limits, h http.Handler) string {
	t.Helper()
	ln, err := l.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, l.Server(ctx, h), ln, time.Second) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return ln.Addr().String()
}

// dial opens a raw connection to addr, closed when t ends.
func dial(t *testing.T, addr string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(30 * time.Second))
	return c, bufio.NewReader(c)
}

// answer reads one response from br, its body whole.
func answer(t *testing.T, br *bufio.Reader) (*http.Response, string) {
	t.Helper()
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	return res, string(b)
}

// wantProblem checks a problem details answer.
func wantProblem(t *testing.T, res *http.Response, body string, status int, code problem.Code) {
	t.Helper()
	clitest.WantProblem(t, res, []byte(body), status, string(code))
}

// wantEnd checks that the server ends the connection with a close, not a
// reset, once its answer is read.
func wantEnd(t *testing.T, br *bufio.Reader) {
	t.Helper()
	if n, err := io.Copy(io.Discard, br); err != nil || n != 0 {
		t.Fatalf("after the answer: %d more bytes, then %v; want the end of the stream", n, err)
	}
}

// TestHeadBoundIsExact sends request heads of exactly MaxHeaderBytes and
// one byte more, on new and on kept-alive connections, over raw TCP: the
// bound counts the request line and header lines with their line endings
// and the empty line that ends them, nothing else.
func TestHeadBoundIsExact(t *testing.T) {
	l := limits()
	addr := start(t, l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		io.WriteString(w, "ok")
	}))
	// headOf returns a request head of exactly n bytes, line endings eol.
	headOf := func(n int, eol, method string) string {
		start := method + " / HTTP/1.1" + eol + "Host: x" + eol + "X-Pad: "
		if method == "POST" {
			start = method + " / HTTP/1.1" + eol + "Host: x" + eol + "Content-Length: 5" + eol + "X-Pad: "
		}
		return start + strings.Repeat("p", n-len(start)-2*len(eol)) + eol + eol
	}
	for _, c := range []struct {
		name, eol, method string
		kept              bool
	}{
		{"new connection", "\r\n", "GET", false},
		{"kept-alive connection", "\r\n", "GET", true},
		{"line feeds alone", "\n", "GET", false},
		{"kept alive, line feeds alone", "\n", "GET", true},
		{"a body in the same write", "\r\n", "POST", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := ""
			if c.method == "POST" {
				body = "12345"
			}
			conn, br := dial(t, addr)
			if c.kept {
				io.WriteString(conn, headOf(100, c.eol, c.method)+body)
				if res, b := answer(t, br); res.StatusCode != 200 || b != "ok" {
					t.Fatalf("first request: %s %q", res.Status, b)
				}
			}
			io.WriteString(conn, headOf(l.MaxHeaderBytes, c.eol, c.method)+body)
			if res, b := answer(t, br); res.StatusCode != 200 || b != "ok" {
				t.Fatalf("a head of exactly %d bytes: %s %q", l.MaxHeaderBytes, res.Status, b)
			}
			io.WriteString(conn, headOf(l.MaxHeaderBytes+1, c.eol, c.method)+body)
			res, b := answer(t, br)
			wantProblem(t, res, b, http.StatusRequestHeaderFieldsTooLarge, problem.HeaderTooLarge)
			if want := fmt.Sprintf("the request line and headers exceed %d bytes", l.MaxHeaderBytes); !strings.Contains(b, want) {
				t.Fatalf("detail %q, want %q", b, want)
			}
			wantEnd(t, br)
		})
	}
}

// TestRefusedBodiesAreAnsweredNotReset posts bodies over a handler's
// bound over raw TCP: with Expect: 100-continue and a Content-Length over
// the bound the client is never asked for the body and reads a 413; a
// client that sends its body anyway, or a chunked body that passes the
// bound while it is read, gets to send it and reads the 413 and then the
// end of the stream, never a reset.
func TestRefusedBodiesAreAnsweredNotReset(t *testing.T) {
	const limit = 1 << 20
	addr := start(t, limits(), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := httpbody.Read(w, r, httpbody.Options{Limit: limit, Timeout: 5 * time.Second}); err != nil {
			be, _ := errors.AsType[*httpbody.Error](err)
			problemhttp.Write(w, problem.New(be.Code, be.Detail, r.URL.Path))
			return
		}
		io.WriteString(w, "ok")
	}))
	const size = 4 << 20 // over the bound, within what a refused connection discards
	body := strings.Repeat("a", size)
	send := func(conn net.Conn, b string) <-chan error {
		sent := make(chan error, 1)
		go func() { _, err := io.WriteString(conn, b); sent <- err }()
		return sent
	}
	wantSent := func(sent <-chan error) {
		t.Helper()
		if err := <-sent; err != nil {
			t.Fatalf("sending the body: %v", err)
		}
	}

	t.Run("Expect: 100-continue", func(t *testing.T) {
		conn, br := dial(t, addr)
		fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n", size)
		res, b := answer(t, br)
		wantProblem(t, res, b, http.StatusRequestEntityTooLarge, problem.TooLarge)
		wantEnd(t, br)
	})
	t.Run("the body sent anyway", func(t *testing.T) {
		if testing.Short() {
			t.Skip("the client waits out net/http's half-second pause before the server discards its body")
		}
		conn, br := dial(t, addr)
		fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n", size)
		sent := send(conn, body)
		res, b := answer(t, br)
		wantProblem(t, res, b, http.StatusRequestEntityTooLarge, problem.TooLarge)
		wantEnd(t, br)
		wantSent(sent)
	})
	t.Run("chunked, Expect: 100-continue", func(t *testing.T) {
		conn, br := dial(t, addr)
		io.WriteString(conn, "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n")
		if res, _ := answer(t, br); res.StatusCode != http.StatusContinue {
			t.Fatalf("%s, want 100 Continue: the length is not known before reading", res.Status)
		}
		sent := send(conn, fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", size, body))
		res, b := answer(t, br)
		wantProblem(t, res, b, http.StatusRequestEntityTooLarge, problem.TooLarge)
		wantEnd(t, br)
		wantSent(sent)
	})
}
