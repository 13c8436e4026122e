// Package requestlog identifies and logs the requests of the project's HTTP
// services (the issuer's API and passport-serve) one way: each request gets
// an identifier (SPEC.md §13.3), kept in its context and echoed in the
// X-Request-Id response header, and one log line when it is answered, with
// the identifier, method, route, status, duration and bytes written, never
// a key, a body or a query string.
package requestlog

import (
	"context"
	"crypto/rand"
	"log/slog"
	"net/http"
	"strings"
	"time"
)

// Header carries a request's identifier, in the request (chosen by the
// client, optional) and in every response.
const Header = "X-Request-Id"

// MaxID is the longest client-chosen request identifier kept.
const MaxID = 64

// IDFrom returns the identifier of a request whose X-Request-Id header
// holds header (SPEC.md §13.3): the header itself when it is 1 to [MaxID]
// characters of ASCII letters, digits and "-", "_", ".", ":"; otherwise a
// new random identifier of 26 lower-case base32 characters. A client's
// identifier is never altered, only kept or replaced, so it can be
// searched for in the logs.
func IDFrom(header string) string {
	if sane(header) {
		return header
	}
	return strings.ToLower(rand.Text())
}

func sane(s string) bool {
	if len(s) == 0 || len(s) > MaxID {
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

type idKey struct{}

// WithID returns ctx carrying the request identifier id.
func WithID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, idKey{}, id)
}

// ID returns the identifier of the request whose context is ctx, ""
// outside a request.
func ID(ctx context.Context) string {
	id, _ := ctx.Value(idKey{}).(string)
	return id
}

// Start identifies r: it sets the X-Request-Id response header and returns
// r with the identifier in its context, and the recorder to answer through.
func Start(w http.ResponseWriter, r *http.Request) (*Recorder, *http.Request) {
	id := IDFrom(r.Header.Get(Header))
	w.Header().Set(Header, id)
	return &Recorder{ResponseWriter: w}, r.WithContext(WithID(r.Context(), id))
}

// Line is what one answered request's log line and metrics say of it.
type Line struct {
	Method  string // a standard method, or "other" ([Method])
	Route   string // the route's pattern, never the request's path
	Status  int
	Elapsed time.Duration
	Written int64 // bytes of the answer's body
}

// Log writes the line of an answered request whose context is ctx, at
// level info, under the message "request".
func Log(ctx context.Context, log *slog.Logger, l Line) {
	log.InfoContext(ctx, "request",
		"request_id", ID(ctx), "method", l.Method, "route", l.Route,
		"status", l.Status, "duration", l.Elapsed, "bytes", l.Written)
}

// Method bounds the methods a log or a metric shows to the standard ones:
// any other token a client sends is "other".
func Method(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "other"
}

// Recorder notes the status and the body bytes of an answer.
type Recorder struct {
	http.ResponseWriter
	status  int
	written int64
}

// Line returns the line of the request r answered through the recorder,
// on route, started at start.
func (w *Recorder) Line(r *http.Request, route string, start time.Time) Line {
	status := w.status
	if status == 0 {
		status = http.StatusOK // nothing written: net/http answers 200
	}
	return Line{Method: Method(r.Method), Route: route, Status: status, Elapsed: time.Since(start), Written: w.written}
}

// WriteHeader notes the first final status.
func (w *Recorder) WriteHeader(status int) {
	if w.status == 0 && status >= 200 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

// Write counts the body's bytes.
func (w *Recorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.written += int64(n)
	return n, err
}

// Flush sends buffered data to the client, when the connection can.
func (w *Recorder) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		if w.status == 0 {
			w.status = http.StatusOK
		}
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the connection's own writer.
func (w *Recorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }
