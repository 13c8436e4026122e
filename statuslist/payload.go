package statuslist

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/remnant/passportkit/internal/cjson"
	"github.com/remnant/passportkit/passport"
)

// Typ is the JWS typ of a status list token, and MediaType the media type
// it is served as.
const (
	Typ       = "statuslist+jwt"
	MediaType = "application/statuslist+jwt"
)

// Payload is the payload of a status list token: the JWT claims of the
// draft's JWT form, as passportkit writes them.
type Payload struct {
	// Exp is when the token expires, in Unix seconds.
	Exp int64 `json:"exp"`
	// Iat is when the token was issued, in Unix seconds.
	Iat int64 `json:"iat"`
	// Iss is the issuer, as passports name it.
	Iss string `json:"iss"`
	// StatusList is the list itself.
	StatusList Encoded `json:"status_list"`
	// Sub is the list's URI: the uri of the passports' status references.
	Sub string `json:"sub"`
	// TTL is how long, in seconds, a reader may use the token before
	// fetching it again; at least 1.
	TTL int64 `json:"ttl"`
}

// Encoded is a list as the status_list claim carries it: its bits and its
// lst ([List.Encode], [Decode]).
type Encoded struct {
	Bits int    `json:"bits"`
	Lst  string `json:"lst"`
}

// Why a member of a payload is refused, in a [*PayloadError].
var (
	// ErrMemberUnknown: a member the payload does not have.
	ErrMemberUnknown = errors.New("not allowed")
	// ErrMemberMissing: a required member is absent.
	ErrMemberMissing = errors.New("missing")
	// ErrMemberInvalid: a member of the wrong type or out of range.
	ErrMemberInvalid = errors.New("invalid")
)

// PayloadError is a refused payload: the member at fault and why.
type PayloadError struct {
	// Member is the member's path, such as "ttl" or "status_list.bits";
	// empty when the fault is the document's (then Err is a
	// [*passport.Error] with a json_* reason, or [ErrMemberInvalid] for a
	// document that is not an object).
	Member string
	// Err is [ErrMemberUnknown], [ErrMemberMissing] or [ErrMemberInvalid]
	// with a detail, or the JSON refusal.
	Err error
}

// Error says which member was refused and why.
func (e *PayloadError) Error() string {
	if e.Member == "" {
		return "statuslist: payload: " + e.Err.Error()
	}
	return fmt.Sprintf("statuslist: payload member %q: %v", e.Member, e.Err)
}

// Unwrap returns the cause.
func (e *PayloadError) Unwrap() error { return e.Err }

// MarshalPayload returns p as canonical JSON (RFC 8785). It refuses, as
// [ParsePayload] would, a payload that ParsePayload would not read back.
func MarshalPayload(p Payload) ([]byte, error) {
	b, err := passport.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("statuslist: payload: %w", err)
	}
	if _, err := ParsePayload(b); err != nil {
		return nil, err
	}
	return b, nil
}

// ParsePayload reads a status list token's payload. It requires canonical
// JSON (RFC 8785 under SPEC.md §2's guards) holding exactly exp, iat, iss,
// status_list (exactly bits and lst), sub and ttl: exp and iat
// non-negative integers, iss, sub and lst non-empty strings, bits 1, 2, 4
// or 8, ttl a positive integer. Members are checked in document order and
// missing ones after; every refusal is a [*PayloadError]. It neither
// checks a signature nor decodes lst: give it the payload of a token whose
// signature has been verified, then [Decode] the list.
func ParsePayload(b []byte) (*Payload, error) {
	doc, err := cjson.Parse(b, cjson.Options{Canonical: true, IndexDepth: 2})
	if err != nil {
		return nil, &PayloadError{Err: passport.JSONError(err)}
	}
	var p Payload
	list := members{
		"bits": bitsField(&p.StatusList.Bits),
		"lst":  text(&p.StatusList.Lst),
	}
	err = members{
		"exp": integer(&p.Exp, 0, maxInt),
		"iat": integer(&p.Iat, 0, maxInt),
		"iss": text(&p.Iss),
		"status_list": func(v cjson.Value) error {
			return list.read(v, "status_list.")
		},
		"sub": text(&p.Sub),
		"ttl": integer(&p.TTL, 1, maxInt),
	}.read(doc.Root(), "")
	if err != nil {
		return nil, err
	}
	return &p, nil
}

// maxInt is the largest integer SPEC.md §2 admits.
const maxInt = 1<<53 - 1

func invalid(member, detail string) *PayloadError {
	return &PayloadError{Member: member, Err: fmt.Errorf("%w: %s", ErrMemberInvalid, detail)}
}

// members reads an object: each member's reader checks and stores its
// value, returning a detail or a nested *PayloadError.
type members map[string]func(cjson.Value) error

// read reads obj's members in document order, refusing a member without a
// reader, and then a reader without a member, in name order.
func (m members) read(obj cjson.Value, prefix string) error {
	if obj.Kind() != cjson.Object {
		if prefix == "" {
			return &PayloadError{Err: fmt.Errorf("%w: the payload must be an object", ErrMemberInvalid)}
		}
		return invalid(prefix[:len(prefix)-1], "must be an object")
	}
	for k, v := range obj.Members() {
		name, _ := k.Text()
		read, ok := m[name]
		if !ok {
			return &PayloadError{Member: prefix + name, Err: ErrMemberUnknown}
		}
		if err := read(v); err != nil {
			if pe := (*PayloadError)(nil); errors.As(err, &pe) {
				return pe
			}
			return invalid(prefix+name, err.Error())
		}
	}
	for _, name := range slices.Sorted(maps.Keys(m)) {
		if _, ok := obj.Get(name); !ok {
			return &PayloadError{Member: prefix + name, Err: ErrMemberMissing}
		}
	}
	return nil
}

// integer reads an integer in [lo, hi] into dst.
func integer(dst *int64, lo, hi int64) func(cjson.Value) error {
	return func(v cjson.Value) error {
		n, ok := v.Int()
		if !ok || n < lo || n > hi {
			return fmt.Errorf("must be an integer from %d to %d", lo, hi)
		}
		*dst = n
		return nil
	}
}

// bitsField reads a list's bits: 1, 2, 4 or 8.
func bitsField(dst *int) func(cjson.Value) error {
	return func(v cjson.Value) error {
		n, ok := v.Int()
		if !ok || n > 8 || !validBits(int(n)) {
			return errors.New("must be 1, 2, 4 or 8")
		}
		*dst = int(n)
		return nil
	}
}

// text reads a non-empty string into dst.
func text(dst *string) func(cjson.Value) error {
	return func(v cjson.Value) error {
		s, ok := v.Text()
		if !ok || s == "" {
			return errors.New("must be a non-empty string")
		}
		*dst = s
		return nil
	}
}
