package evidence

import (
	"errors"
	"math"
	"unicode/utf8"

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
				dst = appendString(dst, m.v)
				first = false
			}
		}
		dst = append(dst, "},"...)
	}
	dst = append(dst, `"date":`...)
	dst = appendString(dst, r.Date.String())
	dst = append(dst, `,"id":`...)
	dst = appendString(dst, r.ID)
	if l := r.Lineage; l != nil {
		dst = append(dst, `,"lineage":{`...)
		first := true
		str := func(name, v string) {
			if v != "" {
				dst = member(dst, name, first)
				dst = appendString(dst, v)
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
					dst = appendString(dst, v)
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
		dst = appendString(dst, r.MirrorOf)
	}
	if r.Operator != "" {
		dst = append(dst, `,"operator":`...)
		dst = appendString(dst, r.Operator)
	}
	if r.Outcome != "" {
		dst = append(dst, `,"outcome":`...)
		dst = appendString(dst, string(r.Outcome))
	}
	dst = append(dst, `,"ownership":`...)
	dst = appendString(dst, string(r.Ownership))
	if p := r.Prediction; p != nil {
		if math.IsNaN(p.Probability) || math.IsInf(p.Probability, 0) {
			return nil, errors.New("evidence: a prediction's probability is not a finite number")
		}
		dst = append(dst, `,"prediction":{"date":`...)
		dst = appendString(dst, p.Date.String())
		dst = append(dst, `,"probability":`...)
		dst = cjson.AppendNumber(dst, p.Probability)
		dst = append(dst, '}')
	}
	dst = append(dst, `,"quality":`...)
	dst = appendString(dst, string(r.Quality))
	dst = append(dst, `,"reporter":`...)
	dst = appendString(dst, r.Reporter)
	if r.Resolves != "" {
		dst = append(dst, `,"resolves":`...)
		dst = appendString(dst, r.Resolves)
	}
	dst = append(dst, `,"skill":`...)
	dst = appendString(dst, r.Skill)
	dst = append(dst, `,"type":`...)
	dst = appendString(dst, string(r.Type))
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

const hexDigits = "0123456789abcdef"

// appendString appends s as an RFC 8785 string: only '"', '\\' and the
// control characters are escaped (the five with short forms as such, the
// others as lower-case \u00xx); every other character is written as UTF-8,
// and each byte of invalid UTF-8 as U+FFFD.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\r':
				dst = append(dst, '\\', 'r')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\uFFFD"...)
			i++
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
