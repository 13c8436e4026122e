package cjson

// The first, recursive descent parser, kept whole as an oracle: FuzzParse
// checks that the production parser gives the same verdict, refusal code
// and index on every input.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// refParse parses src with the recursive parser.
func refParse(src []byte, opt Options) (*Doc, error) {
	p := refParser{src: src, opt: opt, maxDepth: opt.MaxDepth, indexDepth: opt.IndexDepth}
	if p.maxDepth <= 0 {
		p.maxDepth = DefaultMaxDepth
	}
	if p.indexDepth <= 0 {
		p.indexDepth = 1 << 30
	}
	if err := p.ws(); err != nil {
		return nil, err
	}
	if p.pos >= len(src) {
		return nil, p.fail(CodeSyntax, "empty document")
	}
	path := 0
	if len(opt.IndexPath) == 0 || len(opt.IndexPath) > p.indexDepth {
		path = -1
	}
	if err := p.value(0, path, false); err != nil {
		return nil, err
	}
	if p.pos < len(src) {
		if opt.Canonical {
			if isSpace(src[p.pos]) {
				return nil, p.fail(CodeTrailingData, "whitespace after the top-level value")
			}
			return nil, p.fail(CodeTrailingData, "data after the top-level value")
		}
		if err := p.ws(); err != nil {
			return nil, err
		}
		if p.pos < len(src) {
			return nil, p.fail(CodeTrailingData, "data after the top-level value")
		}
	}
	return &Doc{src: src, nodes: p.nodes, indexDepth: p.indexDepth, floats: p.floats, deepLo: p.deepLo, deepHi: p.deepHi}, nil
}

type refParser struct {
	src        []byte
	pos        int
	opt        Options
	maxDepth   int
	indexDepth int
	nodes      []node
	floats     []uint32
	keys       [][]byte // scratch for duplicate detection in strict mode
	deepLo     uint32
	deepHi     uint32
}

func (p *refParser) fail(c Code, format string, args ...any) *Error {
	return &Error{Code: c, Offset: p.pos, Msg: fmt.Sprintf(format, args...)}
}

// ws skips whitespace; in canonical mode any whitespace is an error.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (p *refParser) ws() error {
	if p.pos < len(p.src) && isSpace(p.src[p.pos]) {
		if p.opt.Canonical {
			return p.fail(CodeNotCanonical, "insignificant whitespace")
		}
		for p.pos < len(p.src) && isSpace(p.src[p.pos]) {
			p.pos++
		}
	}
	return nil
}

// value parses the value at p.pos, which sits at the given level below the
// root, and records it when that level is indexed or it lies inside the
// value at Options.IndexPath (deep). path is how many names of the path lead
// to it, or -1.
func (p *refParser) value(level, path int, deep bool) error {
	if p.pos >= len(p.src) {
		return p.fail(CodeSyntax, "unexpected end of input")
	}
	record := level <= p.indexDepth || deep
	idx := len(p.nodes)
	if record {
		p.nodes = append(p.nodes, node{start: uint32(p.pos)})
	}
	here := path == len(p.opt.IndexPath) && !deep
	c0 := p.src[p.pos]
	var err error
	switch c := c0; {
	case c == '{':
		err = p.object(level, path, deep || here)
	case c == '[':
		err = p.array(level, deep || here)
	case c == '"':
		err = p.string()
	case c == '-' || (c >= '0' && c <= '9'):
		err = p.number()
	case c == 't':
		err = p.literal("true")
	case c == 'f':
		err = p.literal("false")
	case c == 'n':
		err = p.literal("null")
	default:
		err = p.fail(CodeSyntax, "unexpected character %q", c)
	}
	if err != nil {
		return err
	}
	if record {
		p.nodes[idx].end = uint32(p.pos)
		p.nodes[idx].next = uint32(len(p.nodes))
	}
	if here && (c0 == '{' || c0 == '[') {
		p.deepLo, p.deepHi = uint32(idx), uint32(len(p.nodes))
	}
	return nil
}

func (p *refParser) literal(word string) error {
	if len(p.src)-p.pos < len(word) || string(p.src[p.pos:p.pos+len(word)]) != word {
		return p.fail(CodeSyntax, "invalid literal")
	}
	p.pos += len(word)
	return nil
}

func (p *refParser) object(level, path int, deep bool) error {
	if level+1 > p.maxDepth {
		return p.fail(CodeTooDeep, "nesting deeper than %d", p.maxDepth)
	}
	p.pos++ // '{'
	if err := p.ws(); err != nil {
		return err
	}
	if p.pos < len(p.src) && p.src[p.pos] == '}' {
		p.pos++
		return nil
	}
	keysBase := len(p.keys)
	defer func() { p.keys = p.keys[:keysBase] }()
	var seen map[string]struct{}
	var prev []byte
	var names [][]byte // canonical mode: this object's names so far
	for {
		if p.pos >= len(p.src) || p.src[p.pos] != '"' {
			return p.fail(CodeSyntax, "expected a member name")
		}
		keyStart := p.pos
		if level+1 <= p.indexDepth || deep {
			p.nodes = append(p.nodes, node{start: uint32(p.pos)})
		}
		if err := p.string(); err != nil {
			return err
		}
		if level+1 <= p.indexDepth || deep {
			n := &p.nodes[len(p.nodes)-1]
			n.end = uint32(p.pos)
			n.next = uint32(len(p.nodes))
		}
		key := p.src[keyStart+1 : p.pos-1]
		if p.opt.Canonical {
			if prev != nil {
				switch c := compareKeys(prev, key); {
				case c == 0:
					p.pos = keyStart
					return p.fail(CodeDuplicateKey, "duplicate member name %s", quoteKey(key))
				case c > 0:
					p.pos = keyStart
					for _, k := range names {
						if compareKeys(k, key) == 0 {
							return p.fail(CodeDuplicateKey, "duplicate member name %s", quoteKey(key))
						}
					}
					return p.fail(CodeNotCanonical, "member %s out of order", quoteKey(key))
				}
			}
			prev = key
			names = append(names, key)
		} else if p.seen(&seen, keysBase, key) {
			p.pos = keyStart
			return p.fail(CodeDuplicateKey, "duplicate member name %s", quoteKey(key))
		}
		if err := p.ws(); err != nil {
			return err
		}
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return p.fail(CodeSyntax, "expected ':'")
		}
		p.pos++
		if err := p.ws(); err != nil {
			return err
		}
		next := -1
		if path >= 0 && path < len(p.opt.IndexPath) && decodeString(key) == p.opt.IndexPath[path] {
			next = path + 1
		}
		if err := p.value(level+1, next, deep); err != nil {
			return err
		}
		if err := p.ws(); err != nil {
			return err
		}
		if p.pos >= len(p.src) {
			return p.fail(CodeSyntax, "unterminated object")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
			if err := p.ws(); err != nil {
				return err
			}
		case '}':
			p.pos++
			return nil
		default:
			return p.fail(CodeSyntax, "expected ',' or '}'")
		}
	}
}

// seen reports whether key was already a member of the current object, whose
// earlier names sit on p.keys above base (or in *set, past a few names).
func (p *refParser) seen(set *map[string]struct{}, base int, key []byte) bool {
	const linear = 16
	if *set == nil {
		for _, k := range p.keys[base:] {
			if compareKeys(k, key) == 0 {
				return true
			}
		}
		p.keys = append(p.keys, key)
		if len(p.keys)-base <= linear {
			return false
		}
		*set = make(map[string]struct{}, 2*linear)
		for _, k := range p.keys[base:] {
			(*set)[decodeString(k)] = struct{}{}
		}
		return false
	}
	d := decodeString(key)
	if _, ok := (*set)[d]; ok {
		return true
	}
	(*set)[d] = struct{}{}
	return false
}

func (p *refParser) array(level int, deep bool) error {
	if level+1 > p.maxDepth {
		return p.fail(CodeTooDeep, "nesting deeper than %d", p.maxDepth)
	}
	p.pos++ // '['
	if err := p.ws(); err != nil {
		return err
	}
	if p.pos < len(p.src) && p.src[p.pos] == ']' {
		p.pos++
		return nil
	}
	for {
		if err := p.value(level+1, -1, deep); err != nil {
			return err
		}
		if err := p.ws(); err != nil {
			return err
		}
		if p.pos >= len(p.src) {
			return p.fail(CodeSyntax, "unterminated array")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
			if err := p.ws(); err != nil {
				return err
			}
		case ']':
			p.pos++
			return nil
		default:
			return p.fail(CodeSyntax, "expected ',' or ']'")
		}
	}
}

// string parses the string at p.pos (an opening quote).
func (p *refParser) string() error {
	src := p.src
	i := p.pos + 1
	for {
		// Eight plain bytes at a time where possible.
		for i+8 <= len(src) && plain[src[i]] && plain[src[i+1]] && plain[src[i+2]] && plain[src[i+3]] &&
			plain[src[i+4]] && plain[src[i+5]] && plain[src[i+6]] && plain[src[i+7]] {
			i += 8
		}
		for i < len(src) && plain[src[i]] {
			i++
		}
		if i >= len(src) {
			p.pos = i
			return p.fail(CodeSyntax, "unterminated string")
		}
		switch c := src[i]; {
		case c == '"':
			p.pos = i + 1
			return nil
		case c == '\\':
			n, err := p.escape(i)
			if err != nil {
				return err
			}
			i += n
		case c < 0x20:
			p.pos = i
			return p.fail(CodeSyntax, "control character in string")
		default:
			r, size := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && size <= 1 {
				p.pos = i
				return p.fail(CodeInvalidUTF8, "invalid UTF-8")
			}
			i += size
		}
	}
}

// escape checks the escape sequence at src[i] ('\\') and returns its length.
func (p *refParser) escape(i int) (int, error) {
	src := p.src
	if i+1 >= len(src) {
		p.pos = i
		return 0, p.fail(CodeSyntax, "unterminated escape")
	}
	switch src[i+1] {
	case '"', '\\', 'b', 'f', 'n', 'r', 't':
		return 2, nil
	case '/':
		if p.opt.Canonical {
			p.pos = i
			return 0, p.fail(CodeNotCanonical, `"\/" escape`)
		}
		return 2, nil
	case 'u':
	default:
		p.pos = i
		return 0, p.fail(CodeSyntax, "invalid escape")
	}
	u, ok := hex4(src, i+2)
	if !ok {
		p.pos = i
		return 0, p.fail(CodeSyntax, `invalid \u escape`)
	}
	n := 6
	switch {
	case u >= 0xD800 && u <= 0xDBFF:
		lo, ok := uint16(0), false
		if i+7 < len(src) && src[i+6] == '\\' && src[i+7] == 'u' {
			lo, ok = hex4(src, i+8)
		}
		if !ok || lo < 0xDC00 || lo > 0xDFFF {
			p.pos = i
			return 0, p.fail(CodeLoneSurrogate, "lone high surrogate")
		}
		n = 12
	case u >= 0xDC00 && u <= 0xDFFF:
		p.pos = i
		return 0, p.fail(CodeLoneSurrogate, "lone low surrogate")
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
			p.pos = i
			return 0, p.fail(CodeNotCanonical, `unneeded or non-canonical \u escape`)
		}
	}
	return n, nil
}

// number parses the number at p.pos.
func (p *refParser) number() error {
	src := p.src
	start := p.pos
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
		p.pos = i
		return p.fail(CodeSyntax, "invalid number")
	}
	integer := true
	if i < len(src) && src[i] == '.' {
		integer = false
		i++
		if i >= len(src) || !isDigit(src[i]) {
			p.pos = i
			return p.fail(CodeSyntax, "invalid number")
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
			p.pos = i
			return p.fail(CodeSyntax, "invalid number")
		}
		for i < len(src) && isDigit(src[i]) {
			i++
		}
	}
	if i < len(src) && isDigit(src[i]) { // a leading zero followed by digits
		p.pos = i
		return p.fail(CodeSyntax, "invalid number")
	}
	tok := src[start:i]
	p.pos = i
	if integer {
		digits := tok
		if digits[0] == '-' {
			digits = digits[1:]
		}
		if len(digits) > 16 || (len(digits) == 16 && string(digits) > "9007199254740991") {
			p.pos = start
			return p.fail(CodeNumberRange, "integer beyond ±(2^53−1)")
		}
		if p.opt.Canonical && string(tok) == "-0" {
			p.pos = start
			return p.fail(CodeNotCanonical, "number -0")
		}
		return nil
	}
	if p.opt.Canonical {
		if p.opt.DeferNumbers {
			if _, err := strconv.ParseFloat(string(tok), 64); err != nil {
				p.pos = start
				return p.fail(CodeNumberRange, "number beyond the range of a float64")
			}
			if checkFloat(tok, start) != nil {
				p.floats = append(p.floats, uint32(start))
			}
			return nil
		}
		return checkFloat(tok, start)
	}
	if _, err := strconv.ParseFloat(string(tok), 64); err != nil {
		p.pos = start
		return p.fail(CodeNumberRange, "number beyond the range of a float64")
	}
	return nil
}

// FuzzParse checks the parser against the recursive oracle in every mode:
// the same verdict, the same refusal code, and the same index.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"a":[1,2,{"b":null}],"c":"x"}`, `[[[]],{}]`, `{"a":1,"a":2}`, `{"b":1,"a":2}`, ` [1 , 2] `,
		`{"a":{"b":{"c":{"d":[1,2,3]}}}}`, "[\"\xff\"]", `["\ud800"]`, `[1e400]`, `[-0]`, `{"a" 1}`, `[1,]`,
		`{"k":[0.5,1e21,"\u001f"]}`, `[9007199254740992]`,
	} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, in []byte, mode uint8) {
		compareWithOracle(t, in, fuzzOptions(mode))
	})
}

// fuzzOptions spreads the bits of mode over the parser's options.
func fuzzOptions(mode uint8) Options {
	return Options{Canonical: mode&1 == 1, DeferNumbers: mode&2 == 2, IndexDepth: int(mode>>2) % 6, MaxDepth: 8 + int(mode>>5)}
}

// compareWithOracle parses in with Parse and with the oracle and fails t
// unless both give the same verdict, the same refusal code, the same index
// (deep range included) and the same first non-canonical deferred number.
func compareWithOracle(t *testing.T, in []byte, opt Options) {
	t.Helper()
	got, err := Parse(in, opt)
	want, refErr := refParse(in, opt)
	if (err == nil) != (refErr == nil) {
		t.Fatalf("Parse error %v, oracle %v", err, refErr)
	}
	if err != nil {
		if code(err) != code(refErr) {
			t.Fatalf("Parse refuses with %v, oracle with %v", err, refErr)
		}
		return
	}
	if !slices.Equal(got.nodes, want.nodes) {
		t.Fatalf("nodes %+v, oracle %+v", got.nodes, want.nodes)
	}
	if got.deepLo != want.deepLo || got.deepHi != want.deepHi {
		t.Fatalf("deep nodes [%d, %d), oracle [%d, %d)", got.deepLo, got.deepHi, want.deepLo, want.deepHi)
	}
	// The oracle defers exactly the numbers not in canonical form:
	// checking the deferred numbers must find the same first one.
	gotErr, wantErr := got.CheckNumbers(got.Root()), want.CheckNumbers(want.Root())
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Fatalf("CheckNumbers = %v, oracle %v", gotErr, wantErr)
	}
}

// FuzzParseIndexPath checks Options.IndexPath against the oracle: the
// same verdict and the same index, for a path of up to three names taken
// from path (separated by '/').
func FuzzParseIndexPath(f *testing.F) {
	for _, s := range []struct{ in, path string }{
		{`{"a":{"b":{"c":[1,{"d":2}]}},"e":{"f":{"g":3}}}`, "a/b"},
		{`{"a":[{"b":{"c":1}}],"b":2}`, "a"},
		{`{"a":{"b":"x"}}`, "a/b"},
		{`{"\u0061":{"b":{"c":{}}}}`, "a"},
		{`[{"a":{"b":1}}]`, "a"},
		{`{"a":{"a":{"a":{"a":1}}}}`, "a/a/a"},
		{`{"a":{},"b":{"c":{"d":[[1]]}}}`, "b/c"},
	} {
		f.Add([]byte(s.in), uint8(1), s.path)
		f.Add([]byte(s.in), uint8(8), s.path)
	}
	f.Fuzz(func(t *testing.T, in []byte, mode uint8, path string) {
		names := strings.Split(path, "/")
		opt := fuzzOptions(mode)
		opt.IndexPath = names[:min(3, len(names))]
		compareWithOracle(t, in, opt)
	})
}

// TestLongStrings checks long plain runs, which the parser skips in bulk,
// against the oracle: a byte that is not plain (an escape, a control
// character, a multibyte character, an invalid byte) at every position
// around the bulk path's boundaries, with and without a later quote.
func TestLongStrings(t *testing.T) {
	specials := []string{`\n`, `\"`, `\u0041`, "\x01", "é", "\xff", `"`, `\`}
	for _, n := range []int{255, 256, 257, 300, 511, 600} {
		for pos := 0; pos <= n; pos += max(1, n/40) {
			for _, sp := range specials {
				body := strings.Repeat("a", pos) + sp + strings.Repeat("b", n-pos)
				for _, doc := range []string{`["` + body + `"]`, `["` + body, `["` + body + `","` + strings.Repeat("c", n) + `"]`} {
					for _, canonical := range []bool{false, true} {
						opt := Options{Canonical: canonical}
						_, err := Parse([]byte(doc), opt)
						_, refErr := refParse([]byte(doc), opt)
						if fmt.Sprint(err) != fmt.Sprint(refErr) {
							t.Fatalf("%d bytes, %q at %d, canonical %v: Parse %v, oracle %v", n, sp, pos, canonical, err, refErr)
						}
					}
				}
			}
		}
	}
}
