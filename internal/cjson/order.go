package cjson

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// AppendNumber appends the ECMAScript (RFC 8785) form of f, which must be
// finite.
func AppendNumber(dst []byte, f float64) []byte {
	if f == 0 {
		return append(dst, '0')
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	if f >= 1e-6 && f < 1e21 {
		return strconv.AppendFloat(dst, f, 'f', -1, 64)
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, 'e', -1, 64)
	// Go writes "1e+09"; ECMAScript writes "1e+9".
	for i := start; i < len(dst); i++ {
		if dst[i] == 'e' && i+2 < len(dst) && dst[i+2] == '0' {
			return append(dst[:i+2], dst[i+3:]...)
		}
	}
	return dst
}

// compareKeys orders two raw (still escaped) member names by their UTF-16
// code units, as RFC 8785 sorts them. It does not allocate.
func compareKeys(a, b []byte) int {
	// One pass over the common prefix. While no escape has begun and the
	// first difference is between bytes below 0xEE, UTF-8 byte order is
	// UTF-16 order; otherwise compare code units.
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		x, y := a[i], b[i]
		if x == '\\' {
			return compareUnits(a, b)
		}
		if x != y {
			if x >= 0xEE || y >= 0xEE || y == '\\' {
				return compareUnits(a, b)
			}
			if x < y {
				return -1
			}
			return 1
		}
	}
	switch {
	case len(a) < len(b):
		return -1
	case len(a) > len(b):
		return 1
	}
	return 0
}

// compareUnits compares names by their UTF-16 code units, decoding escapes.
func compareUnits(a, b []byte) int {
	ra, rb := unitReader{s: a}, unitReader{s: b}
	for {
		ua, okA := ra.next()
		ub, okB := rb.next()
		switch {
		case !okA && !okB:
			return 0
		case !okA:
			return -1
		case !okB:
			return 1
		case ua != ub:
			if ua < ub {
				return -1
			}
			return 1
		}
	}
}

// unitReader yields the UTF-16 code units of a checked, still escaped string.
type unitReader struct {
	s       []byte
	i       int
	pending uint16 // the low half of a surrogate pair from UTF-8 input
}

func (r *unitReader) next() (uint16, bool) {
	if r.pending != 0 {
		u := r.pending
		r.pending = 0
		return u, true
	}
	if r.i >= len(r.s) {
		return 0, false
	}
	c := r.s[r.i]
	if c == '\\' {
		e := r.s[r.i+1]
		r.i += 2
		switch e {
		case 'b':
			return '\b', true
		case 'f':
			return '\f', true
		case 'n':
			return '\n', true
		case 'r':
			return '\r', true
		case 't':
			return '\t', true
		case 'u':
			u, _ := hex4(r.s, r.i)
			r.i += 4
			return u, true
		default:
			return uint16(e), true
		}
	}
	if c < utf8.RuneSelf {
		r.i++
		return uint16(c), true
	}
	ru, size := utf8.DecodeRune(r.s[r.i:])
	r.i += size
	if ru >= 0x10000 {
		hi, lo := utf16.EncodeRune(ru)
		r.pending = uint16(lo)
		return uint16(hi), true
	}
	return uint16(ru), true
}

// decodeString decodes the inside of a string the parser has already checked.
func decodeString(s []byte) string {
	plainOnly := true
	for _, c := range s {
		if c == '\\' {
			plainOnly = false
			break
		}
	}
	if plainOnly {
		return string(s)
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			out = append(out, s[i])
			i++
			continue
		}
		switch s[i+1] {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			u, _ := hex4(s, i+2)
			r := rune(u)
			if u >= 0xD800 && u <= 0xDBFF {
				lo, _ := hex4(s, i+8)
				r = utf16.DecodeRune(r, rune(lo))
				i += 6
			}
			out = utf8.AppendRune(out, r)
			i += 6
			continue
		default: // '"', '\\', '/'
			out = append(out, s[i+1])
		}
		i += 2
	}
	return string(out)
}

// quoteKey renders a raw member name for an error message, bounded.
func quoteKey(k []byte) string {
	if len(k) > 64 {
		return strconv.Quote(string(k[:64])) + "…"
	}
	return strconv.Quote(string(k))
}
