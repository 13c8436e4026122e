package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"

	"github.com/remnant/passportkit/issuer"
)

// KeyPublisher gives the issuer's published keys, as a SPEC §10 trust file
// and as a JWK set, each complete, canonical bytes. *keyring.Keyring
// implements it.
type KeyPublisher interface {
	TrustFile(ctx context.Context) ([]byte, error)
	JWKS(ctx context.Context) ([]byte, error)
}

// wellKnownMaxAge is how long a client or cache may reuse a key document
// without asking again. It is far shorter than any key's publication after
// retirement, so a cached copy never lacks a key that signed a live
// passport for long; a new key is activated, not pre-published, so a
// verifier whose copy predates a rotation refetches on key_unknown.
const wellKnownMaxAge = "public, max-age=300"

// routeKeys adds the public key documents:
//
//	GET /.well-known/jwks.json            the published keys as a JWK set
//	GET /.well-known/passport-trust.json  the SPEC §10 trust file
func (s *Server) routeKeys(keys KeyPublisher) {
	s.mux.Handle("GET /.well-known/jwks.json", s.anonymous(noQuery(func(w http.ResponseWriter, r *http.Request, _ issuer.Principal) error {
		return serveDocument(w, r, "application/jwk-set+json", keys.JWKS)
	})))
	s.mux.Handle("GET /.well-known/passport-trust.json", s.anonymous(noQuery(func(w http.ResponseWriter, r *http.Request, _ issuer.Principal) error {
		return serveDocument(w, r, "application/json", keys.TrustFile)
	})))
}

// serveDocument writes the document doc returns, with a strong ETag (the
// quoted SHA-256 of the bytes), answering a matching If-None-Match with
// 304 Not Modified.
func serveDocument(w http.ResponseWriter, r *http.Request, contentType string, doc func(context.Context) ([]byte, error)) error {
	b, err := doc(r.Context())
	if err != nil {
		return err
	}
	sum := sha256.Sum256(b)
	etag := `"` + hex.EncodeToString(sum[:]) + `"`
	h := w.Header()
	h.Set("ETag", etag)
	h.Set("Cache-Control", wellKnownMaxAge)
	h.Set("X-Content-Type-Options", "nosniff")
	if etagMatches(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	h.Set("Content-Type", contentType)
	if r.Method == http.MethodHead {
		return nil
	}
	_, err = w.Write(b)
	return err
}

// etagMatches applies RFC 9110 §13.1.2: "*" or any listed tag, compared
// weakly (a W/ prefix is ignored).
func etagMatches(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}
