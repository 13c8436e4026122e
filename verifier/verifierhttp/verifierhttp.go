// Package verifierhttp serves verification over HTTP (SPEC.md §11.5,
// §11.6): POST /v1/verify, POST /v1/verify/presentation and GET /healthz,
// bounded in size, rate, concurrency and time. It is a package of its own so that a program that verifies
// without serving, such as the passport command, does not link net/http.
package verifierhttp

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/remnant/passportkit/internal/httpbody"
	"github.com/remnant/passportkit/internal/problem"
	"github.com/remnant/passportkit/internal/problem/problemhttp"
	"github.com/remnant/passportkit/internal/ratelimit"
	"github.com/remnant/passportkit/internal/requestlog"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/verifier"
)

// Config bounds the HTTP verification service. Zero fields take the
// defaults shown.
type Config struct {
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
	// BodyTimeout bounds how long a bundle may take to arrive once the
	// request headers are read (default 10s); a slower one is answered 408.
	BodyTimeout time.Duration
	// Logger receives internal errors and, at level info, one line per
	// answered request (internal/requestlog); the default discards them.
	Logger *slog.Logger
	// Observer, when set, learns of every answered request (metrics).
	Observer RequestObserver
	// Metrics, when set, is served at GET /metrics: the Prometheus
	// exposition of the service's metrics.
	Metrics http.Handler
	// Status, when set, supplies the status list of each passport that
	// names one it may fetch; without it, or for another list, the status
	// check reports not_checked.
	Status *StatusFetcher
}

func (c *Config) defaults() {
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
	if c.BodyTimeout <= 0 {
		c.BodyTimeout = 10 * time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
}

// RequestObserver learns of every request the service answers, as
// issuer/httpapi's does: its method (a standard one, or "other"), its
// route ("/v1/verify", "/v1/verify/presentation", "/healthz", "/metrics",
// or "unmatched"), status, the time from its headers to the end of the
// answer, and the bytes of the answer's body. It runs on the request's
// goroutine after the answer is written: it must be quick.
type RequestObserver interface {
	ObserveRequest(method, route string, status int, elapsed time.Duration, written int64)
}

// NewHandler returns the HTTP verification service:
//
//	POST /v1/verify                body: a bundle (optionally gzip-encoded); query: at, subject
//	POST /v1/verify/presentation   body: a presentation; query: aud, nonce (both required), maxAge (seconds), at, subject
//	GET  /healthz
//	GET  /metrics                  with Config.Metrics
//
// Every request gets an identifier (SPEC.md §13.3: a sane X-Request-Id of
// the client's, or a new one), echoed as X-Request-Id, and one log line
// when it is answered, with the identifier, method, route, status,
// duration and bytes, never a body or a query string.
//
// With Config.Status set, the status check of a passport that names a list
// the fetcher may fetch consults that list (see [StatusFetcher]).
//
// A verification answers 200 with the Result whatever the verdict; errors
// are RFC 9457 problem details with the reason codes the issuer uses
// (internal/problem): 415 unsupported_media_type for a body whose
// Content-Type is neither application/json nor the document's own type
// (passport.MediaType, passport.PresentationMediaType; charset utf-8
// allowed; SPEC.md §11.5), 400 invalid_request for a bad query or a body that is
// not gzip as it claims, 408 request_timeout for a body slower than
// BodyTimeout, 413 body_too_large for a body over 512 KiB, or 520 KiB for a
// presentation (before or after decompression), 415 unsupported_media_type for an unknown content
// encoding, 429 rate_limited when the client exceeds its rate, 503
// unavailable when every slot stays busy, and 404 not_found and 405
// method_not_allowed for other paths and methods.
func NewHandler(v *verifier.Verifier, cfg Config) http.Handler {
	return newHandler(v, cfg).routes()
}

func newHandler(v *verifier.Verifier, cfg Config) *handler {
	cfg.defaults()
	return &handler{v: v, cfg: cfg, slots: make(chan struct{}, cfg.MaxConcurrent),
		limits: ratelimit.New(ratelimit.Config{Rate: cfg.RatePerClient, MaxKeys: cfg.MaxClients})}
}

func (h *handler) routes() http.Handler {
	mux := http.NewServeMux()
	if h.cfg.Metrics != nil {
		mux.Handle("GET /metrics", h.cfg.Metrics)
		mux.HandleFunc("/metrics", methodNotAllowed("GET, HEAD"))
	}
	mux.HandleFunc("POST /v1/verify", h.verify)
	mux.HandleFunc("/v1/verify", methodNotAllowed("POST"))
	mux.HandleFunc("POST /v1/verify/presentation", h.verifyPresentation)
	mux.HandleFunc("/v1/verify/presentation", methodNotAllowed("POST"))
	mux.HandleFunc("GET /healthz", h.health)
	mux.HandleFunc("/healthz", methodNotAllowed("GET, HEAD"))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeProblem(w, r, problem.NotFound, "no such endpoint")
	})
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		start := time.Now()
		_, pattern := mux.Handler(r)
		w, r := requestlog.Start(rw, r)
		mux.ServeHTTP(w, r)
		l := w.Line(r, routeOf(pattern), start)
		requestlog.Log(r.Context(), h.cfg.Logger, l)
		if h.cfg.Observer != nil {
			h.cfg.Observer.ObserveRequest(l.Method, l.Route, l.Status, l.Elapsed, l.Written)
		}
	})
}

// routeOf is the route of a mux pattern: its path, or "unmatched" for the
// catch-all that answers 404.
func routeOf(pattern string) string {
	if _, path, ok := strings.Cut(pattern, " "); ok {
		pattern = path
	}
	if pattern == "" || pattern == "/" {
		return "unmatched"
	}
	return pattern
}

type handler struct {
	v      *verifier.Verifier
	cfg    Config
	slots  chan struct{}
	limits *ratelimit.Limiter
}

func (h *handler) health(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Write([]byte(`{"status":"ok"}` + "\n"))
}

func methodNotAllowed(allow string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", allow)
		writeProblem(w, r, problem.MethodNotAllowed, "this endpoint accepts "+allow)
	}
}

func (h *handler) verify(w http.ResponseWriter, r *http.Request) {
	policy, ok := h.admit(w, r)
	if !ok {
		return
	}
	h.serve(w, r, passport.MaxBundleSize, passport.MediaType, policy, statusURIUnverified, func(ctx context.Context, body []byte, policy verifier.Policy) (*verifier.Result, error) {
		return h.v.Verify(ctx, body, policy)
	})
}

// verifyPresentation answers POST /v1/verify/presentation: the query's
// aud and nonce are required, maxAge (seconds) is optional, and all three
// are checked before the body is read.
func (h *handler) verifyPresentation(w http.ResponseWriter, r *http.Request) {
	policy, ok := h.admit(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	aud, nonce := q.Get("aud"), q.Get("nonce")
	if aud == "" || nonce == "" {
		writeProblem(w, r, problem.Invalid, "aud and nonce are required: your own identifier and the nonce you handed the holder")
		return
	}
	pp := verifier.ForPresentation(aud, nonce)
	if s := q.Get("maxAge"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 || n > int64(verifier.MaxMaxAge/time.Second) {
			writeProblem(w, r, problem.Invalid, "maxAge must be a whole number of seconds from 0 to 86400")
			return
		}
		pp = pp.WithMaxAge(time.Duration(n) * time.Second)
	}
	h.serve(w, r, passport.MaxPresentationSize, passport.PresentationMediaType, policy, presentationStatusURIUnverified, func(ctx context.Context, body []byte, policy verifier.Policy) (*verifier.Result, error) {
		return h.v.VerifyPresentation(ctx, body, policy, pp)
	})
}

// admit answers 429 when the client exceeds its rate, and 400 for a bad
// subject or at in the query; else it returns the policy they give.
func (h *handler) admit(w http.ResponseWriter, r *http.Request) (verifier.Policy, bool) {
	policy := verifier.AnySubject()
	if ok, wait := h.limits.Allow(clientAddr(r)); !ok {
		w.Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(wait.Seconds())))))
		writeProblem(w, r, problem.RateLimited, "slow down and retry")
		return policy, false
	}
	q := r.URL.Query()
	if s := q.Get("subject"); s != "" {
		policy = verifier.ForSubject(s)
	}
	if s := q.Get("at"); s != "" {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			writeProblem(w, r, problem.Invalid, "at must be an RFC 3339 time")
			return policy, false
		}
		policy = policy.At(t)
	}
	return policy, true
}

// serve reads a body of at most limit bytes, of media type application/json
// or mediaType, adds to policy the status
// list of the URI statusURI reads in it (see Config.Status), waits for a
// slot, and answers with the result of check.
func (h *handler) serve(w http.ResponseWriter, r *http.Request, limit int, mediaType string, policy verifier.Policy,
	statusURI func(body []byte) (string, bool), check func(ctx context.Context, body []byte, policy verifier.Policy) (*verifier.Result, error)) {
	body, err := httpbody.Read(w, r, httpbody.Options{Limit: int64(limit), Timeout: h.cfg.BodyTimeout, JSON: true, DocumentType: mediaType})
	if err != nil {
		be, _ := errors.AsType[*httpbody.Error](err)
		writeProblem(w, r, be.Code, be.Detail)
		return
	}

	if h.cfg.Status != nil {
		if uri, ok := statusURI(body); ok {
			if l := h.cfg.Status.List(r.Context(), uri); l != nil {
				policy = policy.WithStatusList(l)
			}
		}
	}

	ctx, cancel := context.WithTimeout(r.Context(), h.cfg.QueueWait)
	defer cancel()
	select {
	case h.slots <- struct{}{}:
		defer func() { <-h.slots }()
	case <-ctx.Done():
		w.Header().Set("Retry-After", "1")
		writeProblem(w, r, problem.Unavailable, "every verification slot is busy")
		return
	}
	res, err := check(r.Context(), body, policy)
	if err != nil {
		h.cfg.Logger.Warn("verify", "err", err)
		writeProblem(w, r, problem.Unavailable, "the request was canceled")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "no-store")
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(res); err != nil {
		h.cfg.Logger.Warn("write response", "err", err)
	}
}

// writeProblem answers with the problem details of code.
func writeProblem(w http.ResponseWriter, r *http.Request, code problem.Code, detail string) {
	problemhttp.Write(w, problem.New(code, detail, r.URL.Path))
}

func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
