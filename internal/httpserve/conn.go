package httpserve

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync/atomic"
	"time"

	"github.com/remnant/passportkit/internal/problem"
	"github.com/remnant/passportkit/internal/problem/problemhttp"
)

// Closing a socket with unread data makes the kernel answer with a reset,
// which can reach the client before it has read the answer. When net/http
// closes a connection whose client may still be sending (a refused body, an
// unread body too large to discard, a head over the bound) it half-closes
// it first; the connection then reads and discards what the client still
// sends, within these bounds, before it closes.
const (
	// LingerBytes bounds what a closing connection discards.
	LingerBytes = 8 << 20
	// LingerTime bounds how long a closing connection discards.
	LingerTime = 2 * time.Second
)

// errHeaderTooLarge ends a connection whose request head is over the bound;
// it is wrapped in a read *net.OpError, which net/http ends quietly.
var errHeaderTooLarge = errors.New("request head over the bound")

// listener accepts connections that count each request's head and linger
// on closing.
//
// net/http bounds a head only roughly: it lets a request read
// MaxHeaderBytes plus 4096 bytes, and on a kept-alive connection it reads
// up to 4096 bytes of the next request before it starts counting. These
// connections count exactly instead, from a request's first byte (on a new
// connection, and once net/http has finished the previous request) through
// the empty line that ends its head, and answer 431 themselves. Bytes a
// client sends before the previous answer (pipelining) may be read ahead
// with the previous body and escape the count; net/http's own bound still
// holds them.
type listener struct {
	net.Listener
	maxHeader int
}

func (l *listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &conn{Conn: c, maxHeader: l.maxHeader}, nil
}

// conn is a server connection that counts each request's head and lingers
// after a half-close. net/http never reads it from two goroutines at once.
type conn struct {
	net.Conn
	maxHeader int

	head   head // the count of the current request's head
	inBody bool // the head is read; bytes go to net/http uncounted
	// pending holds bytes read past a head, for net/http's next reads.
	pending []byte
	// early is set when the last read in body mode was net/http's
	// one-byte read, and got earlyByte.
	early     bool
	earlyByte [1]byte
	// next is set when net/http has finished a request: the next byte
	// read starts a new head.
	next atomic.Bool
	// halfClosed is set by CloseWrite: Close lingers.
	halfClosed atomic.Bool
}

// connState is the http.Server's ConnState hook: an idle connection waits
// for a new request, whose head is counted from its first byte.
func connState(c net.Conn, s http.ConnState) {
	if hc, ok := c.(*conn); ok && s == http.StateIdle {
		hc.next.Store(true)
	}
}

// Read passes the connection's bytes on, stopping at the end of a head so
// that the bytes after it are counted with the next state, and refuses a
// head over the bound.
func (c *conn) Read(p []byte) (int, error) {
	if c.next.Swap(false) {
		c.head, c.inBody = head{}, false
		if c.early {
			c.head.scan(c.earlyByte[:], c.maxHeader)
			c.early = false
		}
	}
	n, err := c.fill(p)
	if c.inBody {
		// net/http reads one byte at a time only to learn, once a body is
		// read, whether the client has gone; a byte it gets that way is the
		// next request's first.
		c.early = len(p) == 1 && n == 1
		if c.early {
			c.earlyByte[0] = p[0]
		}
		return n, err
	}
	if n == 0 {
		return n, err
	}
	end, ended, ok := c.head.scan(p[:n], c.maxHeader)
	if !ok {
		return 0, c.refuseHead()
	}
	if ended {
		c.inBody = true
		if end < n {
			c.pending = append(slices.Clone(p[end:n]), c.pending...)
			return end, nil
		}
	}
	return n, err
}

// fill reads pending bytes first, then the connection.
func (c *conn) fill(p []byte) (int, error) {
	if len(c.pending) == 0 {
		return c.Conn.Read(p)
	}
	n := copy(p, c.pending)
	c.pending = c.pending[n:]
	return n, nil
}

// refuseHead answers 431 as problem details, half-closes, and returns the
// read error that makes net/http close the connection without a word.
func (c *conn) refuseHead() error {
	d := problem.New(problem.HeaderTooLarge, fmt.Sprintf("the request line and headers exceed %d bytes", c.maxHeader), "")
	c.Conn.SetWriteDeadline(time.Now().Add(LingerTime))
	c.Conn.Write(problemhttp.Response(d))
	c.CloseWrite()
	return &net.OpError{Op: "read", Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: errHeaderTooLarge}
}

// CloseWrite half-closes the connection: the client reads what was written,
// then the end of the stream.
func (c *conn) CloseWrite() error {
	cw, ok := c.Conn.(interface{ CloseWrite() error })
	if !ok {
		return errors.ErrUnsupported
	}
	c.halfClosed.Store(true)
	return cw.CloseWrite()
}

// Close closes the connection, after a half-close only once what the
// client still sends is read and discarded (within LingerBytes and
// LingerTime) or the client has closed its side. A second Close does not
// wait.
func (c *conn) Close() error {
	if c.halfClosed.Swap(false) {
		c.Conn.SetReadDeadline(time.Now().Add(LingerTime))
		io.CopyN(io.Discard, c.Conn, LingerBytes)
	}
	return c.Conn.Close()
}

// head counts the bytes of one request head: the request line and the
// header lines, each with its line ending, and the empty line that ends
// them. Like net/http, it takes a line feed alone as a line ending, and
// skips empty lines before the request line (counting them).
type head struct {
	n       int  // bytes counted
	line    int  // bytes of the current line so far
	cr      bool // the current line's last byte is a carriage return
	started bool // a byte other than CR or LF has been seen
}

// scan counts b, the next bytes of the head. It returns how many of them
// belong to the head and whether the head ends there, or false once the
// head, ended or not, would exceed max bytes.
func (h *head) scan(b []byte, max int) (n int, ended, ok bool) {
	for i, c := range b {
		if h.n++; h.n > max {
			return 0, false, false
		}
		if c != '\n' {
			h.line++
			h.cr = c == '\r'
			h.started = h.started || !h.cr
			continue
		}
		if h.started && (h.line == 0 || h.line == 1 && h.cr) {
			return i + 1, true, true
		}
		h.line, h.cr = 0, false
	}
	return len(b), false, true
}
