package mcpwire

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Transport is an [mcp.Transport] over a reader and a writer carrying
// newline-delimited JSON-RPC frames, such as a process's standard input and
// output. It is for one connection. Neither stream is closed: the caller
// owns them.
type Transport struct {
	// Reader carries the client's frames.
	Reader io.Reader
	// Writer receives the server's frames.
	Writer io.Writer
	// MaxFrame bounds one frame in bytes, not counting its newline. A
	// frame of MaxFrame bytes is read; a longer one is discarded as it
	// arrives and answered with -32600. It must be positive.
	MaxFrame int
}

var _ mcp.Transport = (*Transport)(nil)

// Connect returns the connection. It fails when MaxFrame is not positive.
func (t *Transport) Connect(context.Context) (mcp.Connection, error) {
	if t.MaxFrame <= 0 {
		return nil, fmt.Errorf("mcpwire: MaxFrame must be positive, not %d", t.MaxFrame)
	}
	c := &conn{w: t.Writer, maxFrame: t.MaxFrame, incoming: make(chan frame), closed: make(chan struct{}),
		pending: map[jsonrpc.ID]bool{}, answered: make(chan struct{}, 1)}
	go c.readLoop(bufio.NewReaderSize(t.Reader, 64<<10), t.MaxFrame)
	return c, nil
}

// frame is one line read from the client, or the error that ended input.
type frame struct {
	data     []byte
	tooLarge bool
	err      error
}

// conn is the connection of a [Transport].
type conn struct {
	writeMu  sync.Mutex
	w        io.Writer
	maxFrame int

	incoming  chan frame
	closeOnce sync.Once
	closed    chan struct{}

	// pending holds the ids of the calls read and not yet answered;
	// answered is signalled when an answer removes one.
	pendingMu sync.Mutex
	pending   map[jsonrpc.ID]bool
	answered  chan struct{}
}

// DrainTimeout bounds how long the end of input waits for the answers to
// the calls already read: a handler still busy after it is cancelled.
const DrainTimeout = 30 * time.Second

var _ mcp.Connection = (*conn)(nil)

// readLoop reads frames until input ends, in its own goroutine so that Read
// can be unblocked by Close or its context. It leaks only while the
// underlying reader blocks after Close, which no portable API can interrupt
// for standard input.
func (c *conn) readLoop(r *bufio.Reader, max int) {
	for {
		f := readFrame(r, max)
		select {
		case c.incoming <- f:
		case <-c.closed:
			return
		}
		if f.err != nil {
			return
		}
	}
}

// readFrame reads one line within max bytes. A line over max is read to
// its end and discarded. Input that ends without a newline is a last frame;
// the next call returns the error.
func readFrame(r *bufio.Reader, max int) frame {
	var buf []byte
	n := 0
	tooLarge := false
	for {
		chunk, err := r.ReadSlice('\n')
		n += len(chunk)
		line := bytes.TrimSuffix(chunk, []byte{'\n'})
		if !tooLarge {
			if len(buf)+len(line) > max+1 { // +1: room for a '\r' before the newline
				tooLarge, buf = true, nil
			} else {
				buf = append(buf, line...)
			}
		}
		switch {
		case err == nil:
			return finish(buf, tooLarge, max)
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case n > 0:
			// The last frame, without its newline; the error comes next time.
			return finish(buf, tooLarge, max)
		default:
			return frame{err: err}
		}
	}
}

// finish drops a carriage return before the newline and applies the bound
// to what remains.
func finish(buf []byte, tooLarge bool, max int) frame {
	buf = bytes.TrimSuffix(buf, []byte{'\r'})
	if tooLarge || len(buf) > max {
		return frame{tooLarge: true}
	}
	return frame{data: buf}
}

// Read returns the next message, answering every refused frame on the way.
func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		var f frame
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case f = <-c.incoming:
		}
		if f.err != nil {
			c.drain(ctx)
			return nil, f.err
		}
		if f.tooLarge {
			if err := c.refuse(ctx, invalid(jsonrpc.ID{}, "the frame exceeds %d bytes", c.maxFrame)); err != nil {
				return nil, err
			}
			continue
		}
		if len(bytes.TrimSpace(f.data)) == 0 {
			continue
		}
		msg, err := Decode(f.data)
		if err != nil {
			var fault *Fault
			if !errors.As(err, &fault) {
				return nil, err
			}
			if err := c.refuse(ctx, fault); err != nil {
				return nil, err
			}
			continue
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			c.pendingMu.Lock()
			c.pending[req.ID] = true
			c.pendingMu.Unlock()
		}
		return msg, nil
	}
}

// drain waits, at the end of input, until every call read has been
// answered (or the connection is closed, ctx is done, or DrainTimeout
// passes). The SDK cancels the calls in flight once Read reports the end
// of input and then closes the connection, so that answers written after
// it would be lost: a client that writes its requests and closes its end
// at once would get none of the answers still being worked out.
func (c *conn) drain(ctx context.Context) {
	timeout := time.NewTimer(DrainTimeout)
	defer timeout.Stop()
	for {
		c.pendingMu.Lock()
		n := len(c.pending)
		c.pendingMu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-c.answered:
		case <-c.closed:
			return
		case <-ctx.Done():
			return
		case <-timeout.C:
			return
		}
	}
}

// refuse answers a refused frame.
func (c *conn) refuse(ctx context.Context, f *Fault) error {
	b, err := json.Marshal(f.Reply())
	if err != nil {
		return err
	}
	return c.write(ctx, b)
}

// Write writes msg as one frame.
func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("mcpwire: encoding a message: %w", err)
	}
	err = c.write(ctx, b)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.answer(resp.ID)
	}
	return err
}

// answer records that the call id has its answer.
func (c *conn) answer(id jsonrpc.ID) {
	c.pendingMu.Lock()
	delete(c.pending, id)
	c.pendingMu.Unlock()
	select {
	case c.answered <- struct{}{}:
	default:
	}
}

func (c *conn) write(ctx context.Context, b []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case <-c.closed:
		return mcp.ErrConnectionClosed
	default:
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.w.Write(append(b, '\n'))
	return err
}

// Close ends the connection: Read returns io.EOF and Write fails. The
// streams stay open.
func (c *conn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

// SessionID is empty: a stdio connection has no session id.
func (c *conn) SessionID() string { return "" }
