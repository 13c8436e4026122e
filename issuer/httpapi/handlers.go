package httpapi

import (
	"net/http"

	"github.com/remnant/passportkit/issuer"
)

func (s *Server) publish(w http.ResponseWriter, r *http.Request, p issuer.Principal) error {
	if err := p.Require(issuer.ScopePublish); err != nil {
		return err
	}
	body, err := s.readBody(w, r, issuer.MaxPublishBody)
	if err != nil {
		return err
	}
	pub, err := issuer.ParsePublication(body)
	if err != nil {
		return err
	}
	m, err := s.app.Publish(r.Context(), p, pub)
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/api/memories/"+string(m.ID))
	return writeJSON(w, http.StatusCreated, m)
}

func (s *Server) retrieve(w http.ResponseWriter, r *http.Request, p issuer.Principal) error {
	id, err := issuer.ParseMemoryID(r.PathValue("id"))
	if err != nil {
		return notFound(err)
	}
	m, err := s.app.Retrieve(r.Context(), p, id)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, m)
}

func (s *Server) validations(w http.ResponseWriter, r *http.Request, p issuer.Principal) error {
	id, err := issuer.ParseMemoryID(r.PathValue("id"))
	if err != nil {
		return notFound(err)
	}
	sum, err := s.app.Validations(r.Context(), p, id)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, sum)
}

func (s *Server) memoryFeedback(w http.ResponseWriter, r *http.Request, p issuer.Principal) error {
	if err := p.Require(issuer.ScopeFeedback); err != nil {
		return err
	}
	id, err := issuer.ParseMemoryID(r.PathValue("id"))
	if err != nil {
		return notFound(err)
	}
	body, err := s.readBody(w, r, issuer.MaxFeedbackBody)
	if err != nil {
		return err
	}
	fb, err := issuer.ParseFeedback(body)
	if err != nil {
		return err
	}
	res, replayed, err := s.app.SubmitFeedback(r.Context(), p, id, fb, issuer.TransportHTTP)
	if err != nil {
		return err
	}
	markReplay(w, replayed)
	return writeJSON(w, http.StatusOK, res)
}

func (s *Server) reportOutcome(w http.ResponseWriter, r *http.Request, p issuer.Principal) error {
	if err := p.Require(issuer.ScopeFeedback); err != nil {
		return err
	}
	id, err := issuer.ParseMemoryID(r.PathValue("id"))
	if err != nil {
		return notFound(err)
	}
	body, err := s.readBody(w, r, issuer.MaxOutcomeBody)
	if err != nil {
		return err
	}
	o, err := issuer.ParseOutcome(body)
	if err != nil {
		return err
	}
	res, replayed, err := s.app.ReportOutcome(r.Context(), p, id, o, issuer.TransportHTTP)
	if err != nil {
		return err
	}
	markReplay(w, replayed)
	return writeJSON(w, http.StatusOK, res)
}

func (s *Server) declareCapabilities(w http.ResponseWriter, r *http.Request, p issuer.Principal) error {
	if err := p.Require(issuer.ScopePublish); err != nil {
		return err
	}
	body, err := s.readBody(w, r, issuer.MaxCapabilitiesBody)
	if err != nil {
		return err
	}
	caps, err := issuer.ParseCapabilities(body)
	if err != nil {
		return err
	}
	out, err := s.app.DeclareCapabilities(r.Context(), p, caps)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

func (s *Server) receiptFeedback(w http.ResponseWriter, r *http.Request, p issuer.Principal) error {
	if err := p.Require(issuer.ScopeFeedback); err != nil {
		return err
	}
	id, err := issuer.ParseReceiptID(r.PathValue("id"))
	if err != nil {
		return notFound(err)
	}
	body, err := s.readBody(w, r, issuer.MaxFeedbackBody)
	if err != nil {
		return err
	}
	fb, err := issuer.ParseReceiptFeedback(body, id)
	if err != nil {
		return err
	}
	res, replayed, err := s.app.SubmitReceiptFeedback(r.Context(), p, id, fb, issuer.TransportHTTP)
	if err != nil {
		return err
	}
	markReplay(w, replayed)
	return writeJSON(w, http.StatusOK, res)
}

// markReplay flags a response recorded earlier under the same idempotency
// key.
func markReplay(w http.ResponseWriter, replayed bool) {
	if replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
}

func (s *Server) consult(w http.ResponseWriter, r *http.Request, p issuer.Principal) error {
	if err := p.Require(issuer.ScopeSearch); err != nil {
		return err
	}
	body, err := s.readBody(w, r, issuer.MaxConsultationBody)
	if err != nil {
		return err
	}
	ids, err := issuer.ParseConsultation(body)
	if err != nil {
		return err
	}
	rc, err := s.app.Consult(r.Context(), p, ids)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, rc)
}

func (s *Server) moderate(w http.ResponseWriter, r *http.Request, p issuer.Principal) error {
	if err := p.Require(issuer.ScopeAdmin); err != nil {
		return err
	}
	id, err := issuer.ParseMemoryID(r.PathValue("id"))
	if err != nil {
		return notFound(err)
	}
	body, err := s.readBody(w, r, issuer.MaxModerationBody)
	if err != nil {
		return err
	}
	mod, err := issuer.ParseModeration(body)
	if err != nil {
		return err
	}
	prev, err := s.app.ModerateMemory(r.Context(), p, id, mod)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]any{"id": id, "status": mod.Status, "previousStatus": prev})
}

func (s *Server) me(w http.ResponseWriter, r *http.Request, p issuer.Principal) error {
	pr, err := s.app.Profile(r.Context(), p)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, pr)
}

func (s *Server) publicProfile(w http.ResponseWriter, r *http.Request, _ issuer.Principal) error {
	id, err := issuer.ParseAgentID(r.PathValue("publicId"))
	if err != nil {
		return notFound(err)
	}
	pr, err := s.app.PublicProfile(r.Context(), id)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, pr)
}

func (s *Server) reputation(w http.ResponseWriter, r *http.Request, p issuer.Principal) error {
	id, err := issuer.ParseAgentID(r.PathValue("publicId"))
	if err != nil {
		return notFound(err)
	}
	q, err := issuer.ParseReputationQuery(r.URL.RawQuery)
	if err != nil {
		return err
	}
	rep, err := s.app.Reputation(r.Context(), p, id, q)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, rep)
}

// notFound turns a malformed identifier in a path into not_found: a path
// that cannot name a resource names none.
func notFound(err error) error {
	return &issuer.Error{Code: issuer.CodeNotFound, Message: issuer.ErrorMessage(err), Err: err}
}
