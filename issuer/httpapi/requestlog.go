package httpapi

import (
	"context"
	"crypto/rand"
	"net/http"
	"strings"
	"time"
)

// RequestIDHeader carries a request's identifier, in the request (chosen by
// the client, optional) and in every response.
const RequestIDHeader = "X-Request-Id"

// MaxRequestID is the longest client-chosen request identifier kept.
const MaxRequestID = 64

// RequestIDFrom returns the identifier of a request whose X-Request-Id
// header holds header (SPEC.md §13.3): the header itself when it is 1 to
// [MaxRequestID] characters of ASCII letters, digits and "-", "_", ".",
// ":"; otherwise a new random identifier of 26 lower-case base32
// characters. A client's identifier is never altered, only kept or
// replaced, so it can be searched for in the issuer's logs.
func RequestIDFrom(header string) string {
	if saneRequestID(header) {
		return header
	}
	return strings.ToLower(rand.Text())
}

func saneRequestID(s string) bool {
	if len(s) == 0 || len(s) > MaxRequestID {
		return false
	}
	for i := range len(s) {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_', c == '.', c == ':':
		default:
			return false
		}
	}
	return true
}

type requestIDKey struct{}

// RequestID returns the identifier of the request whose context is ctx, ""
// outside a request served by a [Server].
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

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
func (s *Server) answered(r *http.Request, w *recorder, pattern string, start time.Time) {
	elapsed := time.Since(start)
	route := routeOf(pattern)
	method := methodLabel(r.Method)
	status := w.status
	if status == 0 {
		status = http.StatusOK // nothing written: net/http answers 200
	}
	s.log.InfoContext(r.Context(), "request",
		"request_id", RequestID(r.Context()), "method", method, "route", route,
		"status", status, "duration", elapsed, "bytes", w.written)
	if s.observer != nil {
		s.observer.ObserveRequest(method, route, status, elapsed, w.written)
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

// methodLabel bounds the methods a log or a metric shows to the standard
// ones: any other token a client sends is "other".
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "other"
}

// recorder notes the status and the body bytes of an answer.
type recorder struct {
	http.ResponseWriter
	status  int
	written int64
}

func (w *recorder) WriteHeader(status int) {
	if w.status == 0 && status >= 200 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *recorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.written += int64(n)
	return n, err
}

// Flush sends buffered data to the client, when the connection can.
func (w *recorder) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		if w.status == 0 {
			w.status = http.StatusOK
		}
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the connection's own writer.
func (w *recorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }
