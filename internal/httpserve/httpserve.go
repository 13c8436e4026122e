// Package httpserve runs the HTTP servers of both commands, the issuer's
// `passport-issuer serve` and the verifier's `passport serve`, with one set
// of connection bounds and one way of starting and stopping.
//
// The bounds come from each command's flags (their defaults differ); the
// server built from them answers oversized headers and unparseable requests
// with problem details (see [problem.Listener]), reads request bodies under
// the handlers' own body timeout, and finishes in-flight requests within a
// grace period when its context ends.
package httpserve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/remnant/passportkit/internal/problem/problemhttp"
)

// Limits bound a server's connections.
type Limits struct {
	// ReadHeaderTimeout is the time to read a request line and headers.
	ReadHeaderTimeout time.Duration
	// BodyTimeout is the time a handler allows a body once its headers are
	// read; handlers enforce it and answer 408.
	BodyTimeout time.Duration
	// WriteTimeout is the time to handle a request and write its response,
	// from the end of its headers.
	WriteTimeout time.Duration
	// IdleTimeout is how long a kept-alive connection may wait for its next
	// request.
	IdleTimeout time.Duration
	// MaxHeaderBytes bounds a request's head: the request line and the
	// header lines, each with its line ending, and the empty line that
	// ends them. More is 431. The listener of [Limits.Listen] counts it
	// exactly.
	MaxHeaderBytes int
}

// MinHeaderBytes is the smallest header bound a server accepts.
const MinHeaderBytes = 1024

// Validate refuses timeouts and header bounds that would disable a limit.
func (l Limits) Validate() error {
	for _, d := range []time.Duration{l.ReadHeaderTimeout, l.BodyTimeout, l.WriteTimeout, l.IdleTimeout} {
		if d <= 0 {
			return errors.New("timeouts must be positive")
		}
	}
	if l.MaxHeaderBytes < MinHeaderBytes {
		return fmt.Errorf("--max-header-bytes must be at least %d", MinHeaderBytes)
	}
	return nil
}

// Server returns a server for h under l, to serve on a listener from
// [Limits.Listen]. Requests' contexts derive from base without its
// cancellation, so that stopping base lets in-flight requests finish.
func (l Limits) Server(base context.Context, h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: l.ReadHeaderTimeout,
		// Handlers read bodies under BodyTimeout and answer 408; this
		// backstop covers a body no handler reads. Its expiry cancels a
		// running request, so it is never shorter than WriteTimeout.
		ReadTimeout:  max(l.ReadHeaderTimeout+l.BodyTimeout, l.WriteTimeout),
		WriteTimeout: l.WriteTimeout,
		IdleTimeout:  l.IdleTimeout,
		// net/http's own, looser bound on heads backs up the listener's.
		MaxHeaderBytes: l.MaxHeaderBytes,
		ConnState:      connState,
		BaseContext:    func(net.Listener) context.Context { return context.WithoutCancel(base) },
	}
}

// Listen listens on addr and wraps the listener so that each request's
// head is held to MaxHeaderBytes exactly, the errors net/http writes before
// any handler runs are problem details, and a connection closed while the
// client may still be sending lingers until the client has read the answer
// (see [listener]).
func (l Limits) Listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	return &listener{Listener: problemhttp.Listener(ln, l.MaxHeaderBytes), maxHeader: l.MaxHeaderBytes}, nil
}

// Serve serves srv on ln until ctx ends, then shuts it down, giving
// in-flight requests up to grace to finish. It returns nil after a clean
// shutdown.
func Serve(ctx context.Context, srv *http.Server, ln net.Listener, grace time.Duration) error {
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
