package httpapi

import (
	"context"
	"net/http"
	"strconv"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/issuing"
)

// PassportIssuer issues public passports and serves the evidence files
// behind them. *service.Passports implements it.
type PassportIssuer interface {
	Issue(ctx context.Context, id issuer.AgentID, d issuing.Disclosure) (*issuing.Issued, error)
	Evidence(ctx context.Context, id issuer.AgentID, passportHash string) ([]byte, error)
}

// BundleMediaType is the media type of a passport bundle.
const BundleMediaType = "application/vnd.passportkit.bundle+json"

// EvidenceMediaType is the media type of an evidence file.
const EvidenceMediaType = "application/json"

// The tables of the passport routes' query strings (SPEC.md §5.9, §13.4).
var (
	passportParams     = issuer.QuerySpec{Params: issuer.Params("disclose")}
	evidenceFileParams = issuer.QuerySpec{Params: issuer.Params("passportHash")}
)

// routePassports adds the public passport routes:
//
//	GET /api/public/agents/{publicId}/passport            a signed bundle (?disclose=previews|all|none)
//	GET /api/public/agents/{publicId}/passport/evidence   the evidence file of ?passportHash=H
func (s *Server) routePassports(app PassportIssuer) {
	s.mux.Handle("GET /api/public/agents/{publicId}/passport", s.anonymous(func(w http.ResponseWriter, r *http.Request, _ issuer.Principal) error {
		q, err := passportParams.Read(r.URL.RawQuery)
		if err != nil {
			return err
		}
		d, err := issuing.ParseDisclosure(q.Get("disclose"))
		if err != nil {
			return err
		}
		id, err := issuer.ParseAgentID(r.PathValue("publicId"))
		if err != nil {
			return notFound(err)
		}
		is, err := app.Issue(r.Context(), id, d)
		if err != nil {
			return err
		}
		etag := `"` + is.PassportHash + `"`
		h := w.Header()
		h.Set("ETag", etag)
		h.Set("Cache-Control", "public, no-cache")
		h.Set("X-Content-Type-Options", "nosniff")
		if etagMatches(r.Header.Get("If-None-Match"), etag) {
			w.WriteHeader(http.StatusNotModified)
			return nil
		}
		h.Set("Content-Type", BundleMediaType)
		h.Set("Content-Length", strconv.Itoa(len(is.Bundle)))
		_, err = w.Write(is.Bundle)
		return err
	}))
	s.mux.Handle("GET /api/public/agents/{publicId}/passport/evidence", s.anonymous(func(w http.ResponseWriter, r *http.Request, _ issuer.Principal) error {
		q, err := evidenceFileParams.Read(r.URL.RawQuery)
		if err != nil {
			return err
		}
		if len(q["passportHash"]) != 1 {
			return issuer.Errorf(issuer.CodeInvalid, "give the passport's hash once, as ?passportHash=<64 hex digits>")
		}
		id, err := issuer.ParseAgentID(r.PathValue("publicId"))
		if err != nil {
			return notFound(err)
		}
		hash := q.Get("passportHash")
		b, err := app.Evidence(r.Context(), id, hash)
		if err != nil {
			return err
		}
		h := w.Header()
		// An issued passport's evidence file never changes.
		h.Set("ETag", `"`+hash+`"`)
		h.Set("Cache-Control", "public, max-age=86400, immutable")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Content-Type", EvidenceMediaType)
		h.Set("Content-Length", strconv.Itoa(len(b)))
		_, err = w.Write(b)
		return err
	}))
}
