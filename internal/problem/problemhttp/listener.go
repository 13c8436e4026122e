package problemhttp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"

	"github.com/remnant/passportkit/internal/problem"
)

// net/http answers a request it cannot parse (headers over
// http.Server.MaxHeaderBytes, a malformed request line or Host) itself,
// before any handler runs, by writing a plain-text response straight to the
// connection in one write of this shape. [Listener] recognises that write
// and replaces it with the same status as problem details.
const (
	cannedPrefix  = "HTTP/1.1 "
	cannedHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"
)

// Listener wraps ln so that the responses net/http writes on its own for
// oversized headers (431) and unparseable requests (400) are problem
// details too. maxHeaderBytes is the server's MaxHeaderBytes, quoted in the
// 431 detail.
func Listener(ln net.Listener, maxHeaderBytes int) net.Listener {
	return &listener{Listener: ln, max: maxHeaderBytes}
}

type listener struct {
	net.Listener
	max int
}

func (l *listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &conn{Conn: c, max: l.max}, nil
}

type conn struct {
	net.Conn
	max int
}

// CloseWrite half-closes the wrapped connection, which net/http does
// before it closes a connection whose client may still be sending, so that
// the client reads the answer before the close.
func (c *conn) CloseWrite() error {
	cw, ok := c.Conn.(interface{ CloseWrite() error })
	if !ok {
		return errors.ErrUnsupported
	}
	return cw.CloseWrite()
}

func (c *conn) Write(b []byte) (int, error) {
	if rewritten, ok := rewriteCanned(b, c.max); ok {
		if _, err := c.Conn.Write(rewritten); err != nil {
			return 0, err
		}
		return len(b), nil
	}
	return c.Conn.Write(b)
}

// rewriteCanned returns the problem-details form of one of net/http's
// canned plain-text error responses, or false for any other bytes.
func rewriteCanned(b []byte, maxHeaderBytes int) ([]byte, bool) {
	if !bytes.HasPrefix(b, []byte(cannedPrefix)) || len(b) < len(cannedPrefix)+3 {
		return nil, false
	}
	statusLine, body, ok := bytes.Cut(b[len(cannedPrefix):], []byte(cannedHeaders))
	if !ok || bytes.ContainsAny(statusLine, "\r\n") {
		return nil, false
	}
	status, err := strconv.Atoi(string(statusLine[:3]))
	if err != nil {
		return nil, false
	}
	var d problem.Details
	switch status {
	case http.StatusRequestHeaderFieldsTooLarge:
		d = problem.New(problem.HeaderTooLarge, fmt.Sprintf("the request line and headers exceed %d bytes", maxHeaderBytes), "")
	case http.StatusBadRequest:
		d = problem.New(problem.Invalid, "the request could not be parsed as HTTP/1.1: "+string(bytes.TrimPrefix(body, []byte("400 Bad Request: "))), "")
		if string(body) == "400 Bad Request" {
			d.Detail = "the request could not be parsed as HTTP/1.1"
		}
	default:
		return nil, false
	}
	return Response(d), true
}

// Response returns d as a whole HTTP/1.1 response that closes the
// connection, with the headers of [Write], for an answer written straight
// to a connection before any handler runs.
func Response(d problem.Details) []byte {
	js, _ := json.Marshal(d) // strings and an int: it cannot fail
	var out bytes.Buffer
	fmt.Fprintf(&out, "HTTP/1.1 %d %s\r\nContent-Type: application/problem+json\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\nConnection: close\r\nContent-Length: %d\r\n\r\n", d.Status, http.StatusText(d.Status), len(js)+1)
	out.Write(js)
	out.WriteByte('\n')
	return out.Bytes()
}
