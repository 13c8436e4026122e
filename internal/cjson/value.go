package cjson

import (
	"bytes"
	"iter"
	"strconv"
)

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
