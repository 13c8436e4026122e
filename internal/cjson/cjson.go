// Package cjson is a strict, single-pass JSON parser for signed documents.
//
// It accepts only I-JSON (RFC 7493) with the passportkit guards: no duplicate
// member names, valid UTF-8, no lone surrogates in escapes, integers within
// ±(2^53−1), a bounded depth and nothing after the top-level value. In
// canonical mode it also requires the exact RFC 8785 form: no insignificant
// whitespace, members sorted by UTF-16 code units, minimal string escapes
// and ECMAScript number formatting.
//
// The parser never re-serialises. It records the byte range of each value
// (down to a chosen depth), so callers hash and compare slices of the input.
package cjson

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"iter"
	"math"
	"math/bits"
	"sort"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// DefaultMaxDepth is the nesting limit used when Options.MaxDepth is zero.
const DefaultMaxDepth = 32

// maxSafeInteger is 2^53−1, the largest integer every JSON reader holds exactly.
const maxSafeInteger = 1<<53 - 1

// Kind is the JSON type of a value.
type Kind uint8

// The JSON kinds.
const (
	Invalid Kind = iota
	Object
	Array
	String
	Number
	True
	False
	Null
)

// Code says why a document was refused. Its String form is the stable
// reason code used in verification results.
type Code uint8

// Refusal codes.
const (
	CodeSyntax        Code = iota + 1 // not JSON
	CodeInvalidUTF8                   // invalid UTF-8
	CodeLoneSurrogate                 // a \u escape holds a lone surrogate
	CodeDuplicateKey                  // an object names a member twice
	CodeNumberRange                   // an integer beyond ±(2^53−1), or a number beyond float64
	CodeTooDeep                       // nesting deeper than the limit
	CodeTrailingData                  // data after the top-level value
	CodeNotCanonical                  // valid, but not RFC 8785 canonical form
)

var codeNames = [...]string{
	CodeSyntax:        "json_malformed",
	CodeInvalidUTF8:   "json_invalid_utf8",
	CodeLoneSurrogate: "json_lone_surrogate",
	CodeDuplicateKey:  "json_duplicate_key",
	CodeNumberRange:   "json_number_range",
	CodeTooDeep:       "json_too_deep",
	CodeTrailingData:  "json_trailing_data",
	CodeNotCanonical:  "json_not_canonical",
}

// String returns the stable reason code, such as "json_duplicate_key".
func (c Code) String() string {
	if int(c) < len(codeNames) && codeNames[c] != "" {
		return codeNames[c]
	}
	return "json_unknown"
}

// Error is a refusal with its code and the byte offset where it was found.
type Error struct {
	Code   Code
	Offset int
	Msg    string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s at offset %d", e.Msg, e.Offset)
}

// Options select the parser's mode and limits. The zero value parses strict
// (non-canonical) JSON to DefaultMaxDepth and indexes every value.
type Options struct {
	// Canonical requires RFC 8785 form.
	Canonical bool
	// MaxDepth bounds the nesting of objects and arrays; zero means
	// DefaultMaxDepth.
	MaxDepth int
	// IndexDepth limits the index to values at most this many levels below
	// the root (the root is level 0); zero indexes every value. Values below
	// the limit are still fully checked.
	IndexDepth int
	// IndexPath names one member per level, from the root down, such as
	// "snapshot", "passport", "skillPassports". The value found there is
	// indexed whole, down to its deepest value, whatever IndexDepth says,
	// so that a caller can read one part of a document in detail and keep
	// the rest of the index shallow. The path must reach the value through
	// indexed objects: a path longer than IndexDepth has no effect. Names
	// are compared decoded.
	IndexPath []string
	// DeferNumbers, with Canonical, postpones the check that each
	// non-integer number is in ECMAScript form: the parser records those
	// numbers whose form a glance does not settle (a short plain decimal
	// is canonical as written) and Doc.CheckNumbers checks the ones inside
	// a chosen value.
	// It lets a caller check only bytes whose origin it has authenticated.
	// Whether the number is within the range of a double is still checked
	// during the parse.
	DeferNumbers bool
}

type node struct {
	start, end uint32 // byte range of the value in the source
	next       uint32 // index of the first node after this value's subtree
}

// Doc is a parsed document: the source bytes and an index of value ranges.
type Doc struct {
	src        []byte
	nodes      []node
	indexDepth int
	floats     []uint32 // start offsets of deferred non-integer numbers
	// deepLo and deepHi bound the nodes of the value at Options.IndexPath,
	// which is indexed whole; deepHi is zero when there is none.
	deepLo, deepHi uint32
}

// Value is one indexed value of a Doc.
type Value struct {
	doc   *Doc
	idx   int32
	depth int32
}

// Parse checks src and returns its index. The Doc keeps a reference to src,
// which the caller must not modify afterwards.
func Parse(src []byte, opt Options) (*Doc, error) {
	var ps Parser
	return ps.Parse(src, opt)
}

// Parser parses documents and keeps its buffers between calls, so that
// repeated parsing allocates nothing once the buffers have grown. It is not
// safe for concurrent use, and each Doc it returns is valid only until its
// next call to Parse.
type Parser struct {
	doc   Doc
	stack []frame
	sets  []map[string]struct{}
	keys  [][]byte
}

// Parse is the package-level Parse, reusing p's buffers.
func (ps *Parser) Parse(src []byte, opt Options) (*Doc, error) {
	p := parser{src: src, opt: opt, maxDepth: opt.MaxDepth, indexDepth: opt.IndexDepth,
		nodes: ps.doc.nodes[:0], floats: ps.doc.floats[:0], keys: ps.keys[:0], quote: -1}
	if p.maxDepth <= 0 {
		p.maxDepth = DefaultMaxDepth
	}
	if p.indexDepth <= 0 {
		p.indexDepth = math.MaxInt32
	}
	p.path = len(opt.IndexPath) > 0 && len(opt.IndexPath) <= min(p.indexDepth, math.MaxInt8)
	shallow := p.indexDepth
	if cap(ps.stack) < p.maxDepth {
		ps.stack = make([]frame, p.maxDepth)
		ps.sets = make([]map[string]struct{}, p.maxDepth)
	}
	p.stack = ps.stack[:p.maxDepth]
	p.sets = ps.sets[:p.maxDepth]
	if cap(p.nodes) == 0 {
		// Every value but the root follows a ',', a ':' or an opening
		// bracket, and every member name a '{' or a ',': counting them
		// bounds the index, so it never grows.
		est := 2 + bytes.Count(src, []byte{','}) + bytes.Count(src, []byte{':'}) + bytes.Count(src, []byte{'['}) + bytes.Count(src, []byte{'{'})
		p.nodes = make([]node, 0, est)
	}
	err := p.document()
	// Keep the grown buffers for the next call.
	ps.keys = p.keys[:0]
	if err != nil {
		ps.doc = Doc{nodes: p.nodes[:0], floats: p.floats[:0]}
		return nil, err
	}
	ps.doc = Doc{src: src, nodes: p.nodes, indexDepth: shallow, floats: p.floats, deepLo: p.deepLo, deepHi: p.deepHi}
	return &ps.doc, nil
}

// document parses the whole input: one value, then nothing.
func (p *parser) document() error {
	src := p.src
	opt := p.opt
	i, err := p.ws(0)
	if err != nil {
		return err
	}
	if i >= len(src) {
		return p.failAt(i, CodeSyntax, "empty document")
	}
	if i, err = p.run(i); err != nil {
		return err
	}
	if i < len(src) {
		if opt.Canonical {
			// SPEC.md §2: anything after the value, whitespace included,
			// is trailing data.
			return p.failAt(i, CodeTrailingData, "data after the top-level value")
		}
		if i, err = p.ws(i); err != nil {
			return err
		}
		if i < len(src) {
			return p.failAt(i, CodeTrailingData, "data after the top-level value")
		}
	}
	return nil
}

// Root returns the top-level value.
func (d *Doc) Root() Value { return Value{doc: d, idx: 0} }

// Source returns the bytes the document was parsed from.
func (d *Doc) Source() []byte { return d.src }

// CheckNumbers checks that every deferred number inside v is in canonical
// form. It is a no-op for a Doc parsed without DeferNumbers.
func (d *Doc) CheckNumbers(v Value) error {
	n := d.nodes[v.idx]
	i := sort.Search(len(d.floats), func(i int) bool { return d.floats[i] >= n.start })
	for ; i < len(d.floats) && d.floats[i] < n.end; i++ {
		start := int(d.floats[i])
		end := start
		for end < len(d.src) && isNumberByte(d.src[end]) {
			end++
		}
		if err := checkFloat(d.src[start:end], start); err != nil {
			return err
		}
	}
	return nil
}

// Kind returns the value's JSON type, or Invalid for the zero Value.
func (v Value) Kind() Kind {
	if v.doc == nil {
		return Invalid
	}
	return kinds[v.doc.src[v.doc.nodes[v.idx].start]]
}

// kinds maps the first byte of a checked value to its kind: a table, so
// that Kind is a load, small enough to inline.
var kinds = func() (t [256]Kind) {
	for _, c := range []byte("-0123456789") {
		t[c] = Number
	}
	t['{'], t['['], t['"'], t['t'], t['f'], t['n'] = Object, Array, String, True, False, Null
	return t
}()

// Raw returns the value's bytes in the source, quotes included for strings.
func (v Value) Raw() []byte {
	n := v.doc.nodes[v.idx]
	return v.doc.src[n.start:n.end:n.end]
}

// Offset returns the value's starting byte offset in the source.
func (v Value) Offset() int { return int(v.doc.nodes[v.idx].start) }

// Indexed reports whether the value's children are in the index. Children of
// values deeper than Options.IndexDepth are checked but not indexed, unless
// they lie inside the value at Options.IndexPath.
func (v Value) Indexed() bool {
	return int(v.depth) < v.doc.indexDepth || uint32(v.idx) >= v.doc.deepLo && uint32(v.idx) < v.doc.deepHi
}

// Members yields the key and value of each member of an indexed object, in
// document order. It yields nothing for other values.
func (v Value) Members() iter.Seq2[Value, Value] {
	return func(yield func(Value, Value) bool) {
		if v.Kind() != Object || !v.Indexed() {
			return
		}
		end := v.doc.nodes[v.idx].next
		for i := uint32(v.idx) + 1; i < end; {
			k := Value{doc: v.doc, idx: int32(i), depth: v.depth + 1}
			val := Value{doc: v.doc, idx: int32(i + 1), depth: v.depth + 1}
			if !yield(k, val) {
				return
			}
			i = v.doc.nodes[i+1].next
		}
	}
}

// Elements yields each element of an indexed array. It yields nothing for
// other values.
func (v Value) Elements() iter.Seq[Value] {
	return func(yield func(Value) bool) {
		if v.Kind() != Array || !v.Indexed() {
			return
		}
		end := v.doc.nodes[v.idx].next
		for i := uint32(v.idx) + 1; i < end; i = v.doc.nodes[i].next {
			if !yield(Value{doc: v.doc, idx: int32(i), depth: v.depth + 1}) {
				return
			}
		}
	}
}

// Len returns the number of members or elements of an indexed container.
func (v Value) Len() int {
	n := 0
	switch v.Kind() {
	case Object:
		for range v.Members() {
			n++
		}
	case Array:
		for range v.Elements() {
			n++
		}
	}
	return n
}

// Get returns the member of an indexed object named key.
func (v Value) Get(key string) (Value, bool) {
	for k, val := range v.Members() {
		if k.stringEquals(key) {
			return val, true
		}
	}
	return Value{}, false
}

// Text returns the decoded contents of a string value.
func (v Value) Text() (string, bool) {
	if v.Kind() != String {
		return "", false
	}
	raw := v.Raw()
	return decodeString(raw[1 : len(raw)-1]), true
}

// RawText returns the bytes between a string's quotes, escapes undecoded,
// without allocating. For names without escapes it is the decoded text.
func (v Value) RawText() ([]byte, bool) {
	if v.Kind() != String {
		return nil, false
	}
	raw := v.Raw()
	return raw[1 : len(raw)-1], true
}

// Int returns the value of an integer number (one written with no fraction
// or exponent).
func (v Value) Int() (int64, bool) {
	if v.Kind() != Number {
		return 0, false
	}
	raw := v.Raw()
	digits := raw
	if digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) > 18 { // beyond the guard; ParseInt says whether it fits
		n, err := strconv.ParseInt(string(raw), 10, 64)
		return n, err == nil
	}
	var n int64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false // a fraction or an exponent
		}
		n = n*10 + int64(c-'0')
	}
	if raw[0] == '-' {
		n = -n
	}
	return n, true
}

// Bool returns the value of true or false.
func (v Value) Bool() (b, ok bool) {
	switch v.Kind() {
	case True:
		return true, true
	case False:
		return false, true
	}
	return false, false
}

func (v Value) stringEquals(s string) bool {
	raw := v.Raw()
	return nameEquals(raw[1:len(raw)-1], s)
}

// nameEquals reports whether the inside of a checked string decodes to s.
func nameEquals(inner []byte, s string) bool {
	if bytes.IndexByte(inner, '\\') >= 0 {
		return decodeString(inner) == s
	}
	return string(inner) == s
}

type parser struct {
	src            []byte
	opt            Options
	maxDepth       int
	indexDepth     int
	nodes          []node
	floats         []uint32
	keys           [][]byte              // strict mode: the names of the open objects
	stack          []frame               // the open containers
	path           bool                  // Options.IndexPath applies
	sets           []map[string]struct{} // strict mode: see frame.set
	shallow        int                   // IndexDepth while inside the deep container
	quote          int                   // see longPlain
	deepLo, deepHi uint32                // see Doc
}

func (p *parser) failAt(pos int, c Code, format string, args ...any) *Error {
	return &Error{Code: c, Offset: pos, Msg: fmt.Sprintf(format, args...)}
}

// ws skips whitespace at i; in canonical mode any whitespace is an error.
func (p *parser) ws(i int) (int, error) {
	if !wsAt(p.src, i) {
		return i, nil
	}
	if p.opt.Canonical {
		return i, p.failAt(i, CodeNotCanonical, "insignificant whitespace")
	}
	return p.skipSpace(i), nil
}

// wsAt reports whether src[i] is whitespace; small enough to inline.
func wsAt(src []byte, i int) bool { return i < len(src) && space[src[i]] }

var space = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

// skipSpace skips the whitespace at i, in strict (not canonical) mode.
func (p *parser) skipSpace(i int) int {
	for wsAt(p.src, i) {
		i++
	}
	return i
}

// unexpected refuses the byte at i, where the grammar allows neither it
// nor, in canonical mode, whitespace. The loop of run skips whitespace
// only in strict mode; in canonical mode whitespace arrives here, where it
// is refused as such, at the same offset as a check before each token
// would refuse it.
func (p *parser) unexpected(i int, format string, args ...any) *Error {
	if p.opt.Canonical && wsAt(p.src, i) {
		return p.failAt(i, CodeNotCanonical, "insignificant whitespace")
	}
	return p.failAt(i, CodeSyntax, format, args...)
}

// frame is an open container.
//
// It holds no pointer, so that opening a container, which writes a frame,
// costs a few plain stores: deep nesting is a cheap attack otherwise.
type frame struct {
	node      int32  // its index node, or -1 when it is deeper than the index
	keysBase  int32  // strict mode: where this object's names start on p.keys
	start     uint32 // where its opening bracket is
	prevStart uint32 // canonical mode: the previous member name's range
	prevEnd   uint32
	// path is how many names of Options.IndexPath lead to this container,
	// or -1 when it is off the path; deep marks the container at the end
	// of the path, whose values are all indexed.
	path   int8
	deep   bool
	object bool
	// set says that, in strict mode, the object's names are also in the
	// set p.sets[depth], kept once it has more than a few.
	set bool
}

// run parses the value at i and returns the position after it. It keeps
// an explicit stack, so nesting costs no recursion, and each token costs
// one trip through the loop.
func (p *parser) run(i int) (int, error) {
	src := p.src
	stack := p.stack
	depth := 0
	// pending is how many names of Options.IndexPath lead to the value
	// about to be parsed, or -1 when it is off the path.
	pending := -1
	if p.path {
		pending = 0 // the root is the path's first object
	}
	// lax is strict mode, where whitespace may stand between tokens.
	lax := !p.opt.Canonical
	var err error
value:
	if i >= len(src) {
		return i, p.failAt(i, CodeSyntax, "unexpected end of input")
	}
	{
		start := i
		switch c := src[i]; c {
		case '{', '[':
			idx := -1
			if depth <= p.indexDepth {
				idx = len(p.nodes)
				p.nodes = append(p.nodes, node{start: uint32(i)})
			}
			if depth >= len(stack) { // the stack holds maxDepth frames
				return i, p.failAt(i, CodeTooDeep, "nesting deeper than %d", p.maxDepth)
			}
			// Field by field: a composite literal is built aside and
			// copied in wide loads that stall on its narrow stores.
			f := &stack[depth]
			f.node, f.keysBase, f.start = int32(idx), int32(len(p.keys)), uint32(i)
			f.prevStart, f.prevEnd = 0, 0
			f.path, f.deep, f.object, f.set = -1, false, c == '{', false
			if pending >= 0 {
				p.enterPath(f, idx, pending)
				pending = -1
			}
			depth++
			if i++; lax && wsAt(src, i) {
				i = p.skipSpace(i)
			}
			if i < len(src) && src[i] == c+2 { // '}' is '{'+2 and ']' is '['+2
				i++
				depth--
				p.close(&stack[depth], i)
				goto after
			}
			if c == '{' {
				goto key
			}
			goto value
		case '"':
			if j := shortString(src, i); j > 0 {
				i = j
			} else {
				i, err = p.string(i)
			}
		case '1', '2', '3', '4', '5', '6', '7', '8', '9':
			// Small positive integers, the commonest number, in line;
			// other short plain numbers in shortNumber.
			j := i + 1
			for j < len(src) && j-i < 16 && isDigit(src[j]) {
				j++
			}
			if j < len(src) && j-i < 16 && (src[j] == ',' || src[j] == ']' || src[j] == '}') {
				i = j
			} else if j := shortNumber(src, i); j > 0 {
				i = j
			} else {
				i, err = p.number(i)
			}
		case '0':
			if j := shortNumber(src, i); j > 0 {
				i = j
			} else {
				i, err = p.number(i)
			}
		case '-':
			i, err = p.number(i)
		case 't':
			i, err = p.literal(i, "true")
		case 'f':
			i, err = p.literal(i, "false")
		case 'n':
			i, err = p.literal(i, "null")
		default:
			return i, p.unexpected(i, "unexpected character %q", c)
		}
		if err != nil {
			return i, err
		}
		if depth <= p.indexDepth {
			p.nodes = append(p.nodes, node{start: uint32(start), end: uint32(i), next: uint32(len(p.nodes) + 1)})
		}
		pending = -1
	}
after:
	if depth == 0 {
		return i, nil
	}
	if lax && wsAt(src, i) {
		i = p.skipSpace(i)
	}
	if i >= len(src) {
		if stack[depth-1].object {
			return i, p.failAt(i, CodeSyntax, "unterminated object")
		}
		return i, p.failAt(i, CodeSyntax, "unterminated array")
	}
	switch top := &stack[depth-1]; src[i] {
	case ',':
		if i++; lax && wsAt(src, i) {
			i = p.skipSpace(i)
		}
		if top.object {
			goto key
		}
		goto value
	case '}':
		if !top.object {
			return i, p.failAt(i, CodeSyntax, "expected ',' or ']'")
		}
		i++
		depth--
		p.close(top, i)
		goto after
	case ']':
		if top.object {
			return i, p.failAt(i, CodeSyntax, "expected ',' or '}'")
		}
		i++
		depth--
		p.close(top, i)
		goto after
	default:
		if top.object {
			return i, p.unexpected(i, "expected ',' or '}'")
		}
		return i, p.unexpected(i, "expected ',' or ']'")
	}
key:
	if i >= len(src) || src[i] != '"' {
		return i, p.unexpected(i, "expected a member name")
	}
	{
		top := &stack[depth-1]
		start := i
		if j := shortString(src, i); j > 0 {
			i = j
		} else if i, err = p.string(i); err != nil {
			return i, err
		}
		if depth <= p.indexDepth {
			p.nodes = append(p.nodes, node{start: uint32(start), end: uint32(i), next: uint32(len(p.nodes) + 1)})
		}
		if top.path >= 0 && nameEquals(src[start+1:i-1], p.opt.IndexPath[top.path]) {
			pending = int(top.path) + 1
		}
		if p.opt.Canonical {
			// Most names follow the one before with a lower first byte,
			// which settles their order without compareKeys when it is
			// neither a backslash nor one from which UTF-8 and UTF-16
			// orders differ (see compareKeys).
			if top.prevEnd != 0 {
				if a, b := src[top.prevStart], src[start+1]; !(a < b && b < 0xEE && b != '\\' && i-1 > start+1) {
					if err := p.order(top, start, i); err != nil {
						return i, err
					}
				}
			}
			top.prevStart, top.prevEnd = uint32(start+1), uint32(i-1)
		} else if key := src[start+1 : i-1]; p.seen(top, depth-1, key) {
			return i, p.failAt(start, CodeDuplicateKey, "duplicate member name %s", quoteKey(key))
		}
		if lax && wsAt(src, i) {
			i = p.skipSpace(i)
		}
		if i >= len(src) || src[i] != ':' {
			return i, p.unexpected(i, "expected ':'")
		}
		if i++; lax && wsAt(src, i) {
			i = p.skipSpace(i)
		}
	}
	goto value
}

// order checks that the member name of the object top that starts at
// start and ends before end sorts after the name before it and differs
// from it.
func (p *parser) order(top *frame, start, end int) error {
	key := p.src[start+1 : end-1]
	switch c := compareKeys(p.src[top.prevStart:top.prevEnd], key); {
	case c == 0:
		return p.failAt(start, CodeDuplicateKey, "duplicate member name %s", quoteKey(key))
	case c > 0:
		// A repeated name is out of order too; at one position the
		// earlier guard of SPEC.md §2 wins.
		if p.namedBefore(int(top.start), start, key) {
			return p.failAt(start, CodeDuplicateKey, "duplicate member name %s", quoteKey(key))
		}
		return p.failAt(start, CodeNotCanonical, "member %s out of order", quoteKey(key))
	}
	return nil
}

// namedBefore reports whether the canonical-mode object opening at obj
// names a member key before position end, where its current member name
// starts. Everything before end has been checked, and canonical form has
// no whitespace, so a plain scan skips the values: it runs only to refuse
// a document.
func (p *parser) namedBefore(obj, end int, key []byte) bool {
	src := p.src
	skipString := func(i int) int { // i at the opening quote
		for i++; src[i] != '"'; i++ {
			if src[i] == '\\' {
				i++
			}
		}
		return i + 1
	}
	for i := obj + 1; i < end; {
		j := skipString(i)
		if compareKeys(src[i+1:j-1], key) == 0 {
			return true
		}
		i = j + 1 // past ':'
		for depth := 0; ; {
			switch src[i] {
			case '"':
				i = skipString(i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			case ',':
				if depth == 0 {
					i++
					goto next
				}
			}
			i++
		}
	next:
	}
	return false
}

// close ends the container of top, whose closing bracket ends before i.
func (p *parser) close(top *frame, i int) {
	if top.node >= 0 {
		p.nodes[top.node].end = uint32(i)
		p.nodes[top.node].next = uint32(len(p.nodes))
	}
	if len(p.keys) > int(top.keysBase) { // strict mode only
		p.keys = p.keys[:top.keysBase]
	}
	if top.deep {
		p.indexDepth = p.shallow
		p.deepHi = uint32(len(p.nodes))
	}
}

// enterPath marks the container f, whose node is idx, as reached by n
// names of Options.IndexPath; at the end of the path, everything inside it
// is indexed until it closes.
func (p *parser) enterPath(f *frame, idx, n int) {
	if n < len(p.opt.IndexPath) {
		if f.object {
			f.path = int8(n)
		}
		return
	}
	if idx < 0 {
		return
	}
	f.deep = true
	p.shallow = p.indexDepth
	p.indexDepth = math.MaxInt32
	p.deepLo = uint32(idx)
}

// seen reports whether key was already a member of the object top, at
// depth d, whose earlier names sit on p.keys (or in p.sets[d], past a few
// names).
func (p *parser) seen(top *frame, d int, key []byte) bool {
	const linear = 16
	if !top.set {
		for _, k := range p.keys[top.keysBase:] {
			if compareKeys(k, key) == 0 {
				return true
			}
		}
		p.keys = append(p.keys, key)
		if len(p.keys)-int(top.keysBase) <= linear {
			return false
		}
		set := p.sets[d]
		if set == nil {
			set = make(map[string]struct{}, 2*linear)
			p.sets[d] = set
		}
		clear(set)
		for _, k := range p.keys[top.keysBase:] {
			set[decodeString(k)] = struct{}{}
		}
		top.set = true
		return false
	}
	set := p.sets[d]
	dk := decodeString(key)
	if _, ok := set[dk]; ok {
		return true
	}
	set[dk] = struct{}{}
	return false
}

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
