package keyring

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/verifier"
)

// ErrNothingPublished is returned (inside an [*issuer.Error] with code
// not_found) when no key is published, so there is no trust file to give.
var ErrNothingPublished = fmt.Errorf("keyring: no published keys")

// published returns the keys published now, parsed, in trust-file order:
// by NotBefore, then kid.
func (r *Keyring) published(ctx context.Context) ([]verifier.TrustedKey, error) {
	keys, err := r.st.SigningKeys(ctx)
	if err != nil {
		return nil, err
	}
	now := r.cfg.Now()
	keys = slices.DeleteFunc(keys, func(k issuer.SigningKey) bool { return !k.PublishedAt(now) })
	slices.SortFunc(keys, func(a, b issuer.SigningKey) int {
		return cmp.Or(a.NotBefore.Compare(*b.NotBefore), cmp.Compare(a.KID, b.KID))
	})
	if len(keys) == 0 {
		return nil, &issuer.Error{Code: issuer.CodeNotFound,
			Message: "the issuer has no published keys: run `passport-issuer keys rotate`", Err: ErrNothingPublished}
	}
	out := make([]verifier.TrustedKey, len(keys))
	for i, k := range keys {
		pub, err := passport.ParsePublicKey([]byte(k.PublicJWK))
		if err != nil {
			return nil, fmt.Errorf("keyring: recorded key %s: %w", k.KID, err)
		}
		if pub.KeyID() != k.KID {
			return nil, fmt.Errorf("keyring: recorded key %s has thumbprint %s", k.KID, pub.KeyID())
		}
		out[i] = verifier.TrustedKey{Key: pub, NotBefore: *k.NotBefore}
		if k.NotAfter != nil {
			out[i].NotAfter = *k.NotAfter
		}
	}
	return out, nil
}

// Trust returns the trust a verifier of this issuer's passports should
// hold now: the issuer and every published key with its window.
func (r *Keyring) Trust(ctx context.Context) (*verifier.Trust, error) {
	keys, err := r.published(ctx)
	if err != nil {
		return nil, err
	}
	if len(keys) > verifier.MaxTrustedKeys {
		return nil, fmt.Errorf("keyring: %d keys are published; a trust file holds at most %d: withdraw old retired keys", len(keys), verifier.MaxTrustedKeys)
	}
	return verifier.NewTrust(r.cfg.Issuer, keys...)
}

// TrustFile returns the SPEC §10 trust file for this issuer now: the
// canonical JSON of [Keyring.Trust] and a newline. `keys export-trust`
// writes it and GET /.well-known/passport-trust.json serves it.
func (r *Keyring) TrustFile(ctx context.Context) ([]byte, error) {
	t, err := r.Trust(ctx)
	if err != nil {
		return nil, err
	}
	b, err := t.MarshalJSON()
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// JWKS returns the published keys as an RFC 7517 JWK set, {"keys":[…]}, in
// canonical JSON with a newline: public members, alg, kid and use only.
// The trust file is what a passport verifier needs; the JWKS serves
// generic JOSE tooling.
func (r *Keyring) JWKS(ctx context.Context) ([]byte, error) {
	keys, err := r.published(ctx)
	if err != nil {
		return nil, err
	}
	set := struct {
		Keys []json.RawMessage `json:"keys"`
	}{Keys: make([]json.RawMessage, len(keys))}
	for i, k := range keys {
		if set.Keys[i], err = k.Key.MarshalJSON(); err != nil {
			return nil, err
		}
	}
	b, err := passport.Marshal(set)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
