package httpapi

import (
	"net/http"

	"github.com/remnant/passportkit/issuer"
)

// holderKeyNonce answers POST /api/agents/me/holder-keys/nonce, which
// takes no body.
func (s *Server) holderKeyNonce(w http.ResponseWriter, r *http.Request, p issuer.Principal) error {
	if err := p.Require(issuer.ScopePublish); err != nil {
		return err
	}
	if r.ContentLength != 0 || len(r.TransferEncoding) > 0 {
		return issuer.Errorf(issuer.CodeInvalid, "this request takes no body")
	}
	n, err := s.app.HolderKeyNonce(r.Context(), p)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, n)
}

func (s *Server) setHolderKeys(w http.ResponseWriter, r *http.Request, p issuer.Principal) error {
	if err := p.Require(issuer.ScopePublish); err != nil {
		return err
	}
	body, err := s.readBody(w, r, issuer.MaxHolderKeysBody)
	if err != nil {
		return err
	}
	req, err := issuer.ParseHolderKeys(body)
	if err != nil {
		return err
	}
	out, err := s.app.SetHolderKeys(r.Context(), p, req)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

func (s *Server) holderKeys(w http.ResponseWriter, r *http.Request, p issuer.Principal) error {
	out, err := s.app.HolderKeys(r.Context(), p)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}
