package issuer

import (
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/remnant/passportkit/evidence"
)

// MaxQuery bounds a query string, in bytes as sent: six labels of 200
// bytes, percent-encoded, a skill term and a cursor fit.
const MaxQuery = 8 << 10

// QueryParam is one parameter a route's query string may hold.
type QueryParam struct {
	Name string
	// Multi lets the parameter be given more than once; a parameter
	// without it is given at most once.
	Multi bool
}

// QuerySpec is the table of one route's query string (SPEC.md §13.4):
// which parameters it takes, and how a name it does not take is refused.
// Every route of the HTTP API and every page reads its query through a
// QuerySpec, so that no field is ever silently dropped.
type QuerySpec struct {
	Params []QueryParam
	// Unknown refuses a name that is not one of Params; nil refuses it
	// as invalid_request, naming the parameters the route takes.
	Unknown func(name string) error
}

// NoQuery is the table of a route that takes no query parameter.
var NoQuery = QuerySpec{}

// Params returns parameters called names, each given at most once.
func Params(names ...string) []QueryParam {
	out := make([]QueryParam, len(names))
	for i, n := range names {
		out[i] = QueryParam{Name: n}
	}
	return out
}

// ContextParams returns the six context dimensions of SPEC.md §4.4 as
// parameters, each given at most once.
func ContextParams() []QueryParam { return Params(evidence.Dimensions...) }

// param returns the parameter called name.
func (s QuerySpec) param(name string) (QueryParam, bool) {
	for _, p := range s.Params {
		if p.Name == name {
			return p, true
		}
	}
	return QueryParam{}, false
}

// unknown refuses name, which is none of the route's parameters.
func (s QuerySpec) unknown(name string) error {
	if s.Unknown != nil {
		return s.Unknown(name)
	}
	if len(s.Params) == 0 {
		return Errorf(CodeInvalid, "unknown query parameter %q: this address takes no query parameter", truncate(name, 40))
	}
	names := make([]string, len(s.Params))
	for i, p := range s.Params {
		names[i] = p.Name
	}
	return Errorf(CodeInvalid, "unknown query parameter %q: the parameters are %s", truncate(name, 40), strings.Join(names, ", "))
}

// repeated refuses a single-valued parameter given again.
func repeated(name string) error {
	return Errorf(CodeInvalid, "the query parameter %q is given more than once", truncate(name, 40))
}

// Read reads a raw query string by s, whole (SPEC.md §13.4), the first
// fault winning: a query over [MaxQuery] bytes; then each field in order
// (fields are split on &, empty ones skipped): a ; in it, or a name or
// value that does not percent-decode (a + is a space); then the names s
// does not take, the first in byte order refused; then a single-valued
// parameter given more than once, the first in byte order. All are
// invalid_request unless s.Unknown says otherwise. It returns the values
// by name, in the order given; what they must hold is the route's rule.
func (s QuerySpec) Read(raw string) (url.Values, error) {
	v := url.Values{}
	err := eachField(raw, func(name, value string) error {
		v[name] = append(v[name], value)
		return nil
	})
	if err != nil {
		return nil, err
	}
	names := slices.Sorted(maps.Keys(v))
	for _, name := range names {
		if _, ok := s.param(name); !ok {
			return nil, s.unknown(name)
		}
	}
	for _, name := range names {
		if p, _ := s.param(name); !p.Multi && len(v[name]) > 1 {
			return nil, repeated(name)
		}
	}
	return v, nil
}

// ReadFields reads a raw query string by s field by field (SPEC.md §16.2),
// the first fault winning: a query over [MaxQuery] bytes; then each field
// in order: a ; in it, a name or value that does not percent-decode, a
// name given before (of a single-valued parameter), a name s does not
// take, and then each's value's rule, which each applies.
func (s QuerySpec) ReadFields(raw string, each func(name, value string) error) error {
	seen := map[string]bool{}
	return eachField(raw, func(name, value string) error {
		p, ok := s.param(name)
		switch {
		case seen[name] && !p.Multi:
			return repeated(name)
		case !ok:
			return s.unknown(name)
		}
		seen[name] = true
		return each(name, value)
	})
}

// eachField calls f with each field of raw, decoded, in order.
func eachField(raw string, f func(name, value string) error) error {
	if len(raw) > MaxQuery {
		return Errorf(CodeInvalid, "the query string exceeds %d bytes", MaxQuery)
	}
	for field := range strings.SplitSeq(raw, "&") {
		if field == "" {
			continue
		}
		if strings.Contains(field, ";") {
			return Errorf(CodeInvalid, "query fields are separated by &, not ;")
		}
		k, v, _ := strings.Cut(field, "=")
		name, err1 := url.QueryUnescape(k)
		value, err2 := url.QueryUnescape(v)
		if err1 != nil || err2 != nil {
			return Errorf(CodeInvalid, "the query field %q is not percent-encoded correctly", truncate(k, 40))
		}
		if err := f(name, value); err != nil {
			return err
		}
	}
	return nil
}

// one returns the value of the single-valued parameter name in v, as
// [QuerySpec.Read] returns it; nil when it is absent.
func one(v url.Values, name string) *string {
	if vals, ok := v[name]; ok {
		return &vals[0]
	}
	return nil
}

// uintParam reads the value of the parameter name, nil when absent: 1 to
// 9 decimal digits, else invalid_request.
func uintParam(name string, val *string) (*int, error) {
	if val == nil {
		return nil, nil
	}
	n, err := parseSmallUint(*val)
	if err != nil {
		return nil, Errorf(CodeInvalid, "%s must be a non-negative integer", name)
	}
	return &n, nil
}
