// Package seal makes opaque, tamper-evident tokens, such as the cursors of
// paginated listings: a payload the server chose, authenticated with a
// server-side key, so that a client can hand it back but cannot forge or
// alter it.
//
// A token is the unpadded base64url encoding of the payload followed by the
// first 16 bytes of HMAC-SHA256(key, purpose || 0x00 || payload). The
// purpose separates the tokens of different listings: a token sealed for
// one is refused by every other. Such tokens are not encrypted; their
// payload must hold nothing the client may not see.
//
// A hidden token ([Sealer.SealHidden]) also hides its payload, for one that
// holds internal keys: it is the unpadded base64url encoding of a
// synthetic IV, the first 16 bytes of HMAC-SHA256(key, purpose || 0x01 ||
// payload), followed by the payload encrypted with AES-256 in counter
// mode, the counter block starting at the IV, under the key
// HMAC-SHA256(key, purpose || 0x02). This is the SIV construction with
// HMAC as its PRF: deterministic (one payload, one token), refused when
// altered, and readable only with the key. Purposes hold no control
// character.
package seal

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
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

// The bytes that separate a purpose from what follows it in an HMAC
// input: a plain token's tag, a hidden token's IV, a hidden token's
// encryption key.
const (
	plainTag  = 0x00
	hiddenIV  = 0x01
	hiddenKey = 0x02
)

func (s *Sealer) mac(purpose string, sep byte, payload []byte) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(purpose))
	m.Write([]byte{sep})
	m.Write(payload)
	return m.Sum(nil)
}

func (s *Sealer) tag(purpose string, payload []byte) []byte {
	return s.mac(purpose, plainTag, payload)[:tagSize]
}

// crypt encrypts or decrypts b in place for purpose, in counter mode from
// iv.
func (s *Sealer) crypt(purpose string, iv, b []byte) {
	block, err := aes.NewCipher(s.mac(purpose, hiddenKey, nil))
	if err != nil {
		panic(err) // the key is 32 bytes
	}
	cipher.NewCTR(block, iv).XORKeyStream(b, b)
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
	b, err := decode(token)
	if err != nil {
		return nil, err
	}
	payload, tag := b[:len(b)-tagSize], b[len(b)-tagSize:]
	if !hmac.Equal(tag, s.tag(purpose, payload)) {
		return nil, ErrInvalid
	}
	return payload, nil
}

// SealHidden returns the hidden token of payload for purpose: its payload
// is encrypted as well as authenticated. It panics if payload is longer
// than MaxPayload.
func (s *Sealer) SealHidden(purpose string, payload []byte) string {
	if len(payload) > MaxPayload {
		panic("seal: payload over MaxPayload")
	}
	iv := s.mac(purpose, hiddenIV, payload)[:tagSize]
	b := append(append(make([]byte, 0, tagSize+len(payload)), iv...), payload...)
	s.crypt(purpose, iv, b[tagSize:])
	return base64.RawURLEncoding.EncodeToString(b)
}

// OpenHidden returns the payload of a hidden token sealed for purpose, or
// ErrInvalid.
func (s *Sealer) OpenHidden(purpose, token string) ([]byte, error) {
	b, err := decode(token)
	if err != nil {
		return nil, err
	}
	iv, payload := b[:tagSize], b[tagSize:]
	s.crypt(purpose, iv, payload)
	if !hmac.Equal(iv, s.mac(purpose, hiddenIV, payload)[:tagSize]) {
		return nil, ErrInvalid
	}
	return payload, nil
}

// decode reads a token's bytes: strict unpadded base64url of at most
// MaxPayload bytes and a tag, checked for length before it is decoded. A
// line break, which the decoder would skip, is refused, so that one token
// has one text.
func decode(token string) ([]byte, error) {
	if len(token) > base64.RawURLEncoding.EncodedLen(MaxPayload+tagSize) || strings.ContainsAny(token, "\r\n") {
		return nil, ErrInvalid
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(token)
	if err != nil || len(b) < tagSize {
		return nil, ErrInvalid
	}
	return b, nil
}
