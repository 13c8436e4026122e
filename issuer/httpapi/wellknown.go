package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
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
// quoted SHA-256 of the bytes) and [wellKnownMaxAge], by [serveCached].
func serveDocument(w http.ResponseWriter, r *http.Request, contentType string, doc func(context.Context) ([]byte, error)) error {
	b, err := doc(r.Context())
	if err != nil {
		return err
	}
	return serveCached(w, r, cached{contentType: contentType, etag: bytesETag(b), cacheControl: wellKnownMaxAge, body: b})
}

// passportCacheControl is the Cache-Control of a passport and of every
// answer of the trust API, which are built from the passport of the hour
// (SPEC.md §5.9, §16): any cache may keep them but must ask again before
// each use; within the hour an unchanged subject's answer keeps its ETag
// and is answered 304, and a change of the subject changes it at once.
const passportCacheControl = "public, no-cache"

// cached is an answer a cache may keep: its bytes, their media type, a
// strong ETag and a Cache-Control.
type cached struct {
	contentType  string
	etag         string
	cacheControl string
	body         []byte
}

// serveCached is the one way an answer with a validator is written: the
// ETag and Cache-Control always, then 304 Not Modified (no body) when the
// request's If-None-Match matches the ETag ([etagMatches]), else the
// bytes with their Content-Type and Content-Length (only the headers for
// HEAD). The ETag names the bytes before any content coding: the same ETag
// is sent with every coding, which the answer's Vary: Accept-Encoding
// tells caches apart (SPEC.md §13.6).
func serveCached(w http.ResponseWriter, r *http.Request, c cached) error {
	h := w.Header()
	h.Set("ETag", c.etag)
	h.Set("Cache-Control", c.cacheControl)
	h.Set("X-Content-Type-Options", "nosniff")
	if etagMatches(r.Header.Get("If-None-Match"), c.etag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	h.Set("Content-Type", c.contentType)
	h.Set("Content-Length", strconv.Itoa(len(c.body)))
	if r.Method == http.MethodHead {
		return nil
	}
	_, err := w.Write(c.body)
	return err
}

// bytesETag returns the strong ETag of b: the quoted hex SHA-256 of it.
func bytesETag(b []byte) string {
	sum := sha256.Sum256(b)
	return `"` + hex.EncodeToString(sum[:]) + `"`
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
