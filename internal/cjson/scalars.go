package cjson

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"strconv"
	"unicode/utf8"
)

func (p *parser) literal(i int, word string) (int, error) {
	if len(p.src)-i < len(word) || string(p.src[i:i+len(word)]) != word {
		return i, p.failAt(i, CodeSyntax, "invalid literal")
	}
	return i + len(word), nil
}

// plain marks the bytes a string may hold without an escape and without
// UTF-8 decoding: printable ASCII other than '"' and '\\'.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// longPlain skips plain bytes from i, in the middle of a long plain run:
// it finds the next quote with the vectorised bytes.IndexByte and checks
// the bytes before it 32 at a time, stopping at the first 32 that hold one
// that is not plain. The caller finds that byte. The quote's position is
// kept, so that a long string broken by many escapes is searched once, not
// once per escape, and the work stays linear.
func (p *parser) longPlain(i int) int {
	src := p.src
	if p.quote < i {
		p.quote = len(src)
		if q := bytes.IndexByte(src[i:], '"'); q >= 0 {
			p.quote = i + q
		}
	}
	for end := p.quote; i+32 <= end; i += 32 {
		w := src[i : i+32 : i+32]
		if stopBytes(binary.LittleEndian.Uint64(w))|stopBytes(binary.LittleEndian.Uint64(w[8:]))|
			stopBytes(binary.LittleEndian.Uint64(w[16:]))|stopBytes(binary.LittleEndian.Uint64(w[24:])) != 0 {
			break
		}
	}
	return i
}

// stopBytes is zero when each of the eight bytes of x, read little-endian,
// is plain, and otherwise its lowest set bit is the high bit of the first
// byte that is not. A byte b is caught by x itself when it is above 0x7F;
// below that, by x−0x20 when it is a control character, and by the
// differences with a quote and a backslash when it is one of them. Higher
// bits may be set spuriously, by borrows, which only a caught byte starts
// and which reach only later bytes.
func stopBytes(x uint64) uint64 {
	const ones, high = 0x0101010101010101, 0x8080808080808080
	return (x | (x - ones*0x20) | ((x ^ (ones * '"')) - ones) | ((x ^ (ones * '\\')) - ones)) & high
}

// shortString returns the position after the string at i (an opening
// quote) when it holds only plain bytes and ends within nine words, as a
// hash in hex does, and otherwise 0, leaving the string to p.string. It is
// small enough to inline: most names and values are such strings, and the
// loop of run keeps its state in registers while it calls nothing.
func shortString(src []byte, i int) int {
	for j, end := i+1, min(len(src), i+73); j+8 <= end; j += 8 {
		if m := stopBytes(binary.LittleEndian.Uint64(src[j:])); m != 0 {
			if j += bits.TrailingZeros64(m) >> 3; src[j] != '"' {
				break
			}
			return j + 1
		}
	}
	return 0
}

// string checks the string at i (an opening quote) and returns the position
// after its closing quote.
func (p *parser) string(i int) (int, error) {
	src := p.src
	i++
	for {
		// Skip plain bytes eight a word, so that the short strings of
		// names and values cost a word or two each; the first word that
		// holds a byte that is not plain says which. A long run, such
		// as a credential, goes to longPlain.
		for n := 0; ; n++ {
			if i+8 > len(src) {
				for i < len(src) && plain[src[i]] {
					i++
				}
				break
			}
			if m := stopBytes(binary.LittleEndian.Uint64(src[i : i+8 : i+8])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			if i += 8; n == 32 {
				i, n = p.longPlain(i), 0
			}
		}
		if i >= len(src) {
			return i, p.failAt(i, CodeSyntax, "unterminated string")
		}
		switch c := src[i]; {
		case c == '"':
			return i + 1, nil
		case c == '\\':
			n, err := p.escape(i)
			if err != nil {
				return i, err
			}
			i += n
		case c < 0x20:
			return i, p.failAt(i, CodeSyntax, "control character in string")
		default:
			r, size := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && size <= 1 {
				return i, p.failAt(i, CodeInvalidUTF8, "invalid UTF-8")
			}
			i += size
		}
	}
}

// escape checks the escape sequence at src[i] ('\\') and returns its length.
func (p *parser) escape(i int) (int, error) {
	src := p.src
	if i+1 >= len(src) {
		return 0, p.failAt(i, CodeSyntax, "unterminated escape")
	}
	switch src[i+1] {
	case '"', '\\', 'b', 'f', 'n', 'r', 't':
		return 2, nil
	case '/':
		if p.opt.Canonical {
			return 0, p.failAt(i, CodeNotCanonical, `"\/" escape`)
		}
		return 2, nil
	case 'u':
	default:
		return 0, p.failAt(i, CodeSyntax, "invalid escape")
	}
	u, ok := hex4(src, i+2)
	if !ok {
		return 0, p.failAt(i, CodeSyntax, `invalid \u escape`)
	}
	n := 6
	switch {
	case u >= 0xD800 && u <= 0xDBFF:
		lo, ok := uint16(0), false
		if i+7 < len(src) && src[i+6] == '\\' && src[i+7] == 'u' {
			lo, ok = hex4(src, i+8)
		}
		if !ok || lo < 0xDC00 || lo > 0xDFFF {
			return 0, p.failAt(i, CodeLoneSurrogate, "lone high surrogate")
		}
		n = 12
	case u >= 0xDC00 && u <= 0xDFFF:
		return 0, p.failAt(i, CodeLoneSurrogate, "lone low surrogate")
	}
	if p.opt.Canonical {
		// RFC 8785 escapes with \u only control characters that have no
		// short form, in lower-case hex.
		short := u == '\b' || u == '\f' || u == '\n' || u == '\r' || u == '\t'
		lower := true
		for _, c := range src[i+2 : i+6] {
			if c >= 'A' && c <= 'F' {
				lower = false
			}
		}
		if u >= 0x20 || short || !lower {
			return 0, p.failAt(i, CodeNotCanonical, `unneeded or non-canonical \u escape`)
		}
	}
	return n, nil
}

func hex4(src []byte, i int) (uint16, bool) {
	if i+4 > len(src) {
		return 0, false
	}
	var u uint16
	for _, c := range src[i : i+4] {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		u = u<<4 | uint16(d)
	}
	return u, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isNumberByte(c byte) bool {
	return isDigit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// shortNumber returns the position after the number at i when it is a
// short plain one, the commonest kind, and otherwise 0, leaving the number
// to p.number. A short plain number has at most 15 characters and ends
// the value: 0 or a positive integer without a leading zero, possibly with
// a fraction that does not end in 0 (nor, after "0.", begin with 0). Such
// a number is in range, and in canonical form as written (see
// plainCanonical).
func shortNumber(src []byte, i int) int {
	j := i + 1
	if src[i] != '0' {
		for j < len(src) && j-i < 16 && isDigit(src[j]) {
			j++
		}
	}
	if j < len(src) && src[j] == '.' {
		k := j + 1
		for k < len(src) && k-i < 16 && isDigit(src[k]) {
			k++
		}
		if k == j+1 || src[k-1] == '0' || src[i] == '0' && src[j+1] == '0' {
			return 0
		}
		j = k
	}
	if j-i > 15 || j >= len(src) || src[j] != ',' && src[j] != ']' && src[j] != '}' {
		return 0
	}
	return j
}

// number checks the number at i and returns the position after it.
func (p *parser) number(start int) (int, error) {
	src := p.src
	i := start
	if src[i] == '-' {
		i++
	}
	switch {
	case i < len(src) && src[i] == '0':
		i++
	case i < len(src) && src[i] >= '1' && src[i] <= '9':
		for i < len(src) && isDigit(src[i]) {
			i++
		}
	default:
		return i, p.failAt(i, CodeSyntax, "invalid number")
	}
	integer := true
	if i < len(src) && src[i] == '.' {
		integer = false
		i++
		if i >= len(src) || !isDigit(src[i]) {
			return i, p.failAt(i, CodeSyntax, "invalid number")
		}
		for i < len(src) && isDigit(src[i]) {
			i++
		}
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		integer = false
		i++
		if i < len(src) && (src[i] == '+' || src[i] == '-') {
			i++
		}
		if i >= len(src) || !isDigit(src[i]) {
			return i, p.failAt(i, CodeSyntax, "invalid number")
		}
		for i < len(src) && isDigit(src[i]) {
			i++
		}
	}
	if i < len(src) && isDigit(src[i]) { // a leading zero followed by digits
		return i, p.failAt(i, CodeSyntax, "invalid number")
	}
	tok := src[start:i]
	if integer {
		digits := tok
		if digits[0] == '-' {
			digits = digits[1:]
		}
		if len(digits) > 16 || (len(digits) == 16 && string(digits) > "9007199254740991") {
			return i, p.failAt(start, CodeNumberRange, "integer beyond ±(2^53−1)")
		}
		if p.opt.Canonical && string(tok) == "-0" {
			return i, p.failAt(start, CodeNotCanonical, "number -0")
		}
		return i, nil
	}
	if p.opt.Canonical {
		if p.opt.DeferNumbers {
			// Only the form is deferred: the range is a guard of the
			// json step (SPEC.md §11.2 step 2), checked here. A plain
			// decimal is in range and canonical: nothing to defer.
			if plainCanonical(tok) {
				return i, nil
			}
			if _, err := strconv.ParseFloat(string(tok), 64); err != nil {
				return i, p.failAt(start, CodeNumberRange, "number beyond the range of a float64")
			}
			p.floats = append(p.floats, uint32(start))
			return i, nil
		}
		return i, checkFloat(tok, start)
	}
	if _, err := strconv.ParseFloat(string(tok), 64); err != nil {
		return i, p.failAt(start, CodeNumberRange, "number beyond the range of a float64")
	}
	return i, nil
}

// checkFloat checks that tok, a number with a fraction or exponent, is the
// ECMAScript form of its value.
func checkFloat(tok []byte, offset int) error {
	if plainCanonical(tok) {
		return nil
	}
	f, err := strconv.ParseFloat(string(tok), 64)
	if err != nil {
		return &Error{Code: CodeNumberRange, Offset: offset, Msg: "number beyond the range of a float64"}
	}
	var buf [32]byte
	if string(AppendNumber(buf[:0], f)) != string(tok) {
		return &Error{Code: CodeNotCanonical, Offset: offset, Msg: fmt.Sprintf("number %s not in canonical form", tok)}
	}
	return nil
}

// plainCanonical reports, without converting, whether tok is a decimal
// that is certainly in ECMAScript form: -?(0|[1-9][0-9]*)\.[0-9]*[1-9] with
// at most 15 significant digits and a value of at least 1e-6. Such a
// decimal survives the round trip through a double, no shorter decimal
// maps to the same double, and ECMAScript writes values from 1e-6 up to
// 1e21 without an exponent, so it is its own canonical form. Anything else
// takes the slow path, which decides exactly.
func plainCanonical(tok []byte) bool {
	i := 0
	if i < len(tok) && tok[i] == '-' {
		i++
	}
	intStart := i
	for i < len(tok) && isDigit(tok[i]) {
		i++
	}
	intDigits := i - intStart
	if intDigits == 0 || (intDigits > 1 && tok[intStart] == '0') || i >= len(tok) || tok[i] != '.' {
		return false
	}
	i++
	fracStart := i
	for i < len(tok) && isDigit(tok[i]) {
		i++
	}
	frac := tok[fracStart:i]
	if i != len(tok) || len(frac) == 0 || frac[len(frac)-1] == '0' {
		return false
	}
	significant := intDigits + len(frac)
	if tok[intStart] == '0' { // 0.000ddd: leading zeros are not significant
		zeros := 0
		for zeros < len(frac) && frac[zeros] == '0' {
			zeros++
		}
		if zeros > 5 { // below 1e-6
			return false
		}
		significant = len(frac) - zeros
	}
	return significant <= 15
}
