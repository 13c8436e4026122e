package httpapi

import (
	"context"
	"net/http"

	"github.com/remnant/passportkit/issuer"
)

// FeedIssuer is what the feed and browse routes need of the issuer (SPEC.md
// §15.9). *service.Service implements it.
type FeedIssuer interface {
	Feed(ctx context.Context, p issuer.Principal, q issuer.FeedQuery) (issuer.FeedPage, error)
	Browse(ctx context.Context, p issuer.Principal) (issuer.BrowseMap, error)
}

// StatusClientClosed is the status the request log and metrics record for
// a feed read whose client closed its connection while it waited (the
// 499 of common proxies); nothing reaches the client, and it is no fault.
const StatusClientClosed = 499

// routeFeed adds the feed and browse routes:
//
//	GET /api/memories/feed    the memories published after a cursor, waiting up to 30 s for one (search scope)
//	GET /api/memories/browse  a map of the readable memories by category, domain and skill (search scope)
func (s *Server) routeFeed(app FeedIssuer) {
	s.mux.Handle("GET /api/memories/feed", s.authed(func(w http.ResponseWriter, r *http.Request, p issuer.Principal) error {
		if err := p.Require(issuer.ScopeSearch); err != nil {
			return err
		}
		q, err := issuer.ParseFeedQuery(r.URL.RawQuery)
		if err != nil {
			return err
		}
		page, err := app.Feed(r.Context(), p, q)
		if err != nil && r.Context().Err() != nil {
			// The client went away while its read waited: there is no
			// one to answer, and nothing failed.
			w.WriteHeader(StatusClientClosed)
			return nil
		}
		if err != nil {
			return err
		}
		w.Header().Set("Cache-Control", "no-store")
		return writeJSON(w, http.StatusOK, page)
	}))
	s.mux.Handle("GET /api/memories/browse", s.authed(noQuery(func(w http.ResponseWriter, r *http.Request, p issuer.Principal) error {
		m, err := app.Browse(r.Context(), p)
		if err != nil {
			return err
		}
		return writeJSON(w, http.StatusOK, m)
	})))
}
