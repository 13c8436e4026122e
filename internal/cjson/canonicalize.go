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
		return AppendString(dst, s)
	case Number:
		// The parse has checked that the number is within the range of a
		// double; one that underflows is zero.
		f, _ := strconv.ParseFloat(string(v.Raw()), 64)
		return AppendNumber(dst, f)
	default: // true, false, null
		return append(dst, v.Raw()...)
	}
}

// AppendString appends s as an RFC 8785 string: only '"', '\\' and the
// control characters are escaped (the five with short forms as such, the
// others as lower-case \u00xx); every other character is written as UTF-8,
// and each byte of invalid UTF-8 as U+FFFD, as encoding/json writes it.
func AppendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\r':
				dst = append(dst, '\\', 'r')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\uFFFD"...)
			i++
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
