package statuslist

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
)

// The status values of a two-bit list (the draft's Status Types).
const (
	// Valid: the passport stands.
	Valid uint8 = 0
	// Invalid: the passport is revoked, for good.
	Invalid uint8 = 1
	// Suspended: the passport is suspended and may be reinstated.
	Suspended uint8 = 2
	// Reserved: not written by an issuer; a reader reports it as unknown.
	Reserved uint8 = 3
)

// MaxBytes is the largest decompressed array a verifier accepts (2^24
// bytes: 2^26 two-bit entries) and the largest list [New] makes.
const MaxBytes = 1 << 24

// Errors of the list and its lst encoding. [Decode]'s are wrapped with a
// detail; compare with errors.Is.
var (
	// ErrBits: bits is not 1, 2, 4 or 8.
	ErrBits = errors.New("statuslist: bits must be 1, 2, 4 or 8")
	// ErrSize: a new list would hold no entry or more than MaxBytes bytes.
	ErrSize = errors.New("statuslist: size out of range")
	// ErrIndex: an index outside the list.
	ErrIndex = errors.New("statuslist: index out of range")
	// ErrValue: a value that does not fit in the list's bits.
	ErrValue = errors.New("statuslist: value does not fit in bits")
	// ErrMalformed: lst is not strict base64url of one zlib stream of a
	// non-empty array.
	ErrMalformed = errors.New("statuslist: lst malformed")
	// ErrTooLarge: the decompressed array is larger than allowed.
	ErrTooLarge = errors.New("statuslist: list too large")
)

// List is a status list: one value of Bits bits per entry, packed into a
// byte array as the draft lays it out. The zero List is not usable; make
// one with [New] or [Decode]. A List is not safe for concurrent writes.
type List struct {
	bits int
	b    []byte
}

// New returns a list of at least size entries of the given bits, every
// entry [Valid]. The array is rounded up to whole bytes, so [List.Len] may
// exceed size by fewer than 8/bits entries.
func New(bits, size int) (*List, error) {
	if !validBits(bits) {
		return nil, ErrBits
	}
	if size < 1 || size > MaxBytes*(8/bits) {
		return nil, fmt.Errorf("%w: %d entries of %d bits", ErrSize, size, bits)
	}
	return &List{bits: bits, b: make([]byte, (size*bits+7)/8)}, nil
}

func validBits(bits int) bool {
	return bits == 1 || bits == 2 || bits == 4 || bits == 8
}

// Bits returns the number of bits per entry.
func (l *List) Bits() int { return l.bits }

// Len returns the number of entries the array holds.
func (l *List) Len() int { return len(l.b) * 8 / l.bits }

// locate returns the byte holding entry i, the entry's shift in that byte
// and the mask of its bits before shifting.
func (l *List) locate(i int) (int, uint, uint8, error) {
	if i < 0 || i >= l.Len() {
		return 0, 0, 0, fmt.Errorf("%w: %d not in [0, %d)", ErrIndex, i, l.Len())
	}
	per := 8 / l.bits
	return i / per, uint((i % per) * l.bits), uint8(1<<l.bits - 1), nil
}

// Get returns the value of entry i.
func (l *List) Get(i int) (uint8, error) {
	at, shift, mask, err := l.locate(i)
	if err != nil {
		return 0, err
	}
	return l.b[at] >> shift & mask, nil
}

// Set writes v into entry i.
func (l *List) Set(i int, v uint8) error {
	at, shift, mask, err := l.locate(i)
	if err != nil {
		return err
	}
	if v > mask {
		return fmt.Errorf("%w: %d in %d bits", ErrValue, v, l.bits)
	}
	l.b[at] = l.b[at]&^(mask<<shift) | v<<shift
	return nil
}

// b64 is unpadded base64url, refusing non-zero trailing bits.
var b64 = base64.RawURLEncoding.Strict()

// Encode returns the list's lst: the array compressed with zlib at the
// best compression level, as unpadded base64url. The same list always
// encodes to the same string.
func (l *List) Encode() (string, error) {
	var buf bytes.Buffer
	w, err := zlib.NewWriterLevel(&buf, zlib.BestCompression)
	if err != nil {
		return "", fmt.Errorf("statuslist: encode: %w", err)
	}
	if _, err := w.Write(l.b); err != nil {
		return "", fmt.Errorf("statuslist: encode: %w", err)
	}
	if err := w.Close(); err != nil {
		return "", fmt.Errorf("statuslist: encode: %w", err)
	}
	return b64.EncodeToString(buf.Bytes()), nil
}

// Decode reads a list of the given bits from its lst. It refuses, with
// [ErrMalformed], base64url that is padded, holds a character outside the
// alphabet (a line break too) or has non-zero trailing bits, and a zlib
// stream that is broken, fails its checksum, uses a preset dictionary, is
// followed by any byte or holds no byte; with [ErrTooLarge], an array of
// more than maxBytes bytes, decompressing no further than that; and with
// [ErrBits], bits other than 1, 2, 4 and 8.
func Decode(bits int, lst string, maxBytes int) (*List, error) {
	if !validBits(bits) {
		return nil, ErrBits
	}
	if strings.ContainsAny(lst, "\r\n") {
		return nil, fmt.Errorf("%w: a line break in base64url", ErrMalformed)
	}
	z, err := b64.DecodeString(lst)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	b, err := inflate(z, maxBytes)
	if err != nil {
		return nil, err
	}
	return &List{bits: bits, b: b}, nil
}

// inflate decompresses exactly one zlib stream of at most maxBytes
// non-empty bytes filling z.
func inflate(z []byte, maxBytes int) ([]byte, error) {
	r := bytes.NewReader(z)
	zr, err := zlib.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	limit := int64(max(maxBytes, 0))
	if limit < math.MaxInt64 {
		limit++ // one byte more tells a list too large
	}
	b, err := io.ReadAll(io.LimitReader(zr, limit))
	switch {
	case err != nil:
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	case len(b) > maxBytes:
		return nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, maxBytes)
	case len(b) == 0:
		return nil, fmt.Errorf("%w: an empty array", ErrMalformed)
	case r.Len() > 0:
		// The deflate reader takes bytes one at a time from a
		// bytes.Reader, so what is left follows the stream's checksum.
		return nil, fmt.Errorf("%w: %d bytes after the zlib stream", ErrMalformed, r.Len())
	}
	return b, nil
}
