package openapigen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// mutation breaks one rule of a drawn request.
type mutation struct {
	rule string
	// extension: the rule is one of the document's extensions, which a
	// JSON Schema validator does not read.
	extension bool
	apply     func(d *draw)
}

// Invalid returns a request for op that breaks one rule of the document,
// named by its Broken, and false when op has no rule the generator can
// break (an operation without parameters or body).
func (g *Generator) Invalid(op *Operation) (Request, bool) {
	d := g.draw(op)
	var ms []mutation
	g.queryMutations(op, &ms)
	if d.hasBody {
		g.valueMutations(op.body, d.body, nil, "body", &ms)
	}
	if len(ms) == 0 {
		return Request{}, false
	}
	m := ms[g.v.rnd.IntN(len(ms))]
	d.body = clone(d.body)
	m.apply(&d)
	return g.build(op, d, m.rule, m.extension), true
}

func clone(v any) any {
	b, _ := json.Marshal(v)
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		panic(err)
	}
	return out
}

func (g *Generator) queryMutations(op *Operation, ms *[]mutation) {
	for _, p := range op.params {
		name, in := p["name"].(string), p["in"].(string)
		if in != "query" {
			continue
		}
		s := g.v.resolve(p["schema"].(schema))
		set := func(rule string, val any, ext bool) {
			*ms = append(*ms, mutation{rule: "query " + name + ": " + rule, extension: ext, apply: func(d *draw) { d.query[name] = val }})
		}
		if p["required"] == true {
			*ms = append(*ms, mutation{rule: "query " + name + ": missing", apply: func(d *draw) { delete(d.query, name) }})
		}
		for _, sm := range g.scalarMutations(s) {
			set(sm.rule, sm.val, sm.extension)
		}
	}
	for _, grp := range op.exclusive {
		*ms = append(*ms, mutation{rule: "query: " + strings.Join(grp, " and ") + " together", extension: true, apply: func(d *draw) {
			for _, p := range op.params {
				if slices.Contains(grp, p["name"].(string)) {
					d.query[p["name"].(string)] = g.v.generate(p["schema"].(schema), 1)
				}
			}
		}})
	}
	for _, r := range op.sums {
		*ms = append(*ms, mutation{rule: "query: " + strings.Join(r.params, " + ") + " over its bound", extension: true, apply: func(d *draw) {
			for _, n := range r.params {
				s, _ := op.param(n)["schema"].(schema)
				if m, ok := num(g.v.resolve(s), "maximum"); ok {
					d.query[n] = json.Number(trimDecimal(exactDecimal(m).FloatString(0)))
				}
			}
		}})
	}
	for _, k := range sortedKeys(anyMap(op.dependent)) {
		*ms = append(*ms, mutation{rule: "query " + k + " without " + strings.Join(op.dependent[k], ", "), extension: true, apply: func(d *draw) {
			for _, p := range op.params {
				switch n := p["name"].(string); {
				case n == k:
					for range 8 {
						d.query[n] = g.v.generate(p["schema"].(schema), 1)
						if d.query[n] != nil {
							break
						}
					}
				case slices.Contains(op.dependent[k], n):
					delete(d.query, n)
				}
			}
		}})
	}
}

type scalarMutation struct {
	rule      string
	val       any
	extension bool
}

// scalarMutations returns values that break one rule of the string,
// number or enum schema s.
func (g *Generator) scalarMutations(s schema) []scalarMutation {
	var out []scalarMutation
	s = g.v.resolve(s)
	if _, ok := s["enum"]; ok {
		return append(out, scalarMutation{rule: "outside enum", val: "zz_not_listed"})
	}
	ts := g.v.types(s)
	if slices.Contains(ts, "integer") || slices.Contains(ts, "number") {
		if !slices.Contains(ts, "string") {
			out = append(out, scalarMutation{rule: "not a number", val: "x1"})
		}
		if m, ok := num(s, "maximum"); ok {
			out = append(out, scalarMutation{rule: "over maximum", val: json.Number(trimDecimal(exactDecimal(m + 1).FloatString(6)))})
		}
		if m, ok := num(s, "minimum"); ok {
			out = append(out, scalarMutation{rule: "under minimum", val: json.Number(trimDecimal(exactDecimal(m - 1).FloatString(6)))})
		}
		if m, ok := num(s, "multipleOf"); ok {
			out = append(out, scalarMutation{rule: "not a multiple of its multipleOf", val: json.Number(trimDecimal(exactDecimal(m / 2).FloatString(12)))})
		}
		if slices.Contains(ts, "integer") && !slices.Contains(ts, "number") {
			out = append(out, scalarMutation{rule: "a fraction", val: json.Number("1.5")})
		}
	}
	if slices.Contains(ts, "string") {
		valid := func() string {
			x, _ := g.v.generate(schema{"type": "string", "pattern": s["pattern"], "minLength": s["minLength"], "maxLength": s["maxLength"]}, 1).(string)
			return x
		}
		if s["pattern"] == nil {
			valid = func() string { return "a" }
		}
		if m, ok := num(s, "maxLength"); ok {
			// Pad a valid string with a character that keeps it valid
			// but for its length, and that no reader trims.
			x := strings.TrimFunc(valid(), unicode.IsSpace)
			first, _ := utf8.DecodeRuneInString(x)
			last, _ := utf8.DecodeLastRuneInString(x)
			for _, c := range []rune{last, first, 'a', '7'} {
				if c == utf8.RuneError || unicode.IsSpace(c) {
					continue
				}
				y := x + strings.Repeat(string(c), int(m)+1-utf8.RuneCountInString(x))
				if p, ok := s["pattern"].(string); !ok || g.v.re(p).MatchString(y) {
					out = append(out, scalarMutation{rule: "over maxLength", val: y})
					break
				}
			}
		}
		if m, ok := num(s, "minLength"); ok && m >= 1 {
			out = append(out, scalarMutation{rule: "under minLength", val: ""})
		}
		if p, ok := s["pattern"].(string); ok {
			for _, x := range []string{"\x00", "~", "a\u202eb", " "} {
				if !g.v.re(p).MatchString(x) {
					out = append(out, scalarMutation{rule: fmt.Sprintf("%q against its pattern", x), val: x})
					break
				}
			}
		}
		if m, ok := num(s, "x-maxBytes"); ok {
			out = append(out, scalarMutation{rule: "over x-maxBytes", val: strings.Repeat("日", int(m)/3+1), extension: true})
		}
	}
	return out
}

// branchFor returns the schema of s that describes a value of the JSON
// type kind (s, or the first branch of its anyOf or oneOf that does), or
// nil.
func (g *Generator) branchFor(s schema, kind string) schema {
	s = g.v.resolve(s)
	if ts := g.v.types(s); slices.Contains(ts, kind) {
		return s
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		for _, b := range asList(s[k]) {
			if r := g.branchFor(b.(schema), kind); r != nil {
				return r
			}
		}
	}
	return nil
}

// at returns the container holding the value at path in root.
func at(root any, path []any) any {
	cur := root
	for _, k := range path {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[k.(string)]
		case []any:
			cur = c[k.(int)]
		}
	}
	return cur
}

// setAt stores val at path in d's body.
func setAt(d *draw, path []any, val any) {
	if len(path) == 0 {
		d.body = val
		return
	}
	switch c := at(d.body, path[:len(path)-1]).(type) {
	case map[string]any:
		c[path[len(path)-1].(string)] = val
	case []any:
		c[path[len(path)-1].(int)] = val
	}
}

// valueMutations collects the mutations of the value val, of schema s, at
// path in the body, and of what it holds.
func (g *Generator) valueMutations(s schema, val any, path []any, where string, ms *[]mutation) {
	s = g.v.resolve(s)
	p := slices.Clone(path)
	add := func(rule string, ext bool, f func(d *draw)) {
		*ms = append(*ms, mutation{rule: where + ": " + rule, extension: ext, apply: f})
	}
	if val != nil && !g.v.nullable(s) {
		add("null where not nullable", false, func(d *draw) { setAt(d, p, nil) })
	}
	switch x := val.(type) {
	case map[string]any:
		os := g.branchFor(s, "object")
		if os == nil {
			return
		}
		add("an array for an object", false, func(d *draw) { setAt(d, p, []any{}) })
		if os["additionalProperties"] == false {
			add("an unknown member", false, func(d *draw) { at(d.body, p).(map[string]any)["zzUnknown"] = json.Number("1") })
		}
		for _, r := range asList(os["required"]) {
			name := r.(string)
			add("missing required "+name, false, func(d *draw) { delete(at(d.body, p).(map[string]any), name) })
		}
		props, _ := os["properties"].(schema)
		for _, name := range sortedKeys(x) {
			ps, ok := props[name].(schema)
			if !ok {
				continue
			}
			g.valueMutations(ps, x[name], append(slices.Clone(p), name), where+"."+name, ms)
		}
	case []any:
		as := g.branchFor(s, "array")
		if as == nil {
			return
		}
		add("an object for an array", false, func(d *draw) { setAt(d, p, map[string]any{}) })
		items, _ := as["items"].(schema)
		if m, ok := num(as, "maxItems"); ok && items != nil {
			add("over maxItems", false, func(d *draw) {
				seen := map[string]bool{}
				var l []any
				for tries := 0; len(l) <= int(m) && tries < 64*int(m+1); tries++ {
					v := g.v.generate(items, 2)
					k, _ := json.Marshal(v)
					if as["uniqueItems"] == true && seen[string(k)] {
						continue
					}
					seen[string(k)] = true
					l = append(l, v)
				}
				setAt(d, p, l)
			})
		}
		if m, ok := num(as, "minItems"); ok && m >= 1 {
			add("under minItems", false, func(d *draw) { setAt(d, p, x[:int(m)-1]) })
		}
		if as["uniqueItems"] == true && len(x) > 0 {
			add("a repeated item", false, func(d *draw) { setAt(d, p, append(slices.Clone(x), x[0])) })
		}
		for i, e := range x {
			if items != nil {
				g.valueMutations(items, e, append(slices.Clone(p), i), fmt.Sprintf("%s[%d]", where, i), ms)
			}
		}
	case nil:
	default:
		ts := g.v.types(s)
		if s["const"] != nil || s["anyOf"] != nil || s["oneOf"] != nil {
			ts = nil
		}
		if len(ts) > 0 {
			for _, alt := range []struct {
				t string
				v any
			}{{"string", "x"}, {"integer", json.Number("7")}, {"boolean", true}, {"object", map[string]any{}}} {
				if !slices.Contains(ts, alt.t) && !(alt.t == "integer" && slices.Contains(ts, "number")) {
					add("a "+alt.t+" for "+strings.Join(ts, "|"), false, func(d *draw) { setAt(d, p, alt.v) })
					break
				}
			}
		}
		sc := s
		if b := g.branchFor(s, "string"); b != nil {
			sc = b
		} else if b := g.branchFor(s, "number"); b != nil {
			sc = b
		} else if b := g.branchFor(s, "integer"); b != nil {
			sc = b
		}
		if _, isEnum := s["enum"]; isEnum || g.v.types(sc) != nil {
			for _, sm := range g.scalarMutations(sc) {
				add(sm.rule, sm.extension, func(d *draw) { setAt(d, p, sm.val) })
			}
		}
	}
}
