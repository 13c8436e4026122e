package passport

import (
	"encoding/base64"
	"slices"
	"strconv"
	"strings"
)

// Limits of the members version 0.2 added (SPEC.md §3).
const (
	// MaxHolderKeys is the most holder keys a passport's cnf names.
	MaxHolderKeys = 4
	// MaxStatusURILen bounds the uri of a status reference, in bytes.
	MaxStatusURILen = 2048
	// maxJSONInt is the largest integer a passport writes (SPEC.md §2).
	maxJSONInt = 1<<53 - 1
)

// HasClaims reports whether a passport of passportVersion version carries
// what version 0.2 added: the optional cnf and status members and the JWT
// claims of the signed payload ([Claims]). It holds for 0.2 and every later
// minor version of major version 0, since minor versions only add members;
// not for 0.0 or 0.1, nor for a version [CheckVersion] refuses.
func HasClaims(version string) bool {
	major, minor, ok := strings.Cut(version, ".")
	if major != "0" || !ok || !isDigits(minor) {
		return false
	}
	n, err := strconv.Atoi(minor)
	return err == nil && n >= 2
}

// Claims are the JWT claims (RFC 7519) that the signed payload of a passport
// of version 0.2 or later carries beside passport and passportHash, so that
// a generic JOSE library checks the issuer, the subject and the lifetime.
// Each mirrors a member of the passport; Status is present exactly when the
// passport has a status member.
type Claims struct {
	// Issuer is the passport's issuer.
	Issuer string `json:"iss"`
	// Subject is the passport's subject.id.
	Subject string `json:"sub"`
	// IssuedAt and NotBefore are issuedAt, in Unix seconds.
	IssuedAt  int64 `json:"iat"`
	NotBefore int64 `json:"nbf"`
	// Expiry is expiresAt, in Unix seconds.
	Expiry int64 `json:"exp"`
	// Status is the passport's status member, byte for byte.
	Status *StatusRef `json:"status,omitempty"`
}

// ClaimsOf returns the claims the signed payload of p carries when p's
// version has them.
func ClaimsOf(p *Passport) Claims {
	return Claims{
		Issuer: p.Issuer, Subject: p.Subject.ID,
		IssuedAt: p.IssuedAt.Unix(), NotBefore: p.IssuedAt.Unix(), Expiry: p.ExpiresAt.Unix(),
		Status: p.Status,
	}
}

// claimsSnapshotFor wraps a canonical passport body with the claims of p,
// member by member in canonical order: exp, iat, iss, nbf, passport,
// passportHash, status, sub.
func claimsSnapshotFor(p *Passport, body []byte) ([]byte, error) {
	c := ClaimsOf(p)
	iss, err := Marshal(c.Issuer)
	if err != nil {
		return nil, err
	}
	sub, err := Marshal(c.Subject)
	if err != nil {
		return nil, err
	}
	var status []byte
	if c.Status != nil {
		if status, err = Marshal(c.Status); err != nil {
			return nil, err
		}
	}
	out := make([]byte, 0, len(body)+len(iss)+len(sub)+len(status)+192)
	out = append(out, `{"exp":`...)
	out = strconv.AppendInt(out, c.Expiry, 10)
	out = append(out, `,"iat":`...)
	out = strconv.AppendInt(out, c.IssuedAt, 10)
	out = append(out, `,"iss":`...)
	out = append(out, iss...)
	out = append(out, `,"nbf":`...)
	out = strconv.AppendInt(out, c.NotBefore, 10)
	out = append(out, ',')
	out = append(out, snapshotFor(body)[1:]...)
	out = out[:len(out)-1] // the closing brace of the snapshot
	if status != nil {
		out = append(out, `,"status":`...)
		out = append(out, status...)
	}
	out = append(out, `,"sub":`...)
	out = append(out, sub...)
	return append(out, '}'), nil
}

// validateBinding checks the members version 0.2 added: absent before it,
// well formed from it on.
func (p *Passport) validateBinding() error {
	if !HasClaims(p.PassportVersion) {
		if p.Cnf != nil || p.Status != nil {
			return errorf(ReasonFieldInvalid, "cnf and status need passportVersion 0.2 or later")
		}
		return nil
	}
	if p.Cnf != nil {
		if err := p.Cnf.Validate(); err != nil {
			return err
		}
	}
	if p.Status != nil {
		return p.Status.Validate()
	}
	return nil
}

// thumbprintLen is the length of a base64url SHA-256 digest.
const thumbprintLen = 43

// Validate checks c as SPEC.md §3 requires: one to MaxHolderKeys
// thumbprints, each the 43 base64url characters of a SHA-256 digest,
// distinct and in increasing byte order. A refusal is an *Error with
// ReasonFieldInvalid.
func (c *Confirmation) Validate() error {
	if n := len(c.JKTs); n < 1 || n > MaxHolderKeys {
		return errorf(ReasonFieldInvalid, "cnf.jkts holds %d thumbprints; it holds 1 to %d", n, MaxHolderKeys)
	}
	for i, t := range c.JKTs {
		if len(t) != thumbprintLen {
			return errorf(ReasonFieldInvalid, "cnf.jkts[%d] is not a base64url SHA-256 thumbprint", i)
		}
		if _, err := b64url.DecodeString(t); err != nil {
			return errorf(ReasonFieldInvalid, "cnf.jkts[%d] is not a base64url SHA-256 thumbprint", i)
		}
		if i > 0 && c.JKTs[i-1] >= t {
			return errorf(ReasonFieldInvalid, "cnf.jkts must be distinct and in byte order")
		}
	}
	return nil
}

// b64url is base64url without padding, refusing stray bits.
var b64url = base64.RawURLEncoding.Strict()

// Validate checks s as SPEC.md §3 requires: idx an integer from 0 to
// 2^53−1 and uri an https URL of a status list (http only on a loopback
// host). A refusal is an *Error with ReasonFieldInvalid.
func (s *StatusRef) Validate() error {
	if idx := s.StatusList.Idx; idx < 0 || idx > maxJSONInt {
		return errorf(ReasonFieldInvalid, "status.status_list.idx must be an integer from 0 to 2^53-1")
	}
	if err := checkStatusURI(s.StatusList.URI); err != nil {
		return errorf(ReasonFieldInvalid, "status.status_list.uri %s", err.Detail)
	}
	return nil
}

// loopbackHosts are the hosts a status list may be served from over plain
// http.
var loopbackHosts = []string{"localhost", "127.0.0.1", "[::1]"}

// checkStatusURI checks the narrow URL form SPEC.md §3 gives a status list's
// uri. The detail of a refusal reads after the member's name.
func checkStatusURI(u string) *Error {
	if len(u) > MaxStatusURILen {
		return errorf(ReasonFieldInvalid, "is longer than %d bytes", MaxStatusURILen)
	}
	for i := 0; i < len(u); i++ {
		c := u[i]
		switch {
		case c < 0x21 || c > 0x7e || strings.IndexByte("\"<>\\^`{|}#", c) >= 0:
			return errorf(ReasonFieldInvalid, "holds a character outside the URL form (or a fragment)")
		case c == '%' && (i+2 >= len(u) || !isHex(u[i+1]) || !isHex(u[i+2])):
			return errorf(ReasonFieldInvalid, "holds a %% not followed by two hex digits")
		}
	}
	rest, secure := strings.CutPrefix(u, "https://")
	if !secure {
		var ok bool
		if rest, ok = strings.CutPrefix(u, "http://"); !ok {
			return errorf(ReasonFieldInvalid, "must begin with https:// (or http:// on a loopback host)")
		}
	}
	authority := rest
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		authority = rest[:i]
	}
	host, port := authority, ""
	if strings.HasPrefix(authority, "[") {
		if i := strings.IndexByte(authority, ']'); i >= 0 {
			host, port = authority[:i+1], authority[i+1:]
		}
	} else if i := strings.IndexByte(authority, ':'); i >= 0 {
		host, port = authority[:i], authority[i:]
	}
	switch {
	case host == "" || host == "[]" || strings.Contains(authority, "@") || (host[0] == '[' && host[len(host)-1] != ']'):
		return errorf(ReasonFieldInvalid, "must name a host, without user information")
	case port != "" && (port[0] != ':' || len(port) < 2 || len(port) > 6 || !allDigits(port[1:])):
		return errorf(ReasonFieldInvalid, "has a port that is not 1 to 5 digits")
	case !secure && !slices.Contains(loopbackHosts, host):
		return errorf(ReasonFieldInvalid, "may use http:// only on localhost, 127.0.0.1 or [::1]")
	}
	return nil
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
