package mcpwire

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// connect returns a connection reading input and the buffer it writes to.
func connect(t *testing.T, input string, max int) (*conn, *bytes.Buffer) {
	t.Helper()
	var out bytes.Buffer
	c, err := (&Transport{Reader: strings.NewReader(input), Writer: &out, MaxFrame: max}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c.(*conn), &out
}

// readAll reads messages until the connection's input ends, counting
// each call as answered so that the end of input need not wait for it.
func readAll(t *testing.T, c *conn) ([]jsonrpc.Message, error) {
	t.Helper()
	var msgs []jsonrpc.Message
	for {
		m, err := c.Read(context.Background())
		if err != nil {
			return msgs, err
		}
		if req, ok := m.(*jsonrpc.Request); ok && req.IsCall() {
			c.answer(req.ID)
		}
		msgs = append(msgs, m)
	}
}

// replies decodes the fault replies written to out.
func replies(t *testing.T, out *bytes.Buffer) []Reply {
	t.Helper()
	var rs []Reply
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		var r Reply
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%q: %v", sc.Bytes(), err)
		}
		rs = append(rs, r)
	}
	return rs
}

func TestTransportFrames(t *testing.T) {
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	padded := func(n int) string { return ping[:len(ping)-1] + strings.Repeat(" ", n-len(ping)) + "}" }
	const max = 100 << 10 // larger than the read buffer, so long frames span reads
	input := strings.Join([]string{
		ping,
		"",                  // blank lines are skipped
		"   ",               //
		ping + "\r",         // CRLF
		"{not json",         // -32700
		padded(max),         // at the bound: read
		padded(max + 1),     // above it: -32600
		padded(max) + "\r",  // at the bound before a CR: read
		padded(3 * max),     // far above, across several reads: -32600
		`{"jsonrpc":"2.0"}`, // -32600
		ping,                // the last frame, without a newline
	}, "\n")
	c, out := connect(t, input, max)
	msgs, err := readAll(t, c)
	if !errors.Is(err, io.EOF) {
		t.Fatalf("input ended with %v", err)
	}
	if len(msgs) != 5 {
		t.Fatalf("%d messages, want 5", len(msgs))
	}
	for _, m := range msgs {
		if r, ok := m.(*jsonrpc.Request); !ok || r.Method != "ping" {
			t.Fatalf("message %#v", m)
		}
	}
	var codes []int64
	for _, r := range replies(t, out) {
		if r.ID != nil {
			t.Errorf("reply %+v has an id", r)
		}
		codes = append(codes, r.Error.Code)
	}
	want := []int64{jsonrpc.CodeParseError, jsonrpc.CodeInvalidRequest, jsonrpc.CodeInvalidRequest, jsonrpc.CodeInvalidRequest}
	if !equal(codes, want) {
		t.Fatalf("fault codes %v, want %v", codes, want)
	}
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestTransportCloseUnblocksRead: Close ends a Read waiting for input that
// never comes, and later writes fail.
func TestTransportCloseUnblocksRead(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	c, err := (&Transport{Reader: r, Writer: io.Discard, MaxFrame: 10}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := c.Read(context.Background())
		done <- err
	}()
	c.Close()
	select {
	case err := <-done:
		if !errors.Is(err, io.EOF) {
			t.Fatalf("read after close: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Read still blocked after Close")
	}
	if err := c.Write(context.Background(), &jsonrpc.Request{Method: "x"}); err == nil {
		t.Fatal("write after close succeeded")
	}
}

// TestTransportWriteError: an I/O error answering a bad frame ends the
// session with that error.
func TestTransportWriteError(t *testing.T) {
	broken := errors.New("broken pipe")
	c, err := (&Transport{Reader: strings.NewReader("[]\n"), Writer: failingWriter{broken}, MaxFrame: 10}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Read(context.Background()); !errors.Is(err, broken) {
		t.Fatalf("read: %v", err)
	}
}

type failingWriter struct{ err error }

func (w failingWriter) Write([]byte) (int, error) { return 0, w.err }

func TestTransportNeedsBound(t *testing.T) {
	if _, err := (&Transport{Reader: strings.NewReader(""), Writer: io.Discard}).Connect(context.Background()); err == nil {
		t.Fatal("a transport without MaxFrame connected")
	}
}

// TestTransportEndWaitsForAnswers: the end of input is reported only once
// every call read has been answered (a notification needs no answer), so
// that the answers of a client that closed its end at once are written;
// Close ends the wait.
func TestTransportEndWaitsForAnswers(t *testing.T) {
	input := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":"b","method":"ping"}` + "\n"
	for _, closing := range []bool{false, true} {
		c, out := connect(t, input, 1<<10)
		var calls []jsonrpc.ID
		for range 3 {
			m, err := c.Read(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if req := m.(*jsonrpc.Request); req.IsCall() {
				calls = append(calls, req.ID)
			}
		}
		ended := make(chan error, 1)
		go func() {
			_, err := c.Read(context.Background())
			ended <- err
		}()
		if closing {
			c.Close()
		} else {
			for _, id := range calls {
				select {
				case err := <-ended:
					t.Fatalf("input ended (%v) before call %v was answered", err, id)
				case <-time.After(10 * time.Millisecond):
				}
				if err := c.Write(context.Background(), &jsonrpc.Response{ID: id, Result: json.RawMessage(`{}`)}); err != nil {
					t.Fatal(err)
				}
			}
		}
		select {
		case err := <-ended:
			if !errors.Is(err, io.EOF) {
				t.Fatalf("closing %v: input ended with %v", closing, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("closing %v: the end of input still waits", closing)
		}
		if n := strings.Count(out.String(), "\n"); !closing && n != 2 {
			t.Errorf("%d answers written, want 2", n)
		}
	}
}
