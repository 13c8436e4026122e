// Package httpapi serves the issuer's use cases over HTTP, with RFC 9457
// problem details for every error, 404 and 405 included.
//
// Routes:
//
//	POST /api/memories                         publish a memory (publish scope)
//	GET  /api/memories/search?q=…              search memories in the caller's view (search)
//	GET  /api/memories/{id}                    retrieve a memory, recording the retrieval (search)
//	GET  /api/memories/{id}/validations        its validation summary (search)
//	POST /api/memories/{id}/feedback           validate it (feedback)
//	POST /api/memories/{id}/outcomes           report the outcome of using it (feedback)
//	POST /api/memories/{id}/moderation         change its visibility (admin)
//	POST /api/receipts                         record a consultation of several memories (search)
//	POST /api/receipts/{id}/feedback           validate a consultation (feedback)
//	GET  /api/agents/me                        the caller's own profile (any scope)
//	PUT  /api/agents/me/capabilities           declare the caller's capabilities (publish)
//	POST /api/agents/me/holder-keys/nonce      a nonce for proofs of possession (publish)
//	PUT  /api/agents/me/holder-keys            replace the caller's holder keys, each proved (publish)
//	GET  /api/agents/me/holder-keys            the caller's holder keys (any scope)
//	GET  /api/agents/{publicId}                a public profile (no authentication)
//	GET  /api/agents/{publicId}/reputation     a reputation explanation (search)
//	GET  /api/public/agents?skill=…            find agents by skill evidence (find_agents), when configured
//	GET  /api/public/agents/{publicId}/passport            a signed passport bundle, when configured
//	GET  /api/public/agents/{publicId}/passport/evidence   an issued passport's evidence file, when configured
//	GET  /api/public/agents/{publicId}/skills              its listed skills, summarised, when configured
//	GET  /api/public/agents/{publicId}/skills/{skill}/trust     one skill in a task context, with why
//	GET  /api/public/agents/{publicId}/skills/{skill}/evidence  the sources behind it, page by page
//	POST /api/public/trust/assess                          up to 5 agents × 5 skills side by side
//	     /mcp                                  the MCP endpoint, when configured (public tools without a key)
//	GET  /healthz                              liveness
//	GET  /openapi.json                         the OpenAPI 3.1 document of these routes
//	GET  /metrics                              Prometheus metrics, when configured
//	GET  /.well-known/jwks.json                the published signing keys, when configured
//	GET  /.well-known/passport-trust.json      the SPEC §10 trust file, when configured
//	GET  /status/{list}                        a status list token (SPEC §19.4), when configured
//	     /, /agents/…, /trust/assess, /verify  the web pages, when configured (issuer/web)
//
// The OpenAPI document (package openapi) describes every route under /api,
// /.well-known, /status, /healthz, /metrics, /openapi.json and /mcp; [Server.Routes]
// lists what is registered, and the tests hold the two equal.
//
// Authenticated routes take an API key as a bearer token. Each key has a
// request budget; anonymous requests share a budget per client address.
// Request bodies must be application/json, may be gzip-encoded, are bounded
// after decompression, must arrive within [Config.BodyTimeout], and are
// decoded by [issuer.Decode]. Every answer is JSON with
// X-Content-Type-Options: nosniff; every error is problem details from the
// shared vocabulary (internal/problem). Long text answers are zstd- or
// gzip-coded for the clients that ask; the anonymous reads listed in
// [CrossOrigin] allow any origin, and every other route is same-origin
// (SPEC.md §13.6).
//
// Every request gets an identifier (a sane X-Request-Id from the client, or
// a new one), echoed in the X-Request-Id response header, and one log line
// when it is answered: the identifier, method, route pattern, status,
// duration and bytes written, never a key, a body or a query string.
package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/remnant/passportkit/internal/httpbody"
	"github.com/remnant/passportkit/internal/httpserve"
	"github.com/remnant/passportkit/internal/ratelimit"
	"github.com/remnant/passportkit/internal/requestlog"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/httpapi/openapi"
	"github.com/remnant/passportkit/reputation"
)

// Config configures a [Server]. The zero value is ready to use.
type Config struct {
	// RatePerSecond is the sustained request rate allowed per API key, and
	// per client address for anonymous requests; 10 when zero.
	RatePerSecond float64
	// Burst is how many requests a key may make at once; 40 when zero.
	Burst int
	// MCP, when set, is served at /mcp behind bearer authentication; it
	// finds the principal with [issuer.FromContext], and answers the
	// refusals made before it runs.
	MCP MCPEndpoint
	// Keys, when set, serves the issuer's public key documents under
	// /.well-known/ (no authentication; cacheable).
	Keys KeyPublisher
	// Passports, when set, serves public passports and their evidence
	// files (no authentication).
	Passports PassportIssuer
	// Trust, when set, serves the public trust API (no authentication).
	Trust TrustReader
	// Pages, when set, serves the web pages beside the API: each of its
	// patterns is routed to it under the anonymous per-address rate limit.
	// Paths it does not claim keep the API's problem details.
	Pages Pages
	// Agents, when set, serves find_agents at GET /api/public/agents (no
	// authentication).
	Agents AgentFinder
	// StatusLists, when set, serves the issuer's status lists at
	// GET /status/{list} (no authentication; cacheable for the rest of
	// each token's ttl).
	StatusLists StatusListServer
	// BodyTimeout bounds how long a request body may take to arrive once
	// its headers are read; 10s when zero. A slower body is answered 408.
	BodyTimeout time.Duration
	// Observer, when set, learns of every answered request (metrics).
	Observer RequestObserver
	// Metrics, when set, is served at GET /metrics (no authentication):
	// the Prometheus exposition of the server's metrics.
	Metrics http.Handler
	// Now is the clock of the rate limits; time.Now when nil.
	Now func() time.Time
}

// Issuer is what the API needs of the issuer: its use cases, as
// issuer/service provides them.
type Issuer interface {
	Authenticate(ctx context.Context, key issuer.APIKey) (issuer.Principal, error)
	Publish(ctx context.Context, p issuer.Principal, pub issuer.Publication) (issuer.Memory, error)
	Retrieve(ctx context.Context, p issuer.Principal, id issuer.MemoryID) (issuer.Memory, error)
	Validations(ctx context.Context, p issuer.Principal, id issuer.MemoryID) (reputation.Summary, error)
	SubmitFeedback(ctx context.Context, p issuer.Principal, mem issuer.MemoryID, f issuer.Feedback, via issuer.Transport) (issuer.FeedbackResult, bool, error)
	SubmitReceiptFeedback(ctx context.Context, p issuer.Principal, rid issuer.ReceiptID, f issuer.Feedback, via issuer.Transport) (issuer.ReceiptFeedbackResult, bool, error)
	Consult(ctx context.Context, p issuer.Principal, ids []issuer.MemoryID) (issuer.Receipt, error)
	ModerateMemory(ctx context.Context, p issuer.Principal, mem issuer.MemoryID, m issuer.Moderation) (issuer.MemoryStatus, error)
	Profile(ctx context.Context, p issuer.Principal) (issuer.Profile, error)
	PublicProfile(ctx context.Context, id issuer.AgentID) (issuer.PublicProfile, error)
	Reputation(ctx context.Context, p issuer.Principal, id issuer.AgentID, q issuer.ReputationQuery) (issuer.ReputationReport, error)
	ReportOutcome(ctx context.Context, p issuer.Principal, mem issuer.MemoryID, o issuer.OutcomeReport, via issuer.Transport) (issuer.OutcomeResult, bool, error)
	DeclareCapabilities(ctx context.Context, p issuer.Principal, caps []string) (issuer.Capabilities, error)
	HolderKeyNonce(ctx context.Context, p issuer.Principal) (issuer.HolderKeyNonce, error)
	SetHolderKeys(ctx context.Context, p issuer.Principal, req issuer.HolderKeysRequest) (issuer.HolderKeys, error)
	HolderKeys(ctx context.Context, p issuer.Principal) (issuer.HolderKeys, error)
	SearchMemories(ctx context.Context, p issuer.Principal, q issuer.SearchQuery) (issuer.SearchPage, error)
}

// MCPEndpoint is the MCP endpoint: it answers its messages, and, in the
// form of its own errors, the refusals the API makes before a message
// reaches it. *mcpserver.Transport implements it.
type MCPEndpoint interface {
	http.Handler
	// Refuse answers r with err, a refusal made before the endpoint ran
	// (no valid key, a rate limit), keeping the headers set on w.
	Refuse(w http.ResponseWriter, r *http.Request, err error)
}

// Pages is a set of web pages: the http.ServeMux patterns it answers and
// the handler that answers them. *web.Handler implements it.
type Pages interface {
	http.Handler
	Patterns() []string
}

// Server is the HTTP API.
type Server struct {
	app      Issuer
	log      *slog.Logger
	bodyTTL  time.Duration
	mux      *routes
	observer RequestObserver
	keys     *ratelimit.Limiter
	clients  *ratelimit.Limiter
}

// routes is the server's mux, recording each pattern it registers.
type routes struct {
	*http.ServeMux
	patterns []string
}

// Handle registers h for pattern and records the pattern.
func (m *routes) Handle(pattern string, h http.Handler) {
	m.patterns = append(m.patterns, pattern)
	m.ServeMux.Handle(pattern, h)
}

// HandleFunc registers h for pattern and records the pattern.
func (m *routes) HandleFunc(pattern string, h func(http.ResponseWriter, *http.Request)) {
	m.Handle(pattern, http.HandlerFunc(h))
}

// Routes returns the pattern of every registered route ("GET /healthz",
// "/mcp"), in the order of registration.
func (s *Server) Routes() []string { return slices.Clone(s.mux.patterns) }

var _ http.Handler = (*Server)(nil)

// New returns the API over app. logger receives internal failures.
func New(app Issuer, logger *slog.Logger, cfg Config) *Server {
	if cfg.RatePerSecond == 0 {
		cfg.RatePerSecond = 10
	}
	if cfg.Burst == 0 {
		cfg.Burst = 40
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.BodyTimeout == 0 {
		cfg.BodyTimeout = httpbody.DefaultTimeout
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{
		app: app, log: logger, mux: &routes{ServeMux: http.NewServeMux()}, bodyTTL: cfg.BodyTimeout, observer: cfg.Observer,
		keys:    ratelimit.New(ratelimit.Config{Rate: cfg.RatePerSecond, Burst: cfg.Burst, Now: cfg.Now}),
		clients: ratelimit.New(ratelimit.Config{Rate: cfg.RatePerSecond, Burst: cfg.Burst, Now: cfg.Now}),
	}
	m := s.mux
	m.Handle("POST /api/memories", s.authed(noQuery(s.publish)))
	m.Handle("GET /api/memories/search", s.authed(s.searchMemories))
	m.Handle("GET /api/memories/{id}", s.authed(noQuery(s.retrieve)))
	m.Handle("GET /api/memories/{id}/validations", s.authed(noQuery(s.validations)))
	m.Handle("POST /api/memories/{id}/feedback", s.authed(noQuery(s.memoryFeedback)))
	m.Handle("POST /api/memories/{id}/outcomes", s.authed(noQuery(s.reportOutcome)))
	m.Handle("POST /api/memories/{id}/moderation", s.authed(noQuery(s.moderate)))
	m.Handle("POST /api/receipts", s.authed(noQuery(s.consult)))
	m.Handle("POST /api/receipts/{id}/feedback", s.authed(noQuery(s.receiptFeedback)))
	m.Handle("GET /api/agents/me", s.authed(noQuery(s.me)))
	m.Handle("PUT /api/agents/me/capabilities", s.authed(noQuery(s.declareCapabilities)))
	m.Handle("POST /api/agents/me/holder-keys/nonce", s.authed(noQuery(s.holderKeyNonce)))
	m.Handle("PUT /api/agents/me/holder-keys", s.authed(noQuery(s.setHolderKeys)))
	m.Handle("GET /api/agents/me/holder-keys", s.authed(noQuery(s.holderKeys)))
	m.Handle("GET /api/agents/{publicId}", s.anonymous(noQuery(s.publicProfile)))
	m.Handle("GET /api/agents/{publicId}/reputation", s.authed(s.reputation))
	m.Handle("GET /healthz", s.anonymous(noQuery(func(w http.ResponseWriter, r *http.Request, _ issuer.Principal) error {
		return writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
	})))
	m.Handle("GET /openapi.json", s.anonymous(noQuery(func(w http.ResponseWriter, r *http.Request, _ issuer.Principal) error {
		return serveDocument(w, r, openapi.MediaType, func(context.Context) ([]byte, error) { return openapi.Document(), nil })
	})))
	if cfg.Metrics != nil {
		m.Handle("GET /metrics", s.anonymous(func(w http.ResponseWriter, r *http.Request, _ issuer.Principal) error {
			cfg.Metrics.ServeHTTP(w, r)
			return nil
		}))
	}
	if k, ok := app.(KnowledgeIssuer); ok {
		s.routeKnowledge(k)
	}
	if f, ok := app.(FeedIssuer); ok {
		s.routeFeed(f)
	}
	if cfg.Keys != nil {
		s.routeKeys(cfg.Keys)
	}
	if cfg.Passports != nil {
		s.routePassports(cfg.Passports)
	}
	if cfg.Trust != nil {
		s.routeTrust(cfg.Trust)
	}
	if cfg.Pages != nil {
		for _, p := range cfg.Pages.Patterns() {
			m.Handle(p, s.anonymous(func(w http.ResponseWriter, r *http.Request, _ issuer.Principal) error {
				cfg.Pages.ServeHTTP(w, r) // it answers its own errors, as pages
				return nil
			}))
		}
	}
	if cfg.Agents != nil {
		s.routeAgents(cfg.Agents)
	}
	if cfg.StatusLists != nil {
		s.routeStatusLists(cfg.StatusLists)
	}
	if cfg.MCP != nil {
		refuse := func(w http.ResponseWriter, r *http.Request, err error) {
			s.refusal(w, r, err)
			cfg.MCP.Refuse(w, r, err)
		}
		m.Handle("/mcp", s.keyOptional(func(w http.ResponseWriter, r *http.Request, p issuer.Principal) error {
			cfg.MCP.ServeHTTP(w, r) // it bounds and answers its own messages
			return nil
		}, refuse))
	}
	return s
}

// ServeHTTP routes r. Unknown paths and methods get problem details too.
// Each request is identified, logged and observed once it is answered.
// Answers are compressed for the clients that ask ([httpserve.Compress]);
// the routes of [CrossOrigin] allow any origin, and OPTIONS on their paths
// is a CORS preflight.
func (s *Server) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	start := time.Now()
	h, pattern := s.mux.Handler(r)
	var preflight []string
	if pattern == "" && r.Method == http.MethodOptions {
		if methods, route := s.preflight(r); methods != nil {
			preflight, pattern = methods, http.MethodOptions+" "+route
		}
	}
	w, r := requestlog.Start(rw, r)
	defer s.answered(r, w, pattern, start)
	if preflight != nil {
		// A preflight does no work: like a 404, it is not rate limited.
		httpserve.Preflight(w, preflight)
		return
	}
	allowCrossOrigin(w, pattern)
	httpserve.Compress(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.route(w, r, h, pattern)
	})).ServeHTTP(w, r)
}

// route answers r with h, the handler of its route pattern ("" for none).
func (s *Server) route(w http.ResponseWriter, r *http.Request, h http.Handler, pattern string) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.log.ErrorContext(r.Context(), "handler panic", "request_id", RequestID(r.Context()), "method", r.Method, "path", r.URL.Path, "panic", v)
			s.writeProblem(w, r, errors.New("panic"))
		}
	}()
	if pattern == "" {
		// The mux's own 404 or 405: learn which, then answer in kind.
		rec := &statusRecorder{header: http.Header{}}
		h.ServeHTTP(rec, r)
		if rec.status == http.StatusMethodNotAllowed {
			allow := rec.header.Get("Allow")
			if methods, _ := s.preflight(r); methods != nil {
				// A cross-origin path: its refusal is readable too.
				allow += ", " + http.MethodOptions
				httpserve.AllowAnyOrigin(w.Header())
			}
			w.Header().Set("Allow", allow)
			s.writeProblem(w, r, issuer.Errorf(issuer.CodeMethodNotAllowed, "%s is not allowed on %s", r.Method, r.URL.Path))
			return
		}
		s.writeProblem(w, r, issuer.Errorf(issuer.CodeNotFound, "no resource at %s", r.URL.Path))
		return
	}
	s.mux.ServeHTTP(w, r)
}

// statusRecorder captures the status and headers of the mux's fallback
// handlers, discarding their plain-text bodies.
type statusRecorder struct {
	header http.Header
	status int
}

func (r *statusRecorder) Header() http.Header         { return r.header }
func (r *statusRecorder) Write(b []byte) (int, error) { return len(b), nil }
func (r *statusRecorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

// handlerFunc is an endpoint: it writes a response or returns an error for
// problem details.
type handlerFunc func(w http.ResponseWriter, r *http.Request, p issuer.Principal) error

// authed authenticates the bearer key, applies the key's rate limit, and
// runs h with the principal in the request context.
func (s *Server) authed(h handlerFunc) http.Handler { return s.authedAnswering(h, s.writeProblem) }

// authedAnswering is authed with refuse answering its refusals.
func (s *Server) authedAnswering(h handlerFunc, refuse func(http.ResponseWriter, *http.Request, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := s.authenticate(r)
		if err != nil {
			if ok, wait := s.clients.Allow(clientAddr(r)); !ok {
				refuse(w, r, tooMany(w, wait))
				return
			}
			refuse(w, r, err)
			return
		}
		if ok, wait := s.keys.Allow(string(p.AgentID)); !ok {
			refuse(w, r, tooMany(w, wait))
			return
		}
		r = r.WithContext(issuer.NewContext(r.Context(), p))
		if err := h(w, r, p); err != nil {
			s.writeProblem(w, r, err)
		}
	})
}

// keyOptional serves a request without an Authorization header as
// anonymous (the per-address rate limit, no principal) and any other as
// authedAnswering does: a key that is given must be valid. The MCP
// endpoint is served so: its public tools answer anyone, its other tools
// need the principal.
func (s *Server) keyOptional(h handlerFunc, refuse func(http.ResponseWriter, *http.Request, error)) http.Handler {
	keyed := s.authedAnswering(h, refuse)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, given := r.Header["Authorization"]; given {
			keyed.ServeHTTP(w, r)
			return
		}
		if ok, wait := s.clients.Allow(clientAddr(r)); !ok {
			refuse(w, r, tooMany(w, wait))
			return
		}
		if err := h(w, r, issuer.Principal{}); err != nil {
			s.writeProblem(w, r, err)
		}
	})
}

// noQuery runs h for a route that takes no query parameter (SPEC.md
// §13.4): any field of the query string is refused first.
func noQuery(h handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, p issuer.Principal) error {
		if _, err := issuer.NoQuery.Read(r.URL.RawQuery); err != nil {
			return err
		}
		return h(w, r, p)
	}
}

// anonymous applies the per-address rate limit and runs h without a
// principal.
func (s *Server) anonymous(h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ok, wait := s.clients.Allow(clientAddr(r)); !ok {
			s.writeProblem(w, r, tooMany(w, wait))
			return
		}
		if err := h(w, r, issuer.Principal{}); err != nil {
			s.writeProblem(w, r, err)
		}
	})
}

// tooMany sets Retry-After to wait and returns the refusal.
func tooMany(w http.ResponseWriter, wait time.Duration) error {
	w.Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(wait.Seconds())))))
	return issuer.Errorf(issuer.CodeRateLimited, "too many requests; retry later")
}

func (s *Server) authenticate(r *http.Request) (issuer.Principal, error) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return issuer.Principal{}, issuer.Errorf(issuer.CodeUnauthorized, "an API key is required as a bearer token")
	}
	key, err := issuer.ParseAPIKey(strings.TrimSpace(token))
	if err != nil {
		return issuer.Principal{}, err
	}
	return s.app.Authenticate(r.Context(), key)
}

// clientAddr is the rate-limit key of an anonymous request: the peer's IP
// address.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// readBody checks that the request carries JSON and returns at most limit
// bytes of it (after gzip decompression), read within the body timeout.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request, limit int) ([]byte, error) {
	return httpbody.Read(w, r, httpbody.Options{Limit: int64(limit), Timeout: s.bodyTTL, JSON: true})
}

// writeJSON writes v as a JSON response.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	b, err := marshalJSON(v)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, err = w.Write(b)
	return err
}

// marshalJSON returns v as JSON and a line feed, as every JSON answer is.
func marshalJSON(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
