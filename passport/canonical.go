package passport

import (
	"encoding/json"
	"fmt"

	"github.com/gowebpki/jcs"
)

// Marshal returns the canonical JSON (RFC 8785) encoding of v.
func Marshal(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("passport: marshal: %w", err)
	}
	out, err := jcs.Transform(b)
	if err != nil {
		return nil, fmt.Errorf("passport: canonicalize: %w", err)
	}
	return out, nil
}
