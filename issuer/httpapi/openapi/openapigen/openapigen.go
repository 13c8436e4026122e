// Package openapigen generates HTTP requests from an OpenAPI 3.1 document,
// for tests that hold a server to its document: requests the document
// accepts ([Generator.Valid]) and requests that break one of its rules
// ([Generator.Invalid]).
//
// Values are drawn from the schemas of each operation's parameters and
// request body: types (a list of types included), const, enum, pattern (a
// string is generated from the pattern's syntax tree, as Go's
// regexp/syntax reads it), minLength and maxLength, minimum, maximum and
// multipleOf, minItems, maxItems and uniqueItems, properties, required and
// additionalProperties, anyOf and oneOf (a branch of an object may require
// members and, with not, forbid others), allOf (merged), not with a pattern or
// an enum of strings, and $ref within the document.
// Strings without a pattern are drawn from characters servers tend to
// treat apart (white space, control and invisible format characters, markup,
// characters of up to four bytes), lengths near the bounds as often as
// between. Two extensions state what JSON Schema cannot: x-maxBytes on a
// string schema bounds its UTF-8 bytes, and x-parameterRules on an
// operation states mutuallyExclusive groups of parameters (at most one of
// each given), dependentRequired parameters (a parameter given needs the
// ones it lists) and sumAtMost (integer parameters whose sum, an absent
// one counting as its default, is at most maximum). x-ascii on a string schema keeps it visible ASCII (a
// header's value).
//
// The generator aims at the document, it does not prove its output valid:
// the caller checks each request against the document (package
// openapitest) and draws again when the document refuses one. A run is
// determined by its seed.
package openapigen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// Generator generates requests for the operations of one document. It is
// not safe for concurrent use.
type Generator struct {
	v values
}

// New returns a generator over the OpenAPI document doc, its draws
// determined by seed. pools maps a string schema's pattern to the values
// drawn for it instead of generated ones: the ids of what exists on the
// server under test.
func New(doc []byte, seed uint64, pools map[string][]string) (*Generator, error) {
	var d map[string]any
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, fmt.Errorf("openapigen: %w", err)
	}
	return &Generator{v: values{doc: d, rnd: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), pools: pools, res: map[string]*regexp.Regexp{}}}, nil
}

// Operation is one operation of the document.
type Operation struct {
	Method string
	// Path is the path template, such as /api/memories/{id}.
	Path string
	// Secured reports whether the operation requires a security scheme.
	Secured bool

	params []schema
	body   schema
	// raw is the byte bound of a body that is not JSON (a binary string
	// of any media type, sent as application/octet-stream); 0 for none.
	raw       int
	exclusive [][]string
	dependent map[string][]string
	sums      []sumRule
}

// sumRule bounds the sum of integer parameters, each absent one counting
// as its default.
type sumRule struct {
	params []string
	max    float64
}

// String returns "METHOD path".
func (o *Operation) String() string { return o.Method + " " + o.Path }

// Operations returns the document's operations, ordered by path and
// method.
func (g *Generator) Operations() []*Operation {
	paths, _ := g.v.doc["paths"].(map[string]any)
	var out []*Operation
	for _, path := range sortedKeys(paths) {
		item := paths[path].(map[string]any)
		for _, method := range []string{"get", "put", "post", "delete", "patch"} {
			op, ok := item[method].(map[string]any)
			if !ok {
				continue
			}
			o := &Operation{Method: strings.ToUpper(method), Path: path, dependent: map[string][]string{}}
			sec, ok := op["security"].([]any)
			if !ok {
				sec, _ = g.v.doc["security"].([]any)
			}
			o.Secured = slices.ContainsFunc(sec, func(x any) bool { return len(x.(map[string]any)) > 0 })
			for _, p := range append(asList(item["parameters"]), asList(op["parameters"])...) {
				o.params = append(o.params, g.v.resolve(p.(schema)))
			}
			if rb, ok := op["requestBody"].(schema); ok {
				rb = g.v.resolve(rb)
				content, _ := rb["content"].(schema)
				if mt, ok := content["application/json"].(schema); ok {
					o.body, _ = mt["schema"].(schema)
				} else if mt, ok := cmpOr(content["application/octet-stream"], content["*/*"]).(schema); ok {
					if s, _ := mt["schema"].(schema); s["format"] == "binary" {
						o.raw = 1 << 10
						if m, ok := s["maxLength"].(float64); ok && int(m) < o.raw {
							o.raw = int(m)
						}
					}
				}
			}
			if rules, ok := op["x-parameterRules"].(schema); ok {
				for _, grp := range asList(rules["mutuallyExclusive"]) {
					var names []string
					for _, n := range asList(grp) {
						names = append(names, n.(string))
					}
					o.exclusive = append(o.exclusive, names)
				}
				for _, r := range asList(rules["sumAtMost"]) {
					r := r.(schema)
					sr := sumRule{max: r["maximum"].(float64)}
					for _, n := range asList(r["parameters"]) {
						sr.params = append(sr.params, n.(string))
					}
					o.sums = append(o.sums, sr)
				}
				if dep, ok := rules["dependentRequired"].(schema); ok {
					for k, l := range dep {
						for _, n := range asList(l) {
							o.dependent[k] = append(o.dependent[k], n.(string))
						}
					}
				}
			}
			out = append(out, o)
		}
	}
	return out
}

// Request is a generated request.
type Request struct {
	Method string
	// Path is the path with its parameters, escaped.
	Path string
	// Query is the raw query string, without ?.
	Query  string
	Header http.Header
	// Body is the JSON body, nil for none.
	Body []byte
	// Broken names the rule an invalid request breaks; "" for a valid
	// request.
	Broken string
	// Dependency reports that the rule broken is one of x-parameterRules,
	// which a JSON Schema validator does not read.
	Dependency bool
}

// URL returns the request's path and query.
func (r Request) URL() string {
	if r.Query == "" {
		return r.Path
	}
	return r.Path + "?" + r.Query
}

// draw is a request in the making: the parameters by location and the
// body's value.
type draw struct {
	path, query, header map[string]any
	body                any
	hasBody             bool
	// raw is a body of bytes, for an operation whose body is not JSON.
	raw []byte
}

// Valid returns a request for op that the document (with high
// probability; the caller checks) accepts.
func (g *Generator) Valid(op *Operation) Request {
	return g.build(op, g.draw(op), "", false)
}

func (g *Generator) draw(op *Operation) draw {
	d := draw{path: map[string]any{}, query: map[string]any{}, header: map[string]any{}}
	for _, p := range op.params {
		name, in := p["name"].(string), p["in"].(string)
		if p["required"] != true && g.v.rnd.IntN(2) == 0 {
			continue
		}
		s, _ := p["schema"].(schema)
		if in == "header" {
			s = withASCII(g.v.resolve(s))
		}
		val := g.v.generate(s, 1)
		switch in {
		case "path":
			d.path[name] = val
		case "query":
			d.query[name] = val
		case "header":
			d.header[name] = val
		}
	}
	for _, grp := range op.exclusive {
		var given []string
		for _, n := range grp {
			if _, ok := d.query[n]; ok {
				given = append(given, n)
			}
		}
		if len(given) > 1 {
			keep := given[g.v.rnd.IntN(len(given))]
			for _, n := range given {
				if n != keep {
					delete(d.query, n)
				}
			}
		}
	}
	for _, k := range sortedKeys(anyMap(op.dependent)) {
		if _, ok := d.query[k]; !ok {
			continue
		}
		for _, need := range op.dependent[k] {
			if _, ok := d.query[need]; !ok {
				delete(d.query, k)
			}
		}
	}
	for _, r := range op.sums {
		// Leave out the first parameter, then the next, until the sum
		// is within the bound.
		for _, n := range r.params {
			if op.sum(r, d.query) <= r.max {
				break
			}
			delete(d.query, n)
		}
	}
	if op.body != nil {
		d.body, d.hasBody = g.v.generate(op.body, 0), true
	}
	if op.raw > 0 {
		d.raw = make([]byte, g.v.rnd.IntN(op.raw+1))
		for i := range d.raw {
			d.raw[i] = byte(g.v.rnd.UintN(256))
		}
	}
	return d
}

// cmpOr returns a if it is not nil, else b.
func cmpOr(a, b any) any {
	if a != nil {
		return a
	}
	return b
}

// param returns the parameter of op called name, in the query.
func (o *Operation) param(name string) schema {
	for _, p := range o.params {
		if p["name"] == name && p["in"] == "query" {
			return p
		}
	}
	return nil
}

// sum returns the sum of r's parameters in query, an absent one counting
// as its schema's default.
func (o *Operation) sum(r sumRule, query map[string]any) float64 {
	total := 0.0
	for _, n := range r.params {
		var f float64
		if x, ok := query[n]; ok {
			fmt.Sscan(scalar(x), &f)
		} else if p := o.param(n); p != nil {
			s, _ := p["schema"].(schema)
			f, _ = s["default"].(float64)
		}
		total += f
	}
	return total
}

func anyMap(m map[string][]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func withASCII(s schema) schema {
	out := schema{"x-ascii": true}
	for k, x := range s {
		out[k] = x
	}
	return out
}

// build writes d as a request of op.
func (g *Generator) build(op *Operation, d draw, broken string, dependency bool) Request {
	r := Request{Method: op.Method, Header: http.Header{}, Broken: broken, Dependency: dependency}
	path := op.Path
	for name, val := range d.path {
		path = strings.ReplaceAll(path, "{"+name+"}", url.PathEscape(scalar(val)))
	}
	r.Path = path
	var q []string
	for _, name := range sortedKeys(d.query) {
		q = append(q, url.QueryEscape(name)+"="+url.QueryEscape(scalar(d.query[name])))
	}
	g.v.rnd.Shuffle(len(q), func(i, j int) { q[i], q[j] = q[j], q[i] })
	r.Query = strings.Join(q, "&")
	for name, val := range d.header {
		r.Header.Set(name, scalar(val))
	}
	if d.hasBody {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(d.body); err != nil {
			panic(err)
		}
		r.Body = bytes.TrimSuffix(b.Bytes(), []byte("\n"))
		r.Header.Set("Content-Type", "application/json")
	}
	if d.raw != nil {
		r.Body = d.raw
		r.Header.Set("Content-Type", "application/octet-stream")
	}
	return r
}

// scalar writes a parameter's value as its form style does.
func scalar(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return string(x)
	case bool:
		if x {
			return "true"
		}
		return "false"
	case nil:
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}
