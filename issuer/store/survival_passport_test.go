package store_test

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/remnant/passportkit/issuer/issuing"
	"github.com/remnant/passportkit/issuer/keyring"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/passport"
)

// TestSweepChangesNoSignedFigure: on the demo world, a passport issued
// after a sweep to a budget of 0 holds the figures of one issued before it
// on the same day, skill by skill (the assessment hash covers them), and
// its evidence root is the same: issuing reads memories by id and content
// hash, never by body (SPEC.md §15.10). The passport keeps a preview row
// for each named memory its previews show.
func TestSweepChangesNoSignedFigure(t *testing.T) {
	for _, engine := range storetest.Engines(t) {
		t.Run(string(engine), func(t *testing.T) {
			ctx := context.Background()
			now := time.Now().UTC().Truncate(24 * time.Hour).Add(9 * time.Hour)
			db, _, w := storetest.DemoWorld(t, engine, now)
			ring, err := keyring.New(db, keyring.Config{Issuer: "https://issuer.test", Dir: filepath.Join(t.TempDir(), "keys")})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ring.EnsureActive(ctx, passport.EdDSA); err != nil {
				t.Fatal(err)
			}
			issue := func(at time.Time) *issuing.Issued {
				t.Helper()
				// One pseudonym key for both passports, so that their
				// records and figures may be compared.
				seed := bytes.NewReader(bytes.Repeat([]byte{7}, 1<<16))
				p := service.NewPassports(db, ring, service.PassportOptions{Now: func() time.Time { return at }, Rand: seed})
				is, err := p.Issue(ctx, w.AgentID(w.Main()), issuing.DisclosePreviews)
				if err != nil {
					t.Fatal(err)
				}
				return is
			}
			before := issue(now)
			// Every preview memory that is a public id is kept with the
			// passport, in one statement; a pseudonym matches none.
			x := db.UnsafeSQL()
			var kept, named int
			if err := x.Get(&kept, x.Rebind(`SELECT COUNT(*) FROM issued_passport_previews WHERE passport_hash = ?`), before.PassportHash); err != nil {
				t.Fatal(err)
			}
			q, args, err := sqlx.In(`SELECT COUNT(*) FROM memories WHERE public_id IN (?)`, append(before.PreviewMemories, "mem_none"))
			if err != nil {
				t.Fatal(err)
			}
			if err := x.Get(&named, x.Rebind(q), args...); err != nil {
				t.Fatal(err)
			}
			if kept == 0 || kept != named {
				t.Fatalf("%d preview rows kept for %d preview memories of which %d are named", kept, len(before.PreviewMemories), named)
			}
			rep, err := db.SweepStorage(ctx, service.SweepOptions{Budget: 0})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Memories == 0 {
				t.Fatalf("the sweep evicted nothing: %+v", rep)
			}
			after := issue(now.Add(2 * time.Hour))
			if before.PassportHash == after.PassportHash {
				t.Fatal("the second passport is the cached first")
			}
			a, b := before.Passport.SkillPassports, after.Passport.SkillPassports
			if len(a) != len(b) || len(a) == 0 {
				t.Fatalf("%d skills before, %d after", len(a), len(b))
			}
			for i := range a {
				if a[i].Skill != b[i].Skill || a[i].AssessmentHash != b[i].AssessmentHash {
					t.Errorf("skill %s: assessment %s before the sweep, %s after", a[i].Skill, a[i].AssessmentHash, b[i].AssessmentHash)
				}
			}
			if before.Passport.EvidenceRoot != after.Passport.EvidenceRoot {
				t.Errorf("evidence root %s before the sweep, %s after", before.Passport.EvidenceRoot, after.Passport.EvidenceRoot)
			}
		})
	}
}
