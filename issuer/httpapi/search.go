package httpapi

import (
	"net/http"

	"github.com/remnant/passportkit/issuer"
)

// searchMemories answers GET /api/memories/search: the memories matching
// q, ranked in the caller's view, with labels and counts only.
func (s *Server) searchMemories(w http.ResponseWriter, r *http.Request, p issuer.Principal) error {
	if err := p.Require(issuer.ScopeSearch); err != nil {
		return err
	}
	q, err := issuer.ParseSearchQuery(r.URL.RawQuery)
	if err != nil {
		return err
	}
	page, err := s.app.SearchMemories(r.Context(), p, q)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, page)
}
