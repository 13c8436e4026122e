package passport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"

	"github.com/remnant/passportkit/internal/cjson"
)

var canonicalSeeds = []string{
	`{"b":1,"a":[true,false,null,"x\u0000\n",1.5e300,-0.0,1E2]}`,
	`{"\ud83d\ude02":1,"\ufb33":2,"a":{"a":{}}}`,
	`[9007199254740991,-9007199254740992,1e16,0.1,1e-7,123456789012345680000]`,
	`{"a":1,"a":2}`,
	"[\"\xff\"]",
	`["\ud800x"]`,
	`{} {}`,
	`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`,
	` "scalar" `,
	`{"a":"\/\b\f\r\t\"\\"}`,
}

// FuzzCanonicalize checks that canonicalisation is idempotent, that its
// output is canonical, that it refuses as malformed only what
// encoding/json refuses, and that it agrees with jcs on accepted input.
func FuzzCanonicalize(f *testing.F) {
	for _, s := range canonicalSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := Canonicalize(in)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Reason == "" {
				t.Fatalf("refusal without a reason: %v", err)
			}
			if e.Reason == ReasonJSONMalformed && json.Valid(in) {
				t.Fatalf("refused as malformed, but encoding/json accepts %q: %v", in, err)
			}
			return
		}
		if !json.Valid(in) {
			t.Fatalf("accepted %q, which encoding/json refuses", in)
		}
		if err := CheckCanonical(out); err != nil {
			t.Fatalf("output %q is not canonical: %v", out, err)
		}
		again, err := Canonicalize(out)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("not idempotent: %q -> %q -> %q (%v)", in, out, again, err)
		}
		if ref, err := jcs.Transform(in); err != nil || !bytes.Equal(ref, out) {
			t.Fatalf("jcs gives %q (%v), we give %q", ref, err, out)
		}
		// What is canonical is accepted unchanged.
		if CheckCanonical(in) == nil && !bytes.Equal(in, out) {
			t.Fatalf("canonical input %q changed to %q", in, out)
		}
	})
}

// FuzzParseBundle checks that bundle decoding never panics and refuses with
// a reason.
func FuzzParseBundle(f *testing.F) {
	f.Add([]byte(`{"bundleVersion":"1.0","credential":"a.b.c","evidence":[],"snapshot":{}}`))
	f.Add([]byte(`{"bundleVersion":"1.0","credential":"a.b.c","evidence":[{"index":0,"leaf":{},"proof":["00"]}],"snapshot":{"passport":{}}}`))
	f.Add([]byte(`{"credential":1}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		b, err := ParseBundleUnverified(in)
		if err != nil {
			if ReasonOf(err) == "" {
				t.Fatalf("refusal without a reason: %v", err)
			}
			return
		}
		if b.Credential == "" || len(b.Snapshot) == 0 {
			t.Fatalf("accepted a bundle without credential or snapshot")
		}
	})
}

// FuzzCheckSkillPassportJSON checks the signed-bytes check of a skill
// passport: every refusal has a field reason, and whatever it accepts
// decodes and re-encodes to exactly the bytes given unless it holds a
// member this package does not know (a later minor version's), so its hash
// holds for what a signer writes.
func FuzzCheckSkillPassportJSON(f *testing.F) {
	for _, s := range skillSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		err := CheckSkillPassportJSON(in, form21)
		if err != nil {
			if r := ReasonOf(err); r != ReasonFieldInvalid && r != ReasonFieldMissing {
				t.Fatalf("refusal with reason %q: %v", r, err)
			}
			return
		}
		var sp SkillPassport
		if err := json.Unmarshal(in, &sp); err != nil {
			t.Fatal(err)
		}
		again, err := Marshal(sp)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, in) {
			var a, b any
			json.Unmarshal(in, &a)
			json.Unmarshal(again, &b)
			if !dropsMember(a, b) {
				t.Fatalf("accepted bytes re-encode differently, though every member is known:\n%s\n%s", in, again)
			}
		}
	})
}

// skillSeeds returns a valid skill passport with every member written,
// edits of it that break one rule each, and small hand-written ones.
func skillSeeds(tb testing.TB) [][]byte {
	sp := SkillPassport{Skill: "PostgreSQL", State: StateLimitedEvidence, Assessment: AssessmentInsufficientEvidence,
		EvidenceLevel: LevelVeryLow, Visibility: VisibilityLimited, Calibration: CalibrationInsufficientData,
		Estimate:     &SkillEstimate{Midpoint: 0.5, Lower: 0.25, Upper: 0.75},
		Effective:    SkillCounts{Observations: 1, Binary: 1, Successes: 1, Operators: 1, Validators: 1, Contexts: 1},
		Independence: &SkillIndependence{Operator: 1}, Corrections: 1,
		Recency:     &SkillRecency{LatestEligible: "2026-01-01", AgeDays: 3},
		Coverage:    SkillCoverage{Observations: 1, Positions: 1, Lineages: 1, Contexts: 1},
		Sources:     []SourcePreview{{Evidence: "ev_1", Type: "outcome", Outcome: "success", Quality: "OBSERVED_REUSE", Date: "2026-01-01", Weight: 1, Applicability: 1, Contradiction: "none"}},
		SourceCount: 1, Limitations: []string{"caps_applied"}, Policies: []string{TrustModelPolicy, OntologyPolicy}, AssessedAt: "2026-01-04"}
	h, err := sp.Hash()
	if err != nil {
		tb.Fatal(err)
	}
	sp.AssessmentHash = h
	good, err := Marshal(sp)
	if err != nil {
		tb.Fatal(err)
	}
	if err := CheckSkillPassportJSON(good, form21); err != nil {
		tb.Fatalf("seed refused: %v", err)
	}
	seeds := [][]byte{good, []byte(`{"assessmentHash":"` + h + `","skill":"x"}`), []byte(`{"a":1,"assessmentHash":"00","effective":{}}`)}
	for _, edit := range [][2]string{
		{`"binary":1,`, ``},
		{`"binary":1,`, `"binary":"1",`},
		{`"lower":0.25,`, `"\u001f":1,"lower":0.25,`},
		{`"builder":0,`, `"builder":0.5,`},
		{`"ageDays":3,`, ``},
		{`"latestEligible":"2026-01-01"`, `"latestEligible":"2026"`},
		{`"contradiction":"none",`, ``},
		{`"outcome":"success",`, ``},
		{`"outcome":"success",`, `"outcome":"",`},
		{`"type":"outcome"`, `"type":"report"`},
		{`"weight":1`, `"weight":"1"`},
		{`"state":"limited_evidence"`, `"state":"trusted"`},
		{`"contested":false`, `"contested":true`},
		{`"policies":["contextual-trust-v2","skills-1"]`, `"policies":[]`},
		{`"sourceCount":1`, `"sourceCount":0`},
		{`"stale":false,`, ``},
	} {
		seeds = append(seeds, bytes.Replace(good, []byte(edit[0]), []byte(edit[1]), 1))
	}
	return seeds
}

// FuzzSkillCheckIndexed checks that the skill passport check gives the
// same verdict and the same error, word for word, on a skill passport on
// its own and on one indexed inside a larger document, as the verifier
// reads it from a bundle.
func FuzzSkillCheckIndexed(f *testing.F) {
	for _, s := range skillSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		want := CheckSkillPassportJSON(in, form21)
		if want != nil && ReasonOf(want) == ReasonFieldInvalid && strings.HasPrefix(want.Error(), string(ReasonFieldInvalid)+": a skill passport is not canonical JSON") {
			return
		}
		outer := append(append([]byte(`{"a":[`), in...), `]}`...)
		doc, err := cjson.Parse(outer, cjson.Options{Canonical: true, IndexDepth: 1, IndexPath: []string{"a"}})
		if err != nil {
			return // deeper than the limit once wrapped
		}
		arr, _ := doc.Root().Get("a")
		for sp := range arr.Elements() {
			if got := CheckIndexedSkillPassport(sp, form21); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("CheckIndexedSkillPassport = %v, on its own %v", got, want)
			}
		}
	})
}

// dropsMember reports whether decoded JSON a has, at some level, an object
// member that the corresponding object of b lacks.
func dropsMember(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, _ := b.(map[string]any)
		for k, v := range x {
			w, ok := y[k]
			if !ok || dropsMember(v, w) {
				return true
			}
		}
	case []any:
		y, _ := b.([]any)
		for i := range x {
			if i < len(y) && dropsMember(x[i], y[i]) {
				return true
			}
		}
	}
	return false
}
