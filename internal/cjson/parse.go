package cjson

import (
	"fmt"
	"math"
)

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
