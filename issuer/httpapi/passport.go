package httpapi

import (
	"context"
	"net/http"
	"strconv"
	"strings"

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

// routePassports adds the public passport routes:
//
//	GET /api/public/agents/{publicId}/passport            a signed bundle (?disclose=previews|all|none)
//	GET /api/public/agents/{publicId}/passport/evidence   the evidence file of ?passportHash=H
func (s *Server) routePassports(app PassportIssuer) {
	s.mux.Handle("GET /api/public/agents/{publicId}/passport", s.anonymous(func(w http.ResponseWriter, r *http.Request, _ issuer.Principal) error {
		q := r.URL.Query()
		if err := onlyParams(q, "disclose"); err != nil {
			return err
		}
		if len(q["disclose"]) > 1 {
			return issuer.Errorf(issuer.CodeInvalid, "disclose is given more than once")
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
		q := r.URL.Query()
		if err := onlyParams(q, "passportHash"); err != nil {
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

// onlyParams refuses a query parameter other than those named.
func onlyParams(q map[string][]string, names ...string) error {
	for k := range q {
		known := false
		for _, n := range names {
			known = known || k == n
		}
		if !known {
			return issuer.Errorf(issuer.CodeInvalid, "unknown query parameter %q", clipText(k))
		}
	}
	return nil
}

// clipText bounds user text echoed in a message.
func clipText(s string) string {
	if len(s) > 64 {
		return strings.ToValidUTF8(s[:64], "") + "…"
	}
	return s
}
