package evidence

import (
	"errors"
	"math"

	"github.com/remnant/passportkit/internal/cjson"
)

// AppendCanonical appends the record's canonical JSON (RFC 8785), its
// evidence leaf, to dst. It writes the members directly, in canonical
// order, with no intermediate encoding: the bytes equal
// jcs.Transform(json.Marshal(r)), which a test and a fuzz target check.
// Members are written as encoding/json would marshal the record (omitted
// when empty where the field says omitempty), and text that is not valid
// UTF-8 is written with U+FFFD in place of each invalid byte, as
// encoding/json does. A prediction whose probability is not a finite
// number is an error.
func (r *Record) AppendCanonical(dst []byte) ([]byte, error) {
	// Member names sorted by UTF-16 code units (all ASCII): context, date,
	// id, lineage, mirrorOf, operator, outcome, ownership, prediction,
	// quality, reporter, resolves, skill, type.
	dst = append(dst, '{')
	if r.Context != (Context{}) {
		dst = append(dst, `"context":{`...)
		c := &r.Context
		first := true
		for _, m := range [...]struct{ name, v string }{
			{"constraints", c.Constraints}, {"domain", c.Domain}, {"environment", c.Environment},
			{"protocol", c.Protocol}, {"version", c.Version}, {"workload", c.Workload},
		} {
			if m.v != "" {
				dst = member(dst, m.name, first)
				dst = cjson.AppendString(dst, m.v)
				first = false
			}
		}
		dst = append(dst, "},"...)
	}
	dst = append(dst, `"date":`...)
	dst = cjson.AppendString(dst, r.Date.String())
	dst = append(dst, `,"id":`...)
	dst = cjson.AppendString(dst, r.ID)
	if l := r.Lineage; l != nil {
		dst = append(dst, `,"lineage":{`...)
		first := true
		str := func(name, v string) {
			if v != "" {
				dst = member(dst, name, first)
				dst = cjson.AppendString(dst, v)
				first = false
			}
		}
		list := func(name string, vs []string) {
			if len(vs) > 0 {
				dst = member(dst, name, first)
				dst = append(dst, '[')
				for i, v := range vs {
					if i > 0 {
						dst = append(dst, ',')
					}
					dst = cjson.AppendString(dst, v)
				}
				dst = append(dst, ']')
				first = false
			}
		}
		str("contentHash", l.ContentHash)
		list("derivedFrom", l.DerivedFrom)
		list("extends", l.Extends)
		str("memory", l.Memory)
		list("supersedes", l.Supersedes)
		str("versionRoot", l.VersionRoot)
		dst = append(dst, '}')
	}
	if r.MirrorOf != "" {
		dst = append(dst, `,"mirrorOf":`...)
		dst = cjson.AppendString(dst, r.MirrorOf)
	}
	if r.Operator != "" {
		dst = append(dst, `,"operator":`...)
		dst = cjson.AppendString(dst, r.Operator)
	}
	if r.Outcome != "" {
		dst = append(dst, `,"outcome":`...)
		dst = cjson.AppendString(dst, string(r.Outcome))
	}
	dst = append(dst, `,"ownership":`...)
	dst = cjson.AppendString(dst, string(r.Ownership))
	if p := r.Prediction; p != nil {
		if math.IsNaN(p.Probability) || math.IsInf(p.Probability, 0) {
			return nil, errors.New("evidence: a prediction's probability is not a finite number")
		}
		dst = append(dst, `,"prediction":{"date":`...)
		dst = cjson.AppendString(dst, p.Date.String())
		dst = append(dst, `,"probability":`...)
		dst = cjson.AppendNumber(dst, p.Probability)
		dst = append(dst, '}')
	}
	dst = append(dst, `,"quality":`...)
	dst = cjson.AppendString(dst, string(r.Quality))
	dst = append(dst, `,"reporter":`...)
	dst = cjson.AppendString(dst, r.Reporter)
	if r.Resolves != "" {
		dst = append(dst, `,"resolves":`...)
		dst = cjson.AppendString(dst, r.Resolves)
	}
	dst = append(dst, `,"skill":`...)
	dst = cjson.AppendString(dst, r.Skill)
	dst = append(dst, `,"type":`...)
	dst = cjson.AppendString(dst, string(r.Type))
	return append(dst, '}'), nil
}

// member appends a member name and its colon, after a comma unless first.
func member(dst []byte, name string, first bool) []byte {
	if !first {
		dst = append(dst, ',')
	}
	dst = append(dst, '"')
	dst = append(dst, name...)
	return append(dst, '"', ':')
}
