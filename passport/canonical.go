package passport

import (
	"encoding/json"
	"fmt"

	"github.com/remnant/passportkit/internal/cjson"
)

// Canonicalize returns the RFC 8785 canonical form of a strict I-JSON
// document. It refuses duplicate member names, invalid UTF-8, lone
// surrogates, integers beyond ±(2^53−1), nesting deeper than 32 and trailing
// data with an *Error carrying a json_* Reason; the result always passes CheckCanonical.
func Canonicalize(in []byte) ([]byte, error) {
	out, err := cjson.Canonicalize(in)
	if err != nil {
		return nil, JSONError(err)
	}
	return out, nil
}

// CheckCanonical reports whether b is a strict I-JSON document already in
// RFC 8785 canonical form, byte for byte. A refusal is an *Error.
func CheckCanonical(b []byte) error {
	if _, err := cjson.Parse(b, cjson.Options{Canonical: true, IndexDepth: 1}); err != nil {
		return JSONError(err)
	}
	return nil
}

// CheckStrict reports whether b is strict I-JSON under the passportkit
// guards, in any layout. A refusal is an *Error.
func CheckStrict(b []byte) error {
	if _, err := cjson.Parse(b, cjson.Options{IndexDepth: 1}); err != nil {
		return JSONError(err)
	}
	return nil
}

// Marshal returns the canonical JSON encoding of v: encoding/json's output
// put into RFC 8785 form under the same guards as Canonicalize.
func Marshal(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("passport: marshal: %w", err)
	}
	return Canonicalize(b)
}
