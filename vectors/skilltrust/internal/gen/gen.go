// Package gen writes the skill trust conformance vectors: one small function
// per case, each stating its inputs and, worked out by hand from the rules,
// its expected results. The clock is fixed at At.
package gen

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/remnant/passportkit/evidence"
	vectors "github.com/remnant/passportkit/vectors/skilltrust"
)

// At is the fixed assessment date of every case.
const At = "2026-01-01"

var at = evidence.MustDate(At)

// R is a record under construction.
type R = evidence.Record

type opt func(*R)

// rec returns a success reported at At about PostgreSQL by a reporter of
// known distinct ownership, with its own actor, operator and memory named
// after the record's id, and no context.
func rec(id string, opts ...opt) R {
	n := strings.TrimPrefix(id, "ev_")
	r := R{
		ID: id, Type: evidence.TypeOutcome, Outcome: evidence.OutcomeSuccess, Skill: "PostgreSQL",
		Quality: evidence.QualityObservedReuse, Reporter: "act_" + n, Operator: "op_" + n,
		Ownership: evidence.OwnershipDistinct, Lineage: &evidence.Lineage{Memory: "mem_" + n}, Date: at,
	}
	for _, o := range opts {
		o(&r)
	}
	return r
}

func skill(s string) opt             { return func(r *R) { r.Skill = s } }
func outcome(o evidence.Outcome) opt { return func(r *R) { r.Outcome = o } }
func failure() opt                   { return outcome(evidence.OutcomeFailure) }
func age(days int) opt               { return func(r *R) { r.Date = at.AddDays(-days) } }
func by(actor, op string) opt        { return func(r *R) { r.Reporter, r.Operator = actor, op } }
func mem(m string) opt               { return func(r *R) { r.Lineage = &evidence.Lineage{Memory: m} } }
func lineage(l evidence.Lineage) opt { return func(r *R) { r.Lineage = &l } }
func noLineage() opt                 { return func(r *R) { r.Lineage = nil } }
func quality(q evidence.Quality) opt { return func(r *R) { r.Quality = q } }
func ctx(c evidence.Context) opt     { return func(r *R) { r.Context = c } }
func domain(d string) opt            { return func(r *R) { r.Context.Domain = d } }
func mirrorOf(id string) opt         { return func(r *R) { r.MirrorOf = id } }
func prediction(p float64, days int) opt {
	return func(r *R) { r.Prediction = &evidence.Prediction{Probability: p, Date: at.AddDays(-days)} }
}

func unknown() opt {
	return func(r *R) { r.Ownership, r.Operator = evidence.OwnershipUnknown, "" }
}

func shared(op string) opt {
	return func(r *R) { r.Ownership, r.Operator = evidence.OwnershipShared, op }
}

// self makes the record the subject's own (actor act_s).
func self() opt {
	return func(r *R) {
		r.Ownership, r.Operator, r.Reporter, r.Quality = evidence.OwnershipSelf, "", "act_s", evidence.QualitySelfReported
	}
}

func typ(t evidence.Type) opt {
	return func(r *R) {
		r.Type = t
		if t != evidence.TypeOutcome {
			r.Outcome = ""
		}
		if t == evidence.TypeDeclaration {
			self()(r)
			r.Quality = evidence.QualityDeclared
		}
		if t == evidence.TypePublication || t.Correction() {
			self()(r)
		}
	}
}

func resolves(id string) opt {
	return func(r *R) { typ(evidence.TypeResolution)(r); r.Resolves = id }
}

// indep returns n successes ev_<p>1 … ev_<p>n from n distinct actors and
// operators, each in its own lineage.
func indep(p string, n int, opts ...opt) []R {
	out := make([]R, n)
	for i := range out {
		out[i] = rec(fmt.Sprintf("ev_%s%d", p, i+1), opts...)
	}
	return out
}

// grid returns one success per operator and context: ops operators
// (act_<p>i, op_<p>i) each reporting in contexts d1 … dctx, each record in
// its own lineage.
func grid(p string, ops, ctxs int, opts ...opt) []R {
	var out []R
	for i := 1; i <= ops; i++ {
		for j := 1; j <= ctxs; j++ {
			id := fmt.Sprintf("%s%d_%d", p, i, j)
			o := append([]opt{by(fmt.Sprintf("act_%s%d", p, i), fmt.Sprintf("op_%s%d", p, i)), domain(fmt.Sprintf("d%d", j))}, opts...)
			out = append(out, rec("ev_"+id, o...))
		}
	}
	return out
}

func cat(groups ...[]R) []R {
	var out []R
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

// exp is a case's expectations.
type exp = map[string]any

// wilson is the Wilson interval written out from its definition, as the
// vectors' own reference.
func wilson(s, n float64) exp {
	const z = 1.959963984540054
	p := s / n
	d := 1 + z*z/n
	mid := (p + z*z/(2*n)) / d
	half := z * math.Sqrt(p*(1-p)/n+z*z/(4*n*n)) / d
	c := func(x float64) float64 { return math.Max(0, math.Min(1, x)) }
	return exp{"midpoint": c(mid), "lower": c(mid - half), "upper": c(mid + half)}
}

func decay(days int) float64 { return math.Exp2(-float64(days) / 365) }

// spec describes one case before it is written.
type spec struct {
	name, rule, desc string
	skill            string
	context          map[string]string
	records          []R
	truncated        bool
	raw              string // evidence file verbatim, instead of records
	expect           exp
}

func (s spec) build() vectors.Case {
	c := vectors.Case{Name: s.name, Rule: s.rule, Description: s.desc, At: At, Expect: s.expect}
	c.Task.Skill = s.skill
	if c.Task.Skill == "" {
		c.Task.Skill = "PostgreSQL"
	}
	c.Task.Context = s.context
	if s.raw != "" {
		c.Evidence = json.RawMessage(s.raw)
		return c
	}
	recs := s.records
	if recs == nil {
		recs = []R{}
	}
	b, err := json.Marshal(struct {
		Evidence  []R  `json:"evidence"`
		Truncated bool `json:"evidenceTruncated,omitempty"`
	}{recs, s.truncated})
	if err != nil {
		panic(err)
	}
	c.Evidence = b
	return c
}

// Cases returns every case, in the order written.
func Cases() []vectors.Case {
	var out []vectors.Case
	for _, f := range all {
		out = append(out, f().build())
	}
	return out
}

func itoa(i int) string             { return fmt.Sprint(i) }
func repeat(s string, n int) string { return strings.Repeat(s, n) }
