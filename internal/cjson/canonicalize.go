package cjson

import (
	"slices"
	"strconv"
	"unicode/utf8"
)

// Canonicalize returns the RFC 8785 canonical form of a strict I-JSON
// document: the one guarded canonicaliser of the project. It refuses, with
// an *Error, what Parse refuses in strict mode (duplicate member names,
// invalid UTF-8, lone surrogates, integers beyond ±(2^53−1), nesting deeper
// than DefaultMaxDepth, trailing data), and checks its own output in
// canonical mode, so that a value such as 1e16, canonically an integer
// beyond the guard, is refused too. Whatever it returns parses in
// canonical mode.
//
// It writes from the parser's index: members sorted by the UTF-16 code
// units of their decoded names, strings decoded and written with only the
// escapes RFC 8785 requires, numbers as the ECMAScript form of their
// double (AppendNumber), literals as they are.
func Canonicalize(in []byte) ([]byte, error) {
	doc, err := Parse(in, Options{})
	if err != nil {
		return nil, err
	}
	out := appendCanonical(make([]byte, 0, len(in)), doc.Root())
	if _, err := Parse(out, Options{Canonical: true, IndexDepth: 1}); err != nil {
		return nil, err
	}
	return out, nil
}

// appendCanonical appends the canonical form of v, a value of a document
// indexed whole.
func appendCanonical(dst []byte, v Value) []byte {
	switch v.Kind() {
	case Object:
		type member struct{ name, value Value }
		var members []member
		for k, m := range v.Members() {
			members = append(members, member{k, m})
		}
		slices.SortFunc(members, func(a, b member) int {
			x, y := a.name.Raw(), b.name.Raw()
			return compareKeys(x[1:len(x)-1], y[1:len(y)-1])
		})
		dst = append(dst, '{')
		for i, m := range members {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendCanonical(dst, m.name)
			dst = append(dst, ':')
			dst = appendCanonical(dst, m.value)
		}
		return append(dst, '}')
	case Array:
		dst = append(dst, '[')
		i := 0
		for e := range v.Elements() {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendCanonical(dst, e)
			i++
		}
		return append(dst, ']')
	case String:
		s, _ := v.Text()
		return appendString(dst, s)
	case Number:
		// The parse has checked that the number is within the range of a
		// double; one that underflows is zero.
		f, _ := strconv.ParseFloat(string(v.Raw()), 64)
		return AppendNumber(dst, f)
	default: // true, false, null
		return append(dst, v.Raw()...)
	}
}

// appendString appends s, valid UTF-8, as a canonical JSON string: '"' and
// '\\' escaped, the control characters with a short escape written so, the
// others as \u00xx in lower-case hex, everything else as it is.
func appendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			_, size := utf8.DecodeRuneInString(s[i:])
			dst = append(dst, s[i:i+size]...)
			i += size
			continue
		}
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\b':
			dst = append(dst, '\\', 'b')
		case c == '\f':
			dst = append(dst, '\\', 'f')
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			dst = append(dst, c)
		}
		i++
	}
	return append(dst, '"')
}
