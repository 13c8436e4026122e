package httpapi

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/remnant/passportkit/internal/requestlog"
)

// RequestIDHeader carries a request's identifier, in the request (chosen by
// the client, optional) and in every response.
const RequestIDHeader = requestlog.Header

// MaxRequestID is the longest client-chosen request identifier kept.
const MaxRequestID = requestlog.MaxID

// RequestIDFrom returns the identifier of a request whose X-Request-Id
// header holds header (SPEC.md §13.3), as every service of the project
// chooses it (internal/requestlog): the header itself when it is 1 to
// [MaxRequestID] characters of ASCII letters, digits and "-", "_", ".",
// ":"; otherwise a new random identifier of 26 lower-case base32
// characters.
func RequestIDFrom(header string) string { return requestlog.IDFrom(header) }

// RequestID returns the identifier of the request whose context is ctx, ""
// outside a request served by a [Server].
func RequestID(ctx context.Context) string { return requestlog.ID(ctx) }

// RequestObserver learns of every request a [Server] answers. Its method
// runs on the request's goroutine after the answer is written: it must be
// quick and must not block.
type RequestObserver interface {
	// ObserveRequest reports one answered request: its method (one of the
	// standard methods, or "other"), its route pattern's path (the
	// registered pattern such as "/api/memories/{id}", never the request's
	// path; "unmatched" for a path or method no route serves), the status,
	// the time from its headers to the end of the answer, and the bytes of
	// the answer's body as sent (after any content coding).
	ObserveRequest(method, route string, status int, elapsed time.Duration, written int64)
}

// UnmatchedRoute is the route of a request no registered route serves.
const UnmatchedRoute = "unmatched"

// answered logs and observes the request r once it is answered.
func (s *Server) answered(r *http.Request, w *requestlog.Recorder, pattern string, start time.Time) {
	l := w.Line(r, routeOf(pattern), start)
	requestlog.Log(r.Context(), s.log, l)
	if s.observer != nil {
		s.observer.ObserveRequest(l.Method, l.Route, l.Status, l.Elapsed, l.Written)
	}
}

// routeOf returns the path part of a mux pattern ("GET /api/memories/{id}"
// is "/api/memories/{id}"), or [UnmatchedRoute].
func routeOf(pattern string) string {
	if pattern == "" {
		return UnmatchedRoute
	}
	if _, path, ok := strings.Cut(pattern, " "); ok {
		return path
	}
	return pattern
}
