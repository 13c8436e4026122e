package httpapi

import (
	"context"
	"net/http"

	"github.com/remnant/passportkit/internal/httpbody"
	"github.com/remnant/passportkit/issuer"
)

// KnowledgeIssuer is what the knowledge routes need of the issuer:
// artifacts and accepts (SPEC.md §15.8). *service.Service implements it.
type KnowledgeIssuer interface {
	UploadArtifact(ctx context.Context, p issuer.Principal, content []byte) (issuer.Artifact, error)
	Artifact(ctx context.Context, p issuer.Principal, digest string) ([]byte, issuer.Artifact, error)
	Accept(ctx context.Context, p issuer.Principal, rid issuer.ReceiptID, mem issuer.MemoryID) (issuer.Accept, error)
}

// ArtifactMediaType is the media type an artifact is served with: the
// issuer keeps bytes, not their type.
const ArtifactMediaType = "application/octet-stream"

// routeKnowledge adds the knowledge routes:
//
//	POST /api/artifacts               upload an artifact (the body, at most 1 MiB; feedback scope)
//	GET  /api/artifacts/{digest}      read an artifact back (search scope)
//	POST /api/receipts/{id}/accept    accept the memory that solved a consultation (feedback scope)
func (s *Server) routeKnowledge(app KnowledgeIssuer) {
	s.mux.Handle("POST /api/artifacts", s.authed(noQuery(func(w http.ResponseWriter, r *http.Request, p issuer.Principal) error {
		if err := p.Require(issuer.ScopeFeedback); err != nil {
			return err
		}
		body, err := httpbody.Read(w, r, httpbody.Options{Limit: issuer.MaxArtifactBytes, Timeout: s.bodyTTL})
		if err != nil {
			return err
		}
		a, err := app.UploadArtifact(r.Context(), p, body)
		if err != nil {
			return err
		}
		w.Header().Set("Location", "/api/artifacts/"+a.Digest)
		status := http.StatusOK
		if a.Created {
			status = http.StatusCreated
		}
		return writeJSON(w, status, a)
	})))
	s.mux.Handle("GET /api/artifacts/{digest}", s.authed(noQuery(func(w http.ResponseWriter, r *http.Request, p issuer.Principal) error {
		content, a, err := app.Artifact(r.Context(), p, r.PathValue("digest"))
		if err != nil {
			return err
		}
		h := w.Header()
		h.Set("Content-Type", ArtifactMediaType)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Content-Disposition", "attachment")
		h.Set("ETag", `"`+a.Digest+`"`)
		h.Set("Cache-Control", "private, max-age=3600")
		w.WriteHeader(http.StatusOK)
		_, err = w.Write(content)
		return err
	})))
	s.mux.Handle("POST /api/receipts/{id}/accept", s.authed(noQuery(func(w http.ResponseWriter, r *http.Request, p issuer.Principal) error {
		if err := p.Require(issuer.ScopeFeedback); err != nil {
			return err
		}
		id, err := issuer.ParseReceiptID(r.PathValue("id"))
		if err != nil {
			return notFound(err)
		}
		body, err := s.readBody(w, r, issuer.MaxAcceptBody)
		if err != nil {
			return err
		}
		mem, err := issuer.ParseAccept(body)
		if err != nil {
			return err
		}
		res, err := app.Accept(r.Context(), p, id, mem)
		if err != nil {
			return err
		}
		return writeJSON(w, http.StatusOK, res)
	})))
}
