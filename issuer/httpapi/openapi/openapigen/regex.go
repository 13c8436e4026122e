package openapigen

import (
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"
)

// matching returns a string pattern matches, generated from its syntax
// tree: a class yields one of its characters (often one of interesting),
// a repeat up to a few more than its minimum, an alternation one branch.
// Anchors match empty. The caller checks the result.
func (v *values) matching(pattern string) string {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		panic("openapigen: pattern " + pattern + ": " + err.Error())
	}
	var b strings.Builder
	v.walk(&b, re.Simplify())
	return b.String()
}

func (v *values) walk(b *strings.Builder, re *syntax.Regexp) {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			b.WriteRune(r)
		}
	case syntax.OpCharClass:
		b.WriteRune(v.inClass(re.Rune))
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		b.WriteRune(interesting[v.rnd.IntN(len(interesting))])
	case syntax.OpCapture:
		v.walk(b, re.Sub[0])
	case syntax.OpConcat:
		for _, s := range re.Sub {
			v.walk(b, s)
		}
	case syntax.OpAlternate:
		v.walk(b, re.Sub[v.rnd.IntN(len(re.Sub))])
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := re.Min, re.Max
		switch re.Op {
		case syntax.OpStar:
			lo, hi = 0, -1
		case syntax.OpPlus:
			lo, hi = 1, -1
		case syntax.OpQuest:
			lo, hi = 0, 1
		}
		if hi < 0 {
			hi = lo + 8
		}
		for range v.length(lo, hi) {
			v.walk(b, re.Sub[0])
		}
	}
}

// inClass returns a character of the class ranges (pairs lo, hi): one of
// interesting when one is in it and a coin says so, else one drawn from a
// range, never a surrogate.
func (v *values) inClass(ranges []rune) rune {
	in := func(r rune) bool {
		for i := 0; i < len(ranges); i += 2 {
			if r >= ranges[i] && r <= ranges[i+1] {
				return true
			}
		}
		return false
	}
	if v.rnd.IntN(2) == 0 {
		cands := slices.DeleteFunc(slices.Clone(interesting), func(r rune) bool { return !in(r) })
		if len(cands) > 0 {
			return cands[v.rnd.IntN(len(cands))]
		}
	}
	for range 16 {
		i := 2 * v.rnd.IntN(len(ranges)/2)
		lo, hi := ranges[i], min(ranges[i+1], utf8.MaxRune)
		// Keep most draws in the first planes: a wide negated class
		// would otherwise yield unassigned characters only.
		if hi-lo > 0x3000 && v.rnd.IntN(4) != 0 {
			hi = lo + 0x3000
		}
		r := lo + v.rnd.Int32N(hi-lo+1)
		if utf8.ValidRune(r) {
			return r
		}
	}
	return ranges[0]
}
