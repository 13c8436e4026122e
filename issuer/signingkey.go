package issuer

import "time"

// KeyStatus is where an issuer signing key is in its life.
type KeyStatus string

// The key statuses. A key goes ready → active → retired, or ready →
// retired; a retired key never signs again.
const (
	// KeyReady is a generated key that has not signed yet and is not
	// published.
	KeyReady KeyStatus = "ready"
	// KeyActive is the one key that signs passports now. It is published
	// with a window open since NotBefore.
	KeyActive KeyStatus = "active"
	// KeyRetired no longer signs. Its window closed at NotAfter; it stays
	// published until PublishUntil so that what it signed keeps verifying.
	KeyRetired KeyStatus = "retired"
)

// SigningKey is the public record of one issuer signing key, as the
// database keeps it. The private half is never part of it.
type SigningKey struct {
	// KID is the key's RFC 7638 thumbprint.
	KID string `db:"kid" json:"kid"`
	// Alg is the one algorithm the key signs with: EdDSA or ES256.
	Alg string `db:"alg" json:"alg"`
	// PublicJWK is the canonical public JWK.
	PublicJWK string `db:"public_jwk" json:"-"`
	// Status is the key's status.
	Status KeyStatus `db:"status" json:"status"`
	// CreatedAt is when the key was recorded.
	CreatedAt time.Time `db:"created_at" json:"createdAt"`
	// NotBefore opens the key's window: when it became active. Nil for a
	// key that never signed.
	NotBefore *time.Time `db:"not_before" json:"notBefore,omitempty"`
	// NotAfter closes the key's window: when it was retired. Nil while the
	// window is open.
	NotAfter *time.Time `db:"not_after" json:"notAfter,omitempty"`
	// PublishUntil is when a retired key leaves the trust file and JWKS.
	PublishUntil *time.Time `db:"publish_until" json:"publishUntil,omitempty"`
}

// PublishedAt reports whether the key belongs in the trust file and the
// JWKS at t: the active key, and retired keys that signed and whose
// publication has not ended.
func (k *SigningKey) PublishedAt(t time.Time) bool {
	switch k.Status {
	case KeyActive:
		return true
	case KeyRetired:
		return k.NotBefore != nil && k.PublishUntil != nil && t.Before(*k.PublishUntil)
	}
	return false
}
