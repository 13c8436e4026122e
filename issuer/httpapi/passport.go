package httpapi

import (
	"context"
	"net/http"

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

// evidenceCacheControl is the Cache-Control of an evidence file: it never
// changes.
const evidenceCacheControl = "public, max-age=86400, immutable"

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
		return serveCached(w, r, cached{contentType: BundleMediaType, etag: `"` + is.PassportHash + `"`, cacheControl: passportCacheControl, body: is.Bundle})
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
		// An issued passport's evidence file never changes: its
		// passportHash names its bytes as well as any hash of them.
		return serveCached(w, r, cached{contentType: EvidenceMediaType, etag: `"` + hash + `"`, cacheControl: evidenceCacheControl, body: b})
	}))
}
