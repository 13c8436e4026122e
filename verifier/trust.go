package verifier

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/remnant/passportkit/passport"
)

// TrustVersion is the version of the trust file format.
const TrustVersion = "1.0"

// Limits of a trust file.
const (
	MaxTrustFileSize = 64 << 10
	MaxTrustedKeys   = 64
)

// Trust is what a verifier trusts: one issuer and its keys, each pinned to
// one algorithm and valid for passports issued within its window. It is
// read from a trust file; a key found inside a bundle is never trusted.
type Trust struct {
	Issuer string
	Keys   []TrustedKey
}

// TrustedKey is one issuer key and its validity window. A zero NotBefore or
// NotAfter leaves that side of the window open.
type TrustedKey struct {
	Key       *passport.PublicKey
	NotBefore time.Time
	NotAfter  time.Time
}

// ValidAt reports whether t lies within the key's window.
func (k *TrustedKey) ValidAt(t time.Time) bool {
	return (k.NotBefore.IsZero() || !t.Before(k.NotBefore)) && (k.NotAfter.IsZero() || !t.After(k.NotAfter))
}

// NewTrust returns a Trust for issuer and keys, checked as ParseTrust
// checks a file.
func NewTrust(issuer string, keys ...TrustedKey) (*Trust, error) {
	t := &Trust{Issuer: issuer, Keys: keys}
	if err := t.validate(); err != nil {
		return nil, err
	}
	return t, nil
}

func (t *Trust) validate() error {
	if t.Issuer == "" {
		return errors.New("verifier: trust: issuer is required")
	}
	if len(t.Keys) == 0 {
		return errors.New("verifier: trust: no keys")
	}
	if len(t.Keys) > MaxTrustedKeys {
		return fmt.Errorf("verifier: trust: %d keys; at most %d", len(t.Keys), MaxTrustedKeys)
	}
	seen := map[string]bool{}
	for i, k := range t.Keys {
		if k.Key == nil {
			return fmt.Errorf("verifier: trust: key %d is missing", i)
		}
		if seen[k.Key.KeyID()] {
			return fmt.Errorf("verifier: trust: key %s listed twice", k.Key.KeyID())
		}
		seen[k.Key.KeyID()] = true
		if !k.NotBefore.IsZero() && !k.NotAfter.IsZero() && k.NotAfter.Before(k.NotBefore) {
			return fmt.Errorf("verifier: trust: key %s: notAfter is before notBefore", k.Key.KeyID())
		}
	}
	return nil
}

// Lookup returns the trusted key whose kid is kid.
func (t *Trust) Lookup(kid string) (*TrustedKey, bool) {
	for i := range t.Keys {
		if t.Keys[i].Key.KeyID() == kid {
			return &t.Keys[i], true
		}
	}
	return nil, false
}

type trustFile struct {
	TrustVersion string            `json:"trustVersion"`
	Issuer       string            `json:"issuer"`
	Keys         []json.RawMessage `json:"keys"`
}

type keyWindow struct {
	NotBefore *passport.Time `json:"notBefore,omitempty"`
	NotAfter  *passport.Time `json:"notAfter,omitempty"`
}

// ParseTrust reads a trust file: {"trustVersion":"1.0","issuer":…,"keys":[…]}
// where each key is a public JWK with "alg" and "kid" (its RFC 7638
// thumbprint) and optional "notBefore" and "notAfter" times.
func ParseTrust(b []byte) (*Trust, error) {
	if len(b) > MaxTrustFileSize {
		return nil, fmt.Errorf("verifier: trust file larger than %d bytes", MaxTrustFileSize)
	}
	if err := passport.CheckStrict(b); err != nil {
		return nil, fmt.Errorf("verifier: trust file: %w", err)
	}
	var f trustFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("verifier: trust file: %w", err)
	}
	if err := passport.CheckVersion("trustVersion", f.TrustVersion, TrustVersion); err != nil {
		return nil, fmt.Errorf("verifier: trust file: %w", err)
	}
	t := &Trust{Issuer: f.Issuer}
	for i, raw := range f.Keys {
		var members map[string]json.RawMessage
		if err := json.Unmarshal(raw, &members); err != nil {
			return nil, fmt.Errorf("verifier: trust file: key %d: %w", i, err)
		}
		for _, m := range []string{"alg", "kid"} {
			if _, ok := members[m]; !ok {
				return nil, fmt.Errorf("verifier: trust file: key %d: %q is required", i, m)
			}
		}
		var w keyWindow
		if err := json.Unmarshal(raw, &w); err != nil {
			return nil, fmt.Errorf("verifier: trust file: key %d: %w", i, err)
		}
		delete(members, "notBefore")
		delete(members, "notAfter")
		jwk, err := json.Marshal(members)
		if err != nil {
			return nil, err
		}
		pub, err := passport.ParsePublicKey(jwk)
		if err != nil {
			return nil, fmt.Errorf("verifier: trust file: key %d: %w", i, err)
		}
		k := TrustedKey{Key: pub}
		if w.NotBefore != nil {
			k.NotBefore = w.NotBefore.Time
		}
		if w.NotAfter != nil {
			k.NotAfter = w.NotAfter.Time
		}
		t.Keys = append(t.Keys, k)
	}
	if err := t.validate(); err != nil {
		return nil, err
	}
	return t, nil
}

// MarshalJSON writes t as a trust file, in canonical JSON.
func (t *Trust) MarshalJSON() ([]byte, error) {
	f := trustFile{TrustVersion: TrustVersion, Issuer: t.Issuer}
	for _, k := range t.Keys {
		jwk, err := k.Key.MarshalJSON()
		if err != nil {
			return nil, err
		}
		var members map[string]json.RawMessage
		if err := json.Unmarshal(jwk, &members); err != nil {
			return nil, err
		}
		if !k.NotBefore.IsZero() {
			members["notBefore"], _ = json.Marshal(passport.NewTime(k.NotBefore))
		}
		if !k.NotAfter.IsZero() {
			members["notAfter"], _ = json.Marshal(passport.NewTime(k.NotAfter))
		}
		b, err := json.Marshal(members)
		if err != nil {
			return nil, err
		}
		f.Keys = append(f.Keys, b)
	}
	return passport.Marshal(f)
}
