package skilltrust_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/skilltrust"
	"github.com/remnant/passportkit/verifier"
)

const issuer = "https://issuer.example"

// signedPassport issues a passport whose skill passports are assessed from
// recs, disclosing the leaves at disclose, and returns the verified result.
func signedPassport(t *testing.T, recs []evidence.Record, tamper func(*passport.Passport), disclose []int) *verifier.Result {
	t.Helper()
	set := mustSet(t, recs)
	issued := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	p := &passport.Passport{
		PassportVersion: passport.Version, TrustModelVersion: passport.TrustModelVersion, Issuer: issuer,
		Subject: passport.Subject{ID: "agt_subject"}, IssuedAt: passport.NewTime(issued), ExpiresAt: passport.NewTime(issued.Add(24 * time.Hour)),
		Policies: passport.DefaultPolicies(),
	}
	for _, skill := range []string{"PostgreSQL indexing", "SQLite"} {
		a, err := skilltrust.Assess(set, skilltrust.Task{Skill: skill}, at)
		if err != nil {
			t.Fatal(err)
		}
		sp, err := a.SkillPassport()
		if err != nil {
			t.Fatal(err)
		}
		p.SkillPassports = append(p.SkillPassports, sp)
	}
	if tamper != nil {
		tamper(p)
	}
	leaves := make([]json.RawMessage, len(recs))
	for i, r := range recs {
		b, err := r.Canonical()
		if err != nil {
			t.Fatal(err)
		}
		leaves[i] = b
	}
	key, err := passport.NewPrivateKey(passport.EdDSA, bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	bundle, err := passport.NewSigner(key).Sign(p, leaves, disclose)
	if err != nil {
		t.Fatal(err)
	}
	trust, err := verifier.NewTrust(issuer, verifier.TrustedKey{Key: key.Public()})
	if err != nil {
		t.Fatal(err)
	}
	v, err := verifier.New(trust)
	if err != nil {
		t.Fatal(err)
	}
	res, err := v.Verify(context.Background(), bundle, verifier.AnySubject().At(issued.Add(time.Hour)))
	if err != nil || !res.Verified {
		t.Fatalf("verify: %v %+v", err, res)
	}
	return res
}

func recomputeResult(t *testing.T, res *verifier.Result) []skilltrust.Recomputed {
	t.Helper()
	p, err := res.Decode()
	if err != nil {
		t.Fatal(err)
	}
	leaves := map[int][]byte{}
	for _, l := range res.Evidence {
		leaves[l.Index] = l.Record
	}
	return skilltrust.Recompute(p.SkillPassports, p.EvidenceCount, leaves)
}

func recomputeRecords() []evidence.Record {
	var recs []evidence.Record
	for i := range 7 {
		r := evidence.Record{ID: fmt.Sprintf("ev_%d", i), Type: evidence.TypeOutcome, Outcome: evidence.OutcomeSuccess,
			Skill: "PG indexing", Quality: evidence.QualityObservedReuse, Reporter: fmt.Sprintf("act_%d", i),
			Operator: fmt.Sprintf("op_%d", i), Ownership: evidence.OwnershipDistinct, Date: at.AddDays(-30 * i)}
		if i == 3 {
			r.Outcome = evidence.OutcomeFailure
		}
		recs = append(recs, r)
	}
	return recs
}

func all(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// TestRecompute re-derives the skill passports of a signed, verified bundle.
func TestRecompute(t *testing.T) {
	recs := recomputeRecords()
	t.Run("all disclosed, honest", func(t *testing.T) {
		for _, r := range recomputeResult(t, signedPassport(t, recs, nil, all(len(recs)))) {
			if r.Status != skilltrust.RecomputeMatch {
				t.Errorf("%s: %s %s", r.Skill, r.Status, r.Detail)
			}
		}
	})
	t.Run("all disclosed, inflated", func(t *testing.T) {
		inflate := func(p *passport.Passport) {
			sp := &p.SkillPassports[0]
			sp.Effective.Failures, sp.Effective.Successes = 0, sp.Effective.Binary
			sp.AssessmentHash, _ = sp.Hash() // a consistent hash over false figures
		}
		got := recomputeResult(t, signedPassport(t, recs, inflate, all(len(recs))))
		if got[0].Status != skilltrust.RecomputeDiffers || fmt.Sprint(got[0].Differences) != "[assessmentHash effective]" {
			t.Errorf("inflated skill passport: %+v", got[0])
		}
		if got[1].Status != skilltrust.RecomputeMatch {
			t.Errorf("untouched skill passport: %+v", got[1])
		}
	})
	t.Run("some disclosed", func(t *testing.T) {
		for _, r := range recomputeResult(t, signedPassport(t, recs, nil, []int{0, 2})) {
			if r.Status != skilltrust.RecomputeNotDisclosed || r.Detail != "2 of the passport's 7 evidence records are disclosed" {
				t.Errorf("%s: %s %s", r.Skill, r.Status, r.Detail)
			}
		}
	})
}

// TestRecomputeUnverifiable checks leaves that are not evidence records.
func TestRecomputeUnverifiable(t *testing.T) {
	sp := passport.SkillPassport{Skill: "PostgreSQL", AssessedAt: "2026-01-01"}
	got := skilltrust.Recompute([]passport.SkillPassport{sp}, 1, map[int][]byte{0: []byte(`{"kind":"outcome_report"}`)})
	if got[0].Status != skilltrust.RecomputeUnverifiable {
		t.Errorf("%+v", got[0])
	}
	sp.AssessedAt = ""
	leaf, _ := recomputeRecords()[0].Canonical()
	if got := skilltrust.Recompute([]passport.SkillPassport{sp}, 1, map[int][]byte{0: leaf}); got[0].Status != skilltrust.RecomputeUnverifiable {
		t.Errorf("no assessedAt: %+v", got[0])
	}
}

// TestNormalizeIdempotent: a skill passport's skill normalises to itself,
// so recomputation asks about the same skill.
func TestNormalizeIdempotent(t *testing.T) {
	o := skilltrust.Skills1()
	for _, term := range []string{"PG indexing", "postgres tuning", "tuning", "MCP debugging", "pg bouncer", "Kubernetes", "ＰＧ  replication"} {
		n := o.Normalize(term).Name
		if again := o.Normalize(n).Name; again != n {
			t.Errorf("%q normalises to %q, then to %q", term, n, again)
		}
	}
}

// TestRecomputeLaterMinorHash checks that a skill passport of a later minor
// version, whose assessmentHash covers a member this package does not know,
// recomputes to match on the members it knows (SPEC.md §4.15), while the
// same hash in a 2.1 skill passport differs.
func TestRecomputeLaterMinorHash(t *testing.T) {
	recs := recomputeRecords()
	leaves := map[int][]byte{}
	for i, r := range recs {
		leaves[i], _ = r.Canonical()
	}
	set, err := evidence.NewSet(recs, false)
	if err != nil {
		t.Fatal(err)
	}
	a, err := skilltrust.Assess(set, skilltrust.Task{Skill: "PostgreSQL"}, evidence.MustDate("2026-05-01"))
	if err != nil {
		t.Fatal(err)
	}
	sp, err := a.SkillPassport()
	if err != nil {
		t.Fatal(err)
	}
	sp.AssessmentHash = strings.Repeat("0", 64) // as if over a later member
	got := skilltrust.RecomputeAs("2.9", []passport.SkillPassport{sp}, len(recs), leaves)
	if got[0].Status != skilltrust.RecomputeMatch || !strings.Contains(got[0].Detail, "not recomputed") {
		t.Errorf("2.9: %+v", got[0])
	}
	got = skilltrust.RecomputeAs("2.1", []passport.SkillPassport{sp}, len(recs), leaves)
	if got[0].Status != skilltrust.RecomputeDiffers {
		t.Errorf("2.1: %+v", got[0])
	}
}
