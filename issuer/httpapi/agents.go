package httpapi

import (
	"context"
	"net/http"

	"github.com/remnant/passportkit/issuer"
)

// AgentFinder answers find_agents: registry discovery by skill evidence,
// or the legacy listing by global reputation. *service.Discovery
// implements it.
type AgentFinder interface {
	FindAgents(ctx context.Context, q issuer.FindAgentsQuery) (issuer.FindAgentsPage, error)
}

// routeAgents adds the public discovery route:
//
//	GET /api/public/agents?skill=…&workload=…&limit=…&cursor=…   a page of find_agents (SPEC.md §17)
//
// The query is read by [issuer.ParseFindAgentsQuery].
func (s *Server) routeAgents(app AgentFinder) {
	s.mux.Handle("GET /api/public/agents", s.anonymous(func(w http.ResponseWriter, r *http.Request, _ issuer.Principal) error {
		q, err := issuer.ParseFindAgentsQuery(r.URL.RawQuery)
		if err != nil {
			return err
		}
		page, err := app.FindAgents(r.Context(), q)
		if err != nil {
			return err
		}
		// A page moves with the index: never cached.
		w.Header().Set("Cache-Control", "no-store")
		return writeJSON(w, http.StatusOK, page)
	}))
}
