package openapigen

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxDepth bounds the nesting of a generated value; an optional member
// deeper than it is left out.
const maxDepth = 6

// schema is one JSON Schema object of the document, as decoded.
type schema = map[string]any

// values generates JSON values from the schemas of one document.
type values struct {
	doc   map[string]any
	rnd   *rand.Rand
	pools map[string][]string
	res   map[string]*regexp.Regexp
}

// resolve follows s's $ref, if any, within the document; members beside
// the $ref override the target's.
func (v *values) resolve(s schema) schema {
	for range 16 {
		ref, ok := s["$ref"].(string)
		if !ok {
			return v.allOf(s)
		}
		target := v.pointer(ref)
		if len(s) == 1 {
			s = target
			continue
		}
		merged := schema{}
		for k, x := range target {
			merged[k] = x
		}
		for k, x := range s {
			if k != "$ref" {
				merged[k] = x
			}
		}
		s = merged
	}
	return s
}

// allOf returns s with the members of its allOf merged in, s's own
// keywords winning: enough for the document's use of allOf, which adds a
// pattern to a string's bounds.
func (v *values) allOf(s schema) schema {
	all, ok := s["allOf"].([]any)
	if !ok {
		return s
	}
	merged := schema{}
	for _, a := range all {
		for k, x := range v.resolve(a.(schema)) {
			merged[k] = x
		}
	}
	for k, x := range s {
		if k != "allOf" {
			merged[k] = x
		}
	}
	return merged
}

// pointer returns the schema at a local reference, #/a/b.
func (v *values) pointer(ref string) schema {
	var cur any = v.doc
	for _, tok := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, _ := cur.(map[string]any)
		cur = m[tok]
	}
	m, ok := cur.(map[string]any)
	if !ok {
		panic(fmt.Sprintf("openapigen: unresolved reference %s", ref))
	}
	return m
}

// types returns the JSON types s admits, inferred from its keywords when
// it names none; nil admits any.
func (v *values) types(s schema) []string {
	switch t := s["type"].(type) {
	case string:
		return []string{t}
	case []any:
		out := make([]string, 0, len(t))
		for _, x := range t {
			out = append(out, x.(string))
		}
		return out
	}
	switch {
	case s["properties"] != nil || s["additionalProperties"] != nil || s["required"] != nil:
		return []string{"object"}
	case s["items"] != nil:
		return []string{"array"}
	case s["pattern"] != nil || s["maxLength"] != nil || s["minLength"] != nil:
		return []string{"string"}
	}
	return nil
}

// nullable reports whether s admits null.
func (v *values) nullable(s schema) bool {
	s = v.resolve(s)
	if _, ok := s["const"]; ok {
		return s["const"] == nil
	}
	if e, ok := s["enum"].([]any); ok {
		return slices.Contains(e, nil)
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if bs, ok := s[k].([]any); ok {
			for _, b := range bs {
				if v.nullable(b.(schema)) {
					return true
				}
			}
			return false
		}
	}
	t := v.types(s)
	return t == nil || slices.Contains(t, "null")
}

// generate returns a value s admits (with high probability: the caller
// checks it against the document and retries).
func (v *values) generate(s schema, depth int) any {
	s = v.resolve(s)
	if c, ok := s["const"]; ok {
		return c
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return e[v.rnd.IntN(len(e))]
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		bs, ok := s[k].([]any)
		if !ok || len(bs) == 0 {
			continue
		}
		b := v.resolve(bs[v.rnd.IntN(len(bs))].(schema))
		if s["properties"] != nil {
			return v.object(s, b, depth)
		}
		return v.generate(b, depth)
	}
	ts := v.types(s)
	if ts == nil {
		ts = []string{"string", "integer", "boolean", "object", "null"}
	}
	switch t := ts[v.rnd.IntN(len(ts))]; t {
	case "null":
		return nil
	case "boolean":
		return v.rnd.IntN(2) == 0
	case "integer":
		return v.integer(s)
	case "number":
		return v.number(s)
	case "string":
		return v.str(s)
	case "array":
		return v.array(s, depth)
	default:
		return v.object(s, nil, depth)
	}
}

func num(s schema, k string) (float64, bool) {
	f, ok := s[k].(float64)
	return f, ok
}

func (v *values) bounds(s schema) (lo, hi float64) {
	lo, okLo := num(s, "minimum")
	hi, okHi := num(s, "maximum")
	switch {
	case !okLo && !okHi:
		lo, hi = -1000, 1000
	case !okLo:
		lo = hi - 1000
	case !okHi:
		hi = lo + 1000
	}
	return lo, hi
}

func (v *values) integer(s schema) json.Number {
	lo, hi := v.bounds(s)
	l, h := int64(math.Ceil(lo)), int64(math.Floor(hi))
	var n int64
	switch v.rnd.IntN(4) {
	case 0:
		n = l
	case 1:
		n = h
	default:
		n = l + v.rnd.Int64N(h-l+1)
	}
	return json.Number(strconv.FormatInt(n, 10))
}

// number returns a decimal in the bounds of s, a multiple of its
// multipleOf when it has one, written as a plain decimal; without one,
// with up to six fractional digits.
func (v *values) number(s schema) json.Number {
	lo, hi := v.bounds(s)
	step := new(big.Rat).SetFrac64(1, 1000000)
	if m, ok := num(s, "multipleOf"); ok {
		step = exactDecimal(m)
	}
	rl, rh := exactDecimal(lo), exactDecimal(hi)
	kl := ceilRat(new(big.Rat).Quo(rl, step))
	kh := floorRat(new(big.Rat).Quo(rh, step))
	var k int64
	switch v.rnd.IntN(4) {
	case 0:
		k = kl
	case 1:
		k = kh
	default:
		k = kl + v.rnd.Int64N(kh-kl+1)
	}
	r := new(big.Rat).Mul(step, new(big.Rat).SetInt64(k))
	return json.Number(trimDecimal(r.FloatString(12)))
}

// exactDecimal is the decimal f is written as, as a rational.
func exactDecimal(f float64) *big.Rat {
	r, _ := new(big.Rat).SetString(strconv.FormatFloat(f, 'f', -1, 64))
	return r
}

func floorRat(r *big.Rat) int64 {
	q := new(big.Int).Div(r.Num(), r.Denom()) // Euclidean: floor for a positive denominator
	return q.Int64()
}

func ceilRat(r *big.Rat) int64 {
	return -floorRat(new(big.Rat).Neg(r))
}

func trimDecimal(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// interesting are characters a text field meets in the wild and a server
// may treat apart: white space of every kind, control and invisible format
// characters, markup, separators of query strings and paths, and
// characters of two, three and four bytes.
var interesting = []rune{
	'a', 'Z', 'q', '7', ' ', ' ', '\t', '\n', '\r', 0, 0x1f, 0x7f, 0x85, 0xa0, 0xad,
	0x061c, 0x200b, 0x200d, 0x200e, 0x202e, 0x2028, 0x2066, 0x3000, 0xfeff,
	'é', 'ß', 'İ', 'ﬁ', '日', '本', '😀', 0x1f3fd, '<', '>', '/', '%', '&', '+', ';', '=', '#', '?', '"', '\\', '.', ',', '-', '_', '~',
}

// text returns n characters drawn from interesting and ASCII letters, or
// from visible ASCII when ascii is set (a header's value).
func (v *values) text(n int, ascii bool) string {
	var b strings.Builder
	blank := v.rnd.IntN(10) == 0
	for range n {
		switch {
		case blank:
			b.WriteRune([]rune{' ', '\t', 0xa0, 0x3000}[v.rnd.IntN(4)])
		case ascii:
			b.WriteByte(byte(0x21 + v.rnd.IntN(0x5e)))
		case v.rnd.IntN(2) == 0:
			b.WriteRune(interesting[v.rnd.IntN(len(interesting))])
		default:
			b.WriteByte("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"[v.rnd.IntN(62)])
		}
	}
	return b.String()
}

// length picks a length in [lo, hi]: near the bounds as often as between.
func (v *values) length(lo, hi int) int {
	if hi < lo {
		return lo
	}
	switch v.rnd.IntN(6) {
	case 0:
		return lo
	case 1:
		return hi
	}
	return lo + v.rnd.IntN(min(hi-lo, 24)+1)
}

func (v *values) str(s schema) string {
	lo, hi := 0, 64
	if n, ok := num(s, "minLength"); ok {
		lo = int(n)
	}
	if n, ok := num(s, "maxLength"); ok {
		hi = int(n)
	} else {
		hi = max(hi, lo+64)
	}
	pattern, _ := s["pattern"].(string)
	if pool := v.pools[pattern]; pattern != "" && len(pool) > 0 {
		return pool[v.rnd.IntN(len(pool))]
	}
	var out string
	for range 32 {
		if pattern != "" {
			out = v.matching(pattern)
		} else {
			out = v.text(v.length(lo, hi), s["x-ascii"] == true)
		}
		if mb, ok := num(s, "x-maxBytes"); ok {
			for len(out) > int(mb) {
				_, size := utf8.DecodeLastRuneInString(out)
				out = out[:len(out)-size]
			}
		}
		if not, ok := s["not"].(schema); ok {
			if np, ok := not["pattern"].(string); (ok && v.re(np).MatchString(out)) || slices.Contains(asList(not["enum"]), any(out)) {
				continue
			}
		}
		if n := utf8.RuneCountInString(out); n >= lo && n <= hi && (pattern == "" || v.re(pattern).MatchString(out)) {
			return out
		}
	}
	return out
}

func (v *values) re(pattern string) *regexp.Regexp {
	if r, ok := v.res[pattern]; ok {
		return r
	}
	r, err := regexp.Compile(pattern)
	if err != nil {
		panic("openapigen: pattern " + pattern + ": " + err.Error())
	}
	v.res[pattern] = r
	return r
}

func (v *values) array(s schema, depth int) []any {
	lo, hi := 0, 4
	if n, ok := num(s, "minItems"); ok {
		lo = int(n)
	}
	if n, ok := num(s, "maxItems"); ok {
		hi = int(n)
	} else {
		hi = lo + 4
	}
	if depth >= maxDepth {
		hi = lo
	}
	n := v.length(lo, hi)
	items, _ := s["items"].(schema)
	if items == nil {
		items = schema{}
	}
	out := make([]any, 0, n)
	seen := map[string]bool{}
	for tries := 0; len(out) < n && tries < 8*n+8; tries++ {
		x := v.generate(items, depth+1)
		key, _ := json.Marshal(x)
		if s["uniqueItems"] == true && seen[string(key)] {
			continue
		}
		seen[string(key)] = true
		out = append(out, x)
	}
	return out
}

// object returns an object of s: every required member, each other one
// with even odds. branch, a oneOf or anyOf branch of s, adds members it
// requires and takes out members its not.anyOf requires.
func (v *values) object(s, branch schema, depth int) map[string]any {
	props, _ := s["properties"].(schema)
	required := map[string]bool{}
	forbidden := map[string]bool{}
	for _, sc := range []schema{s, branch} {
		for _, r := range asList(sc["required"]) {
			required[r.(string)] = true
		}
	}
	if branch != nil {
		if not, ok := branch["not"].(schema); ok {
			for _, b := range asList(not["anyOf"]) {
				for _, r := range asList(b.(schema)["required"]) {
					forbidden[r.(string)] = true
				}
			}
			for _, r := range asList(not["required"]) {
				forbidden[r.(string)] = true
			}
		}
	}
	out := map[string]any{}
	for _, name := range sortedKeys(props) {
		switch {
		case forbidden[name]:
			continue
		case required[name]:
		case depth >= maxDepth || v.rnd.IntN(2) == 0:
			continue
		}
		ps := props[name].(schema)
		val := v.generate(ps, depth+1)
		if required[name] && val == nil && branch != nil {
			// A branch that requires a member means it given, not null.
			for range 8 {
				if val = v.generate(ps, depth+1); val != nil {
					break
				}
			}
		}
		out[name] = val
	}
	return out
}

func asList(x any) []any {
	l, _ := x.([]any)
	return l
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
