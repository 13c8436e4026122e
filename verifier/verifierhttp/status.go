package verifierhttp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/statuslist"
	"github.com/remnant/passportkit/verifier"
)

// StatusConfig configures a [StatusFetcher]. Only URLs is required.
type StatusConfig struct {
	// URLs are the status lists the fetcher may fetch: each an absolute
	// http or https URL, naming one list exactly or, when it ends with
	// "/", every list whose URI begins with it.
	URLs []string
	// Timeout bounds one fetch, from the request to the last byte
	// (default 5s).
	Timeout time.Duration
	// RetryAfter is how long a failed fetch is remembered before the list
	// is fetched again (default 10s).
	RetryAfter time.Duration
	// Client makes the requests; a client that follows no redirect when
	// nil. A client given here should not follow redirects either: a
	// redirect may leave the URLs allowed.
	Client *http.Client
	// Now is the clock of the cache; time.Now when nil.
	Now func() time.Time
}

// StatusFetcher fetches the status list tokens that passports name, from
// the URLs it is allowed only, verifies each once with its Verifier, and
// keeps it until its ttl runs out (SPEC.md §11.5). A fetch is bounded by
// verifier.MaxStatusListSize and a timeout. When a fetch fails, the token
// held before is kept (the status check reports status_stale once it is
// too old); when none is held, the list reports status_list_invalid with
// what failed, and is fetched again after RetryAfter. It is safe for
// concurrent use; requests for one list share one fetch.
type StatusFetcher struct {
	v     *verifier.Verifier
	cfg   StatusConfig
	exact map[string]bool
	under []string

	mu    sync.Mutex
	lists map[string]*heldList
}

// heldList is what the fetcher holds of one list URI.
type heldList struct {
	mu      sync.Mutex
	list    *verifier.StatusList // the last token that verified, or the last failure
	fetchAt time.Time            // when to fetch again
}

// NewStatusFetcher returns a fetcher of the lists cfg allows, whose
// tokens v verifies. A URL that is not an absolute http or https URL is
// refused.
func NewStatusFetcher(v *verifier.Verifier, cfg StatusConfig) (*StatusFetcher, error) {
	f := &StatusFetcher{v: v, cfg: cfg, exact: map[string]bool{}, lists: map[string]*heldList{}}
	for _, u := range cfg.URLs {
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "https" && p.Scheme != "http") || p.Host == "" || p.Fragment != "" || p.User != nil {
			return nil, fmt.Errorf("verifierhttp: status list URL %q is not an absolute http or https URL", u)
		}
		if strings.HasSuffix(u, "/") {
			f.under = append(f.under, u)
		} else {
			f.exact[u] = true
		}
	}
	if f.cfg.Timeout <= 0 {
		f.cfg.Timeout = 5 * time.Second
	}
	if f.cfg.RetryAfter <= 0 {
		f.cfg.RetryAfter = 10 * time.Second
	}
	if f.cfg.Client == nil {
		f.cfg.Client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	if f.cfg.Now == nil {
		f.cfg.Now = time.Now
	}
	return f, nil
}

// allowed reports whether uri is a list the fetcher may fetch.
func (f *StatusFetcher) allowed(uri string) bool {
	if f.exact[uri] {
		return true
	}
	for _, p := range f.under {
		if strings.HasPrefix(uri, p) {
			return true
		}
	}
	return false
}

// List returns the list at uri for a status check: the token held while
// its ttl lasts, else a fresh one, else what failed. It returns nil for a
// uri the fetcher may not fetch: the status check then reports
// not_checked.
func (f *StatusFetcher) List(ctx context.Context, uri string) *verifier.StatusList {
	if !f.allowed(uri) {
		return nil
	}
	f.mu.Lock()
	h, ok := f.lists[uri]
	if !ok {
		h = &heldList{}
		f.lists[uri] = h
	}
	f.mu.Unlock()

	h.mu.Lock()
	defer h.mu.Unlock()
	now := f.cfg.Now()
	if h.list != nil && now.Before(h.fetchAt) {
		return h.list
	}
	token, err := f.fetch(ctx, uri)
	switch {
	case err != nil && h.list != nil && h.list.Err() == nil:
		h.fetchAt = now.Add(f.cfg.RetryAfter) // keep the token held
	case err != nil:
		h.list, h.fetchAt = f.v.UnobtainedStatusList(err), now.Add(f.cfg.RetryAfter)
	default:
		h.list = f.v.ReadStatusList(token)
		if h.fetchAt = h.list.RefreshAt(); h.list.Err() != nil || !h.fetchAt.After(now) {
			h.fetchAt = now.Add(f.cfg.RetryAfter)
		}
	}
	return h.list
}

// fetch GETs the token at uri: a 200 answer of the status list media
// type, whose body is read up to one byte over the verifier's bound (the
// verifier refuses a longer one).
func (f *StatusFetcher) fetch(ctx context.Context, uri string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, f.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, uri, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", statuslist.MediaType)
	res, err := f.cfg.Client.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s answered %s", uri, res.Status)
	}
	if mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); mt != statuslist.MediaType {
		return nil, fmt.Errorf("GET %s answered %q, not %s", uri, res.Header.Get("Content-Type"), statuslist.MediaType)
	}
	b, err := io.ReadAll(io.LimitReader(res.Body, verifier.MaxStatusListSize+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", uri, err)
	}
	return b, nil
}

// statusURIUnverified returns the status list URI the passport in bundle
// names, read before anything is verified: it only chooses which list to
// fetch among those allowed, and the status check then holds the list to
// the verified passport's own uri.
func statusURIUnverified(bundle []byte) (string, bool) {
	b, err := passport.ParseBundleUnverified(bundle)
	if err != nil {
		return "", false
	}
	var snap struct {
		Passport struct {
			Status *passport.StatusRef `json:"status"`
		} `json:"passport"`
	}
	if err := json.Unmarshal(b.Snapshot, &snap); err != nil || snap.Passport.Status == nil {
		return "", false
	}
	return snap.Passport.Status.StatusList.URI, true
}

// presentationStatusURIUnverified is statusURIUnverified for the bundle a
// presentation holds.
func presentationStatusURIUnverified(presentation []byte) (string, bool) {
	p, err := passport.ParsePresentationUnverified(presentation)
	if err != nil {
		return "", false
	}
	return statusURIUnverified(p.Bundle)
}
