package issuer

import (
	"encoding/base64"
	"encoding/binary"
	"math"
)

// Cursor is an opaque, stable position in a journal listed newest first:
// a page that starts after it holds the entries older than the last entry
// of the page that returned it, whatever was appended since. Its text form
// is 11 characters of unpadded base64url.
type Cursor struct{ id int64 }

// CursorAfter returns the cursor after the journal entry with key id. The
// store calls it; clients only pass cursors back.
func CursorAfter(id int64) Cursor { return Cursor{id: id} }

// ID returns the key of the entry the cursor follows, 0 for the start.
func (c Cursor) ID() int64 { return c.id }

// IsZero reports whether c is the start of the journal.
func (c Cursor) IsZero() bool { return c.id == 0 }

// String returns the cursor's text form, "" for the start.
func (c Cursor) String() string {
	if c.id == 0 {
		return ""
	}
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(c.id))
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// MarshalText encodes the cursor's text form.
func (c Cursor) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// ParseCursor checks a cursor's text form: exactly 11 characters of
// unpadded base64url naming a positive position.
func ParseCursor(s string) (Cursor, error) {
	bad := Errorf(CodeCursorInvalid, "cursor is not one this service returned")
	if len(s) != 11 {
		return Cursor{}, bad
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil || len(b) != 8 {
		return Cursor{}, bad
	}
	id := binary.BigEndian.Uint64(b)
	if id == 0 || id > math.MaxInt64 {
		return Cursor{}, bad
	}
	return Cursor{id: int64(id)}, nil
}
