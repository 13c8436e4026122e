// Package seal makes opaque, tamper-evident tokens, such as the cursors of
// paginated listings: a payload the server chose, authenticated with a
// server-side key, so that a client can hand it back but cannot forge or
// alter it.
//
// A token is the unpadded base64url encoding of the payload followed by the
// first 16 bytes of HMAC-SHA256(key, purpose || 0x00 || payload). The
// purpose separates the tokens of different listings: a token sealed for
// one is refused by every other. Tokens are not encrypted; the payload
// must hold nothing the client may not see.
package seal

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
)

// KeySize is the least size of a sealing key, in bytes.
const KeySize = 32

// MaxPayload bounds a sealed payload; Open refuses a token holding more,
// before computing anything.
const MaxPayload = 512

// tagSize is the length of the truncated HMAC.
const tagSize = 16

// ErrInvalid is returned by Open for any token it did not seal for the
// purpose: malformed, too long, altered, or sealed with another key or for
// another purpose. Callers map it to the cursor_invalid reason code.
var ErrInvalid = errors.New("seal: token is not one this service issued")

// Sealer seals and opens tokens with one key. It is safe for concurrent
// use.
type Sealer struct {
	key []byte
}

// New returns a Sealer with key, which must be at least KeySize bytes of
// secret randomness.
func New(key []byte) (*Sealer, error) {
	if len(key) < KeySize {
		return nil, fmt.Errorf("seal: a key of %d bytes; at least %d are required", len(key), KeySize)
	}
	return &Sealer{key: append([]byte(nil), key...)}, nil
}

func (s *Sealer) tag(purpose string, payload []byte) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(purpose))
	m.Write([]byte{0})
	m.Write(payload)
	return m.Sum(nil)[:tagSize]
}

// Seal returns the token of payload for purpose. It panics if payload is
// longer than MaxPayload: that is a programming error, not input.
func (s *Sealer) Seal(purpose string, payload []byte) string {
	if len(payload) > MaxPayload {
		panic("seal: payload over MaxPayload")
	}
	b := append(append(make([]byte, 0, len(payload)+tagSize), payload...), s.tag(purpose, payload)...)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Open returns the payload of a token sealed for purpose, or ErrInvalid.
func (s *Sealer) Open(purpose, token string) ([]byte, error) {
	if len(token) > base64.RawURLEncoding.EncodedLen(MaxPayload+tagSize) {
		return nil, ErrInvalid
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(token)
	if err != nil || len(b) < tagSize {
		return nil, ErrInvalid
	}
	payload, tag := b[:len(b)-tagSize], b[len(b)-tagSize:]
	if !hmac.Equal(tag, s.tag(purpose, payload)) {
		return nil, ErrInvalid
	}
	return payload, nil
}
