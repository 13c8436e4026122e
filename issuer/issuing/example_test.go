package issuing_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/issuing"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/verifier"
)

// An issuer loads a subject from its store, issues a passport with a fresh
// pseudonym key, and a third party verifies the bundle with the issuer's
// trust file.
func ExampleIssue() {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	ago := func(days int) time.Time { return now.AddDate(0, 0, -days) }
	subject := &issuing.Subject{
		Key: 1, PublicID: "agt_example", Name: "Indexer", Visibility: issuer.VisibilityPublic, Status: issuer.AgentActive,
		Capabilities: []issuing.Capability{{Name: "PostgreSQL indexing", DeclaredAt: ago(90)}},
		Memories: []issuing.Memory{{Key: 10, PublicID: "mem_aaaaaaaaaaaaaaaaaaaaaaaaaa", Visibility: issuing.MemoryPublic,
			Status: issuer.MemoryActive, CreatedAt: ago(60), AppliesTo: issuing.AppliesTo{Skill: "PostgreSQL indexing"}}},
		Events: []issuing.Event{
			{Key: 100, Kind: issuing.EventOutcome, Outcome: evidence.OutcomeSuccess, Actor: 2, Memory: 10, At: ago(30)},
			{Key: 101, Kind: issuing.EventOutcome, Outcome: evidence.OutcomeFailure, Actor: 3, Memory: 10, At: ago(20)},
		},
		Owners: []issuing.OwnerBinding{
			{Agent: 1, Operator: 7, From: ago(400)}, {Agent: 2, Operator: 8, From: ago(400)}, {Agent: 3, Operator: 9, From: ago(400)},
		},
	}

	// In the issuer, the key comes from the keyring and the pseudonym key
	// from crypto/rand, fresh for every passport.
	key, _ := passport.GenerateKey(passport.EdDSA, rand.NewChaCha8([32]byte{1}))
	pseudonymKey := make([]byte, issuing.MinPseudonymKey)
	out, err := issuing.Issue(subject, pseudonymKey, passport.NewSigner(key),
		issuing.Options{Issuer: "https://issuer.example", IssuedAt: now}, issuing.DisclosePreviews)
	if err != nil {
		fmt.Println(err)
		return
	}

	trust, _ := verifier.NewTrust("https://issuer.example", verifier.TrustedKey{Key: key.Public()})
	v, _ := verifier.New(trust)
	res, _ := v.Verify(context.Background(), out.Bundle, verifier.AnySubject().At(now))
	fmt.Println("verified:", res.Verified, "records:", out.Passport.EvidenceCount, "disclosed:", len(res.Evidence))
	for _, sp := range out.Passport.SkillPassports {
		fmt.Println(sp.Skill, sp.State, sp.Assessment, sp.Visibility)
	}
	// Output:
	// verified: true records: 4 disclosed: 3
	// PostgreSQL indexing limited_evidence INSUFFICIENT_EVIDENCE NEGATIVE_RESULTS_VISIBLE
}
