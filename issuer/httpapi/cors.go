package httpapi

import (
	"net/http"
	"slices"

	"github.com/remnant/passportkit/internal/httpserve"
)

// CrossOrigin lists, by route pattern, every route a web page of any
// origin may call (SPEC.md §13.6): the reads that take no key. Their
// answers, refusals included, allow any origin without credentials, and
// an OPTIONS request to their paths is answered as a CORS preflight. Every
// other route (those that take a key, the web pages, /mcp, /healthz,
// /metrics) is same-origin: no CORS header, and OPTIONS is 405.
var CrossOrigin = []string{
	"GET /api/agents/{publicId}",
	"GET /api/public/agents",
	"GET /api/public/agents/{publicId}/passport",
	"GET /api/public/agents/{publicId}/passport/evidence",
	"GET /api/public/agents/{publicId}/skills",
	"GET /api/public/agents/{publicId}/skills/{encodedSkill}/trust",
	"GET /api/public/agents/{publicId}/skills/{encodedSkill}/evidence",
	"POST /api/public/trust/assess",
	"GET /.well-known/jwks.json",
	"GET /.well-known/passport-trust.json",
	"GET /status/{list}",
	"GET /openapi.json",
}

// crossOrigin reports whether the route pattern is in [CrossOrigin].
func crossOrigin(pattern string) bool { return slices.Contains(CrossOrigin, pattern) }

// preflight returns the methods a preflight of r's path allows, and the
// path's route pattern; no methods when no cross-origin route serves the
// path.
func (s *Server) preflight(r *http.Request) (methods []string, route string) {
	for _, m := range []string{http.MethodGet, http.MethodPost} {
		probe := new(http.Request)
		*probe = *r
		probe.Method = m
		if _, p := s.mux.Handler(probe); crossOrigin(p) {
			route = routeOf(p)
			if m == http.MethodGet {
				methods = append(methods, http.MethodGet, http.MethodHead)
			} else {
				methods = append(methods, m)
			}
		}
	}
	return methods, route
}

// allowCrossOrigin sets the CORS headers of an answer from the route
// pattern, when it is in [CrossOrigin].
func allowCrossOrigin(w http.ResponseWriter, pattern string) {
	if crossOrigin(pattern) {
		httpserve.AllowAnyOrigin(w.Header())
	}
}
