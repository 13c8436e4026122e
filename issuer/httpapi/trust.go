package httpapi

import (
	"context"
	"net/http"

	"github.com/remnant/passportkit/issuer"
)

// TrustReader answers the public trust API. *service.Trust implements it.
type TrustReader interface {
	Skills(ctx context.Context, id issuer.AgentID) (issuer.SkillList, error)
	SkillTrust(ctx context.Context, id issuer.AgentID, q issuer.TrustQuery) (issuer.SkillTrust, error)
	SkillEvidence(ctx context.Context, id issuer.AgentID, q issuer.EvidenceQuery) (issuer.EvidencePage, error)
	Assess(ctx context.Context, r issuer.AssessRequest) (issuer.TrustComparison, error)
}

// routeTrust adds the public trust API (SPEC.md §16), anonymous and rate
// limited per client address:
//
//	GET  /api/public/agents/{publicId}/skills                          the listed skills, summarised
//	GET  /api/public/agents/{publicId}/skills/{encodedSkill}/trust     one skill in a task context, with why
//	GET  /api/public/agents/{publicId}/skills/{encodedSkill}/evidence  its sources, page by page
//	POST /api/public/trust/assess                                      up to 5 agents × 5 skills side by side
//
// A query is read before the path: its faults win over an unknown agent.
// The GET answers are cached as the passport they come from is
// ([writeCachedJSON]).
func (s *Server) routeTrust(app TrustReader) {
	s.mux.Handle("GET /api/public/agents/{publicId}/skills", s.anonymous(noQuery(func(w http.ResponseWriter, r *http.Request, _ issuer.Principal) error {
		id, err := issuer.ParseAgentID(r.PathValue("publicId"))
		if err != nil {
			return notFound(err)
		}
		out, err := app.Skills(r.Context(), id)
		if err != nil {
			return err
		}
		return writeCachedJSON(w, r, out)
	})))
	s.mux.Handle("GET /api/public/agents/{publicId}/skills/{encodedSkill}/trust", skillRead(s, issuer.ParseTrustQuery, app.SkillTrust))
	s.mux.Handle("GET /api/public/agents/{publicId}/skills/{encodedSkill}/evidence", skillRead(s, issuer.ParseEvidenceQuery, app.SkillEvidence))
	s.mux.Handle("POST /api/public/trust/assess", s.anonymous(noQuery(func(w http.ResponseWriter, r *http.Request, _ issuer.Principal) error {
		body, err := s.readBody(w, r, issuer.MaxAssessBody)
		if err != nil {
			return err
		}
		req, err := issuer.ParseAssessRequest(body)
		if err != nil {
			return err
		}
		out, err := app.Assess(r.Context(), req)
		if err != nil {
			return err
		}
		return writeJSON(w, http.StatusOK, out)
	})))
}

// skillRead is a read of one skill of one agent: the query and the skill
// in the path are parsed first, then the agent, then read answers.
func skillRead[Q, A any](s *Server, parse func(skill, rawQuery string) (Q, error), read func(context.Context, issuer.AgentID, Q) (A, error)) http.Handler {
	return s.anonymous(func(w http.ResponseWriter, r *http.Request, _ issuer.Principal) error {
		q, err := parse(r.PathValue("encodedSkill"), r.URL.RawQuery)
		if err != nil {
			return err
		}
		id, err := issuer.ParseAgentID(r.PathValue("publicId"))
		if err != nil {
			return notFound(err)
		}
		out, err := read(r.Context(), id, q)
		if err != nil {
			return err
		}
		return writeCachedJSON(w, r, out)
	})
}

// writeCachedJSON writes v, an answer built from the passport of the hour,
// as JSON with the passport's Cache-Control and a strong ETag over its
// bytes, by [serveCached]: an unchanged answer is 304 to a client that
// holds it.
func writeCachedJSON(w http.ResponseWriter, r *http.Request, v any) error {
	b, err := marshalJSON(v)
	if err != nil {
		return err
	}
	return serveCached(w, r, cached{contentType: "application/json", etag: bytesETag(b), cacheControl: passportCacheControl, body: b})
}
