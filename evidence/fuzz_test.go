package evidence_test

import (
	"bytes"
	"testing"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/skilltrust"
	vectors "github.com/remnant/passportkit/vectors/skilltrust"
)

// FuzzParse checks that whatever the evidence parser accepts is a valid set
// whose records re-encode to leaves that parse back to themselves, and that
// assessing it never fails or panics. Seeds: every conformance vector's
// evidence file, and the corpus in testdata/fuzz.
func FuzzParse(f *testing.F) {
	cases, err := vectors.Cases()
	if err != nil {
		f.Fatal(err)
	}
	for _, c := range cases {
		f.Add([]byte(c.Evidence))
	}
	at := evidence.MustDate("2026-01-01")
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 64<<10 {
			return
		}
		set, err := evidence.Parse(b)
		if err != nil {
			return
		}
		recs := set.Records()
		for _, r := range recs {
			leaf, err := r.Canonical()
			if err != nil {
				t.Fatalf("accepted record %s does not encode: %v", r.ID, err)
			}
			back, err := evidence.ParseRecord(leaf)
			if err != nil {
				t.Fatalf("leaf of %s does not parse back: %v", r.ID, err)
			}
			again, _ := back.Canonical()
			if !bytes.Equal(leaf, again) {
				t.Fatalf("leaf of %s is not stable:\n%s\n%s", r.ID, leaf, again)
			}
		}
		if _, err := evidence.NewSet(recs, set.Truncated()); err != nil {
			t.Fatalf("accepted records do not form a set again: %v", err)
		}
		for _, skill := range []string{"PostgreSQL", "PostgreSQL indexing"} {
			a, err := skilltrust.Assess(set, skilltrust.Task{Skill: skill}, at)
			if err != nil {
				t.Fatalf("assess: %v", err)
			}
			if _, err := a.SkillPassport(); err != nil {
				t.Fatalf("skill passport: %v", err)
			}
		}
	})
}
