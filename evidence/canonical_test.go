package evidence_test

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gowebpki/jcs"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/internal/calendar"
)

// viaJCS is the reference canonical form: encoding/json, then RFC 8785.
func viaJCS(t testing.TB, r evidence.Record) []byte {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	c, err := jcs.Transform(b)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func checkCanonical(t testing.TB, r evidence.Record) {
	t.Helper()
	got, err := r.Canonical()
	if err != nil {
		t.Fatalf("canonical: %v", err)
	}
	if want := viaJCS(t, r); !bytes.Equal(got, want) {
		t.Fatalf("direct encoding differs from jcs:\n got %s\nwant %s", got, want)
	}
}

// texts are strings that exercise every escaping rule of RFC 8785.
var texts = []string{
	"", "a", "PostgreSQL indexing", "quote\" back\\slash", "\b\t\n\f\r", "\x00\x01\x1f\x7f", "<>&", "\u2028\u2029",
	"é ü 日本語 🎉", "\xff", "a\xc3", "\xed\xa0\x80", "\xf0\x9f\x98", "ok\x80ok", "/slash/",
}

func randomRecord(r *rand.Rand) evidence.Record {
	pick := func() string { return texts[r.IntN(len(texts))] }
	maybe := func() string {
		if r.IntN(2) == 0 {
			return ""
		}
		return pick()
	}
	list := func() []string {
		var out []string
		for range r.IntN(3) {
			out = append(out, pick())
		}
		return out
	}
	rec := evidence.Record{
		ID: pick(), Type: evidence.Type(pick()), Skill: pick(), Outcome: evidence.Outcome(maybe()),
		Quality: evidence.Quality(pick()), Reporter: pick(), Operator: maybe(), Ownership: evidence.Ownership(pick()),
		Context:  evidence.Context{Domain: maybe(), Environment: maybe(), Protocol: maybe(), Version: maybe(), Workload: maybe(), Constraints: maybe()},
		MirrorOf: maybe(), Resolves: maybe(),
	}
	if r.IntN(2) == 0 {
		rec.Date = calendar.MustParse("1970-01-01").AddDays(r.IntN(30000))
	}
	if r.IntN(2) == 0 {
		rec.Lineage = &evidence.Lineage{Memory: maybe(), VersionRoot: maybe(), ContentHash: maybe(),
			DerivedFrom: list(), Extends: list(), Supersedes: list()}
		if r.IntN(4) == 0 {
			rec.Lineage.Extends = []string{} // empty, not nil: omitted too
		}
	}
	if r.IntN(2) == 0 {
		ps := []float64{0, 1, 0.5, 1e-7, 0.1 + 0.2, 1e21, 123456789.125, math.SmallestNonzeroFloat64, math.Copysign(0, -1), r.Float64()}
		rec.Prediction = &evidence.Prediction{Probability: ps[r.IntN(len(ps))]}
		if r.IntN(2) == 0 {
			rec.Prediction.Date = calendar.MustParse("1970-01-01").AddDays(r.IntN(30000))
		}
	}
	return rec
}

// TestCanonicalMatchesJCS: the direct encoder writes exactly what
// encoding/json followed by RFC 8785 writes, for records with every member
// present or absent and text that needs every kind of escaping.
func TestCanonicalMatchesJCS(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		checkCanonical(t, randomRecord(r))
	}
	checkCanonical(t, evidence.Record{})
	if _, err := (&evidence.Record{Prediction: &evidence.Prediction{Probability: math.NaN()}}).AppendCanonical(nil); err == nil {
		t.Error("a NaN probability was encoded")
	}
}

// FuzzCanonical checks the direct encoder against jcs on arbitrary text in
// every member.
func FuzzCanonical(f *testing.F) {
	for i, s := range texts {
		f.Add(s, texts[(i+1)%len(texts)], uint16(i), 0.25)
	}
	f.Fuzz(func(t *testing.T, a, b string, days uint16, p float64) {
		if math.IsNaN(p) || math.IsInf(p, 0) {
			return
		}
		rec := evidence.Record{
			ID: a, Type: evidence.Type(b), Skill: a + b, Quality: evidence.Quality(b), Reporter: a, Ownership: evidence.Ownership(a),
			Operator: b, Outcome: evidence.Outcome(a), MirrorOf: b, Resolves: a,
			Context: evidence.Context{Domain: a, Constraints: b, Workload: a},
			Lineage: &evidence.Lineage{Memory: b, ContentHash: a, DerivedFrom: []string{a, b}, Supersedes: []string{b}},
			Date:    calendar.MustParse("1970-01-01").AddDays(int(days)), Prediction: &evidence.Prediction{Probability: p, Date: calendar.MustParse("1970-01-01").AddDays(int(days) / 2)},
		}
		checkCanonical(t, rec)
		rec.Lineage, rec.Prediction, rec.Context = nil, nil, evidence.Context{}
		checkCanonical(t, rec)
	})
}

// BenchmarkCanonical writes a typical record's leaf directly and through
// encoding/json and jcs, and reports the direct encoder's time as a ratio
// to the jcs path measured in the same run.
func BenchmarkCanonical(b *testing.B) {
	r := evidence.Record{ID: "ev_abcdefghijklmnopqrstuvwxyz", Type: evidence.TypeOutcome, Skill: "PostgreSQL indexing",
		Outcome: evidence.OutcomeSuccess, Quality: evidence.QualityObservedReuse, Reporter: "act_abcdefghijklmnopqrstuvwxyz",
		Operator: "op_abcdefghijklmnopqrstuvwxyz", Ownership: evidence.OwnershipDistinct,
		Lineage: &evidence.Lineage{Memory: "mem_abcdefghijklmnopqrstuvwxyz", VersionRoot: "mem_bcdefghijklmnopqrstuvwxyza"},
		Context: evidence.Context{Version: "16", Workload: "oltp"}, Date: calendar.MustParse("2026-04-01")}
	var direct, viaJ time.Duration
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		if _, err := r.Canonical(); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		j, _ := json.Marshal(r)
		if _, err := jcs.Transform(j); err != nil {
			b.Fatal(err)
		}
		direct, viaJ = direct+t1.Sub(t0), viaJ+time.Since(t1)
	}
	b.ReportMetric(float64(direct)/float64(viaJ), "direct/jcs")
}
