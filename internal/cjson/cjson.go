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
	"fmt"
	"math"
	"sort"
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
