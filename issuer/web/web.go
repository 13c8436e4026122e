package web

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/remnant/passportkit/internal/httpbody"
	"github.com/remnant/passportkit/internal/problem"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/issuing"
	"github.com/remnant/passportkit/verifier"
)

// Profiles gives an agent's public profile; private, unlisted, suspended
// and unknown agents are not_found alike. *service.Service implements it.
type Profiles interface {
	PublicProfile(ctx context.Context, id issuer.AgentID) (issuer.PublicProfile, error)
}

// Passports gives the signed passport a page shows: the agent's current
// one, or while that is being built, the last one built (SPEC.md §18.2);
// and the evidence file of a passport the issuer keeps, by its hash, for a
// record's page. *service.Passports implements it.
type Passports interface {
	Latest(ctx context.Context, id issuer.AgentID, d issuing.Disclosure) (*issuing.Issued, error)
	Evidence(ctx context.Context, id issuer.AgentID, passportHash string) ([]byte, error)
}

// Trust is the public trust service the API serves (SPEC.md §16): one
// skill's trust with why (the pure read, which records no history), its
// sources page by page, and comparisons. *service.Trust implements it.
type Trust interface {
	PureSkillTrust(ctx context.Context, id issuer.AgentID, q issuer.TrustQuery) (issuer.SkillTrust, error)
	SkillEvidence(ctx context.Context, id issuer.AgentID, q issuer.EvidenceQuery) (issuer.EvidencePage, error)
	Assess(ctx context.Context, r issuer.AssessRequest) (issuer.TrustComparison, error)
}

// TrustFiles gives the issuer's published trust file (SPEC.md §10), the
// bytes /.well-known/passport-trust.json serves. *keyring.Keyring
// implements it.
type TrustFiles interface {
	TrustFile(ctx context.Context) ([]byte, error)
}

// Config configures a [Handler]. Profiles, Passports, Trust and Keys are
// required.
type Config struct {
	Profiles  Profiles
	Passports Passports
	Trust     Trust
	Keys      TrustFiles
	// Finder, when set, serves the discovery page /agents; without it the
	// page is not routed and not linked.
	Finder Finder
	// Now is the clock of the verification page; time.Now when nil.
	Now func() time.Time
	// BodyTimeout bounds how long the verification form may take to
	// arrive once its headers are read; httpbody.DefaultTimeout when
	// zero. A slower one is answered 408.
	BodyTimeout time.Duration
	// Logger receives internal failures; nothing when nil.
	Logger *slog.Logger
}

// Handler serves the web pages. Build one with [New].
type Handler struct {
	cfg      Config
	log      *slog.Logger
	mux      *http.ServeMux
	patterns []string
	pages    map[string]*template.Template
	assets   map[string]asset
	first    *firstPages
	records  *records
	// verifiers keeps the Verifier of the trust file the verify page
	// last read.
	verifiers *verifier.Cache
}

var _ http.Handler = (*Handler)(nil)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed assets/*
var assetFS embed.FS

// asset is one embedded static file with its validator.
type asset struct {
	body []byte
	// version names the content; a URL that carries it may be cached for
	// good.
	version     string
	etag        string
	contentType string
}

// New returns the pages over cfg.
func New(cfg Config) (*Handler, error) {
	switch {
	case cfg.Profiles == nil:
		return nil, errors.New("web: Config.Profiles is required")
	case cfg.Passports == nil:
		return nil, errors.New("web: Config.Passports is required")
	case cfg.Trust == nil:
		return nil, errors.New("web: Config.Trust is required")
	case cfg.Keys == nil:
		return nil, errors.New("web: Config.Keys is required")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.BodyTimeout == 0 {
		cfg.BodyTimeout = httpbody.DefaultTimeout
	}
	h := &Handler{cfg: cfg, log: cfg.Logger, mux: http.NewServeMux(), pages: map[string]*template.Template{},
		assets: map[string]asset{}, first: newFirstPages(firstPagesSize), records: newRecords(recordsSize), verifiers: verifier.NewCache(verifier.WithClock(cfg.Now))}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	if err := h.loadAssets(); err != nil {
		return nil, err
	}
	fm := template.FuncMap{"asset": h.assetURL}
	for k, f := range funcs {
		fm[k] = f
	}
	for _, name := range []string{"home", "profile", "skill", "compare", "verify", "find", "record", "error"} {
		t, err := template.New(name).Funcs(fm).ParseFS(templateFS, "templates/base.html", "templates/why.html", "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("web: template %s: %w", name, err)
		}
		h.pages[name] = t
	}
	h.route("GET /{$}", h.home)
	h.route("GET /agents/{publicId}", noQuery(h.profile))
	h.route("GET /agents/{publicId}/skills/{skill}", h.skill)
	h.route("GET /agents/{publicId}/evidence/{evidenceId}", h.record)
	h.route("GET /trust/assess", h.compare)
	h.route("GET /verify", noQuery(h.verifyForm))
	h.route("POST /verify", noQuery(h.verify))
	h.route("GET /assets/{name}", h.asset)
	if cfg.Finder != nil {
		h.route("GET /agents", h.find)
	}
	return h, nil
}

// Patterns returns the http.ServeMux patterns the pages answer, for a
// server that routes them beside other handlers.
func (h *Handler) Patterns() []string { return append([]string(nil), h.patterns...) }

// ServeHTTP answers one page request.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mux.ServeHTTP(w, r)
}

// pageFunc answers one page: it renders, or returns an error for the error
// page.
type pageFunc func(w http.ResponseWriter, r *http.Request) error

// noQuery answers f for a page that takes no query field: any field is
// refused first, as the API refuses it (SPEC.md §13.4).
func noQuery(f pageFunc) pageFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if _, err := issuer.NoQuery.Read(r.URL.RawQuery); err != nil {
			return err
		}
		return f(w, r)
	}
}

func (h *Handler) route(pattern string, f pageFunc) {
	h.patterns = append(h.patterns, pattern)
	h.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		setSecurityHeaders(w.Header())
		if err := f(w, r); err != nil {
			h.fail(w, r, err)
		}
	})
}

// ContentSecurityPolicy is the policy of every page: nothing but the
// issuer's own stylesheet, script and images; no inline script or style, no
// plug-ins, no framing, and forms that submit only to the issuer.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'none'; font-src 'none'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// setSecurityHeaders sets the headers every page and asset carries.
func setSecurityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", ContentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=()")
}

// layout is what the base template needs besides the page's own data.
type layout struct {
	Title string
	// Nav names the current section: home, find, compare or verify.
	Nav string
	// Find says whether the discovery page exists.
	Find bool
	Body any
}

// render writes page with status. The whole page is rendered before
// anything is written, so a template failure is an error page, never half
// a page, and every character that could hide or reorder text is made
// visible (issuer.Neutralize): the templates hold none, so only untrusted
// text can be touched.
func (h *Handler) render(w http.ResponseWriter, status int, page, title, nav string, body any) error {
	var buf bytes.Buffer
	if err := h.pages[page].ExecuteTemplate(&buf, "base", layout{Title: title, Nav: nav, Find: h.cfg.Finder != nil, Body: body}); err != nil {
		return fmt.Errorf("web: render %s: %w", page, err)
	}
	out := issuer.Neutralize(buf.String())
	hd := w.Header()
	hd.Set("Content-Type", "text/html; charset=utf-8")
	if hd.Get("Cache-Control") == "" {
		hd.Set("Cache-Control", "no-cache")
	}
	w.WriteHeader(status)
	_, err := w.Write([]byte(out))
	return err
}

// errorPage is the body of the error page.
type errorPage struct {
	Status  int
	Title   string
	Message string
	Code    problem.Code
}

// notFoundMessage is the one message of every agent that is not shown:
// unknown, private, unlisted and suspended alike, whatever the address.
const notFoundMessage = "There is no public agent at this address. Private, unlisted and suspended agents are not shown, and are not told apart from agents that do not exist."

// fail renders the error page for err. Faults on the server are logged
// with their cause and shown without it.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	d := issuerProblem(err)
	if d.Status >= 500 {
		h.log.ErrorContext(r.Context(), "page failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	body := errorPage{Status: d.Status, Title: d.Title, Message: d.Detail, Code: d.Code}
	if errors.Is(err, errNoAgent) {
		body.Title, body.Message = "Not found", notFoundMessage
	}
	w.Header().Set("Cache-Control", "no-store")
	if rerr := h.render(w, d.Status, "error", body.Title, "", body); rerr != nil {
		h.log.ErrorContext(r.Context(), "error page failed", "err", rerr)
	}
}

// issuerProblem is err as problem details, as the API would answer it:
// its status and title follow from its code by the one table; a fault on
// the server shows no cause.
func issuerProblem(err error) problem.Details { return problem.Of(err, "") }

// errNoAgent is the error of every agent that is not shown.
var errNoAgent = issuer.Errorf(issuer.CodeNotFound, "no public agent")

// agentError maps not_found, whatever its message, to errNoAgent, so that
// every agent that is not shown gets the same page.
func agentError(err error) error {
	if issuer.ErrorCode(err) == issuer.CodeNotFound {
		return errNoAgent
	}
	return err
}

// The tables of the pages' query strings (SPEC.md §18.1); the discovery
// and comparison forms and a skill's page have their own.
var (
	homeParams  = issuer.QuerySpec{Params: issuer.Params("agent", "cursor")}
	assetParams = issuer.QuerySpec{Params: issuer.Params("v")}
)

// homeListed bounds the agents one start page lists.
const homeListed = 20

// homePage is the body of the start page: Find says whether the discovery
// page exists; Agents is a page of the registry's listing, NextURL the
// next one ("" on the last), StartURL the first ("" on the first).
type homePage struct {
	Find              bool
	Agents            []issuer.RecentAgent
	NextURL, StartURL string
}

// home is the start page. Its form opens a profile: /?agent=ID redirects
// to /agents/ID. With a Finder it lists the public agents, page by page,
// the most recently evidenced first (Finder.RecentAgents): the same agents
// GET /api/public/agents lists, and no other.
func (h *Handler) home(w http.ResponseWriter, r *http.Request) error {
	q, err := homeParams.Read(r.URL.RawQuery)
	if err != nil {
		return err
	}
	if v, ok := q["agent"]; ok {
		id, err := issuer.ParseAgentID(strings.TrimSpace(v[0]))
		if err != nil {
			return errNoAgent
		}
		http.Redirect(w, r, "/agents/"+string(id), http.StatusSeeOther)
		return nil
	}
	page := homePage{Find: h.cfg.Finder != nil}
	if h.cfg.Finder != nil {
		cursor := ""
		if v, ok := q["cursor"]; ok {
			cursor, page.StartURL = v[0], "/"
		}
		res, err := h.cfg.Finder.RecentAgents(r.Context(), cursor, homeListed)
		if err != nil {
			return err
		}
		page.Agents = res.Agents
		if res.NextCursor != "" {
			page.NextURL = "/?" + url.Values{"cursor": {res.NextCursor}}.Encode()
		}
		// The listing moves with the index.
		w.Header().Set("Cache-Control", "no-store")
	}
	return h.render(w, http.StatusOK, "home", "Agent passports", "home", page)
}

// loadAssets reads the embedded assets and their validators.
func (h *Handler) loadAssets() error {
	return fs.WalkDir(assetFS, "assets", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := assetFS.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		ct := map[string]string{".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".svg": "image/svg+xml"}[path.Ext(p)]
		if ct == "" {
			return fmt.Errorf("web: asset %s has no known type", p)
		}
		v := hex.EncodeToString(sum[:8])
		h.assets[path.Base(p)] = asset{body: b, version: v, etag: `"` + v + `"`, contentType: ct}
		return nil
	})
}

// assetURL is the address of the named asset, carrying its version, for
// the templates.
func (h *Handler) assetURL(name string) (string, error) {
	a, ok := h.assets[name]
	if !ok {
		return "", fmt.Errorf("web: no asset %s", name)
	}
	return "/assets/" + name + "?v=" + a.version, nil
}

// asset serves an embedded stylesheet, script or icon. Under the address
// of its current version it may be cached for a year; under any other, it
// is revalidated.
func (h *Handler) asset(w http.ResponseWriter, r *http.Request) error {
	if _, err := assetParams.Read(r.URL.RawQuery); err != nil {
		return err
	}
	a, ok := h.assets[r.PathValue("name")]
	if !ok {
		return issuer.Errorf(issuer.CodeNotFound, "no such asset")
	}
	hd := w.Header()
	hd.Set("ETag", a.etag)
	if r.URL.RawQuery == "v="+a.version {
		hd.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		hd.Set("Cache-Control", "no-cache")
	}
	if strings.Contains(r.Header.Get("If-None-Match"), a.etag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	hd.Set("Content-Type", a.contentType)
	_, err := w.Write(a.body)
	return err
}
