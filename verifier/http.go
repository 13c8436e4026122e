package verifier

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/remnant/passportkit/internal/ratelimit"
	"github.com/remnant/passportkit/passport"
)

// HandlerConfig bounds the HTTP verification service. Zero fields take the
// defaults shown.
type HandlerConfig struct {
	// MaxConcurrent is how many verifications run at once (default 8).
	MaxConcurrent int
	// QueueWait is how long a request waits for a slot before a 503
	// (default 2s).
	QueueWait time.Duration
	// RatePerClient is the sustained requests per second per client
	// address (default 20), with bursts of twice that.
	RatePerClient float64
	// MaxClients bounds the rate limiter's memory of client addresses
	// (default 10,000); the least recently seen are forgotten first.
	MaxClients int
	// Logger receives internal errors; the default discards them.
	Logger *slog.Logger
}

func (c *HandlerConfig) defaults() {
	if c.MaxConcurrent <= 0 {
		c.MaxConcurrent = 8
	}
	if c.QueueWait <= 0 {
		c.QueueWait = 2 * time.Second
	}
	if c.RatePerClient <= 0 {
		c.RatePerClient = 20
	}
	if c.MaxClients <= 0 {
		c.MaxClients = 10000
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
}

// NewHandler returns the HTTP verification service:
//
//	POST /v1/verify   body: a bundle (optionally gzip-encoded); query: at, subject
//	GET  /healthz
//
// A verification answers 200 with the Result whatever the verdict; errors
// are RFC 9457 problem details: 400 for a bad query, 413 for a body over
// 512 KiB (before or after decompression), 415 for an unknown content
// encoding, 429 when the client exceeds its rate, 503 when every slot stays
// busy, and 404 and 405 for other paths and methods.
func NewHandler(v *Verifier, cfg HandlerConfig) http.Handler {
	return newHandler(v, cfg).routes()
}

func newHandler(v *Verifier, cfg HandlerConfig) *handler {
	cfg.defaults()
	return &handler{v: v, cfg: cfg, slots: make(chan struct{}, cfg.MaxConcurrent),
		limits: ratelimit.New(ratelimit.Config{Rate: cfg.RatePerClient, MaxKeys: cfg.MaxClients})}
}

func (h *handler) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/verify", h.verify)
	mux.HandleFunc("/v1/verify", methodNotAllowed("POST"))
	mux.HandleFunc("GET /healthz", h.health)
	mux.HandleFunc("/healthz", methodNotAllowed("GET, HEAD"))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		problem(w, http.StatusNotFound, "not-found", "Not found", "no such endpoint")
	})
	return mux
}

type handler struct {
	v      *Verifier
	cfg    HandlerConfig
	slots  chan struct{}
	limits *ratelimit.Limiter
}

func (h *handler) health(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte(`{"status":"ok"}` + "\n"))
}

func methodNotAllowed(allow string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", allow)
		problem(w, http.StatusMethodNotAllowed, "method-not-allowed", "Method not allowed", "this endpoint accepts "+allow)
	}
}

func (h *handler) verify(w http.ResponseWriter, r *http.Request) {
	if ok, wait := h.limits.Allow(clientAddr(r)); !ok {
		w.Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(wait.Seconds())))))
		problem(w, http.StatusTooManyRequests, "rate-limited", "Too many requests", "slow down and retry")
		return
	}
	var policy Policy
	q := r.URL.Query()
	if s := q.Get("at"); s != "" {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			problem(w, http.StatusBadRequest, "bad-request", "Bad request", "at must be an RFC 3339 time")
			return
		}
		policy.At = t
	}
	policy.Subject = q.Get("subject")

	body, status, detail := readBundle(r)
	if status != 0 {
		problem(w, status, problemType(status), http.StatusText(status), detail)
		return
	}

	ctx, cancel := context.WithTimeout(r.Context(), h.cfg.QueueWait)
	defer cancel()
	select {
	case h.slots <- struct{}{}:
		defer func() { <-h.slots }()
	case <-ctx.Done():
		w.Header().Set("Retry-After", "1")
		problem(w, http.StatusServiceUnavailable, "overloaded", "Service unavailable", "every verification slot is busy")
		return
	}
	res, err := h.v.Verify(r.Context(), body, policy)
	if err != nil {
		h.cfg.Logger.Warn("verify", "err", err)
		problem(w, http.StatusServiceUnavailable, "canceled", "Service unavailable", "the request was canceled")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(res); err != nil {
		h.cfg.Logger.Warn("write response", "err", err)
	}
}

// readBundle reads at most MaxBundleSize bytes of the request body, after
// decompression when it is gzip-encoded. It returns an HTTP status and
// detail when the body is refused.
func readBundle(r *http.Request) ([]byte, int, string) {
	limit := int64(passport.MaxBundleSize)
	var src io.Reader = http.MaxBytesReader(nil, r.Body, limit+1)
	switch enc := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding"))); enc {
	case "", "identity":
	case "gzip":
		zr, err := gzip.NewReader(src)
		if err != nil {
			return nil, http.StatusBadRequest, "the body is not gzip"
		}
		defer zr.Close()
		src = zr
	default:
		return nil, http.StatusUnsupportedMediaType, "content encoding must be gzip or none"
	}
	body, err := io.ReadAll(io.LimitReader(src, limit+1))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge) || int64(len(body)) > limit:
		return nil, http.StatusRequestEntityTooLarge, "a bundle is at most 512 KiB, also after decompression"
	case err != nil:
		return nil, http.StatusBadRequest, "the body could not be read"
	}
	return body, 0, ""
}

func problemType(status int) string {
	switch status {
	case http.StatusRequestEntityTooLarge:
		return "too-large"
	case http.StatusUnsupportedMediaType:
		return "unsupported-encoding"
	}
	return "bad-request"
}

// problem writes an RFC 9457 problem details response.
func problem(w http.ResponseWriter, status int, typ, title, detail string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{
		"type":   "urn:passportkit:problem:" + typ,
		"title":  title,
		"status": status,
		"detail": detail,
	})
}

func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
