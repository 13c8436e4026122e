package store_test

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/issuing"
	"github.com/remnant/passportkit/issuer/keyring"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/reputation"
	"github.com/remnant/passportkit/verifier"
)

// leakWorld is a randomly generated store, recorded through the service,
// with every value no passport may carry, and the context labels each
// record-bearing report used.
type leakWorld struct {
	agents  []issuer.Principal
	secrets []string        // never in a bundle or an evidence file
	labels  map[string]bool // context labels of reports on public memories
	apiKeys []issuer.APIKey
}

func token(r *rand.Rand, prefix string) string {
	b := make([]byte, 10)
	for i := range b {
		b[i] = byte(r.UintN(256))
	}
	return prefix + hex.EncodeToString(b)
}

// randomStore records a random world: operators and agents (some sharing
// an operator, some with none), public and private memories with claims,
// lineage to private research ancestors and to public memories, outcome
// reports with labelled contexts, corroborations and contradictions.
func randomStore(t *testing.T, f *fixture, r *rand.Rand) *leakWorld {
	w := &leakWorld{labels: map[string]bool{}}
	ops := make([]issuer.OperatorID, 1+r.IntN(4))
	for i := range ops {
		ops[i] = mustOperator(t, f, fmt.Sprint("operator ", i))
		w.secrets = append(w.secrets, string(ops[i]))
	}
	for i := range 3 + r.IntN(5) {
		in := service.NewAgent{Name: fmt.Sprint("agent ", i)}
		if r.IntN(5) != 0 {
			in.Operator = ops[r.IntN(len(ops))]
		}
		a, err := f.admin.CreateAgent(f.ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		p, err := f.db.Authenticate(f.ctx, a.Key)
		if err != nil {
			t.Fatal(err)
		}
		w.agents = append(w.agents, p)
		w.apiKeys = append(w.apiKeys, a.Key)
		w.secrets = append(w.secrets, string(a.Key))
	}
	skills := []string{"sql tuning", "power bi", "rust async", "PostgreSQL indexing"}
	label := func(public bool) evidence.Context {
		var c evidence.Context
		if r.IntN(2) == 0 {
			c.Domain = token(r, "dom")
		}
		if r.IntN(2) == 0 {
			c.Environment = token(r, "env")
		}
		for _, v := range c.Values() {
			if v == "" {
				continue
			}
			if public {
				w.labels[v] = true
			} else {
				w.secrets = append(w.secrets, v)
			}
		}
		return c
	}
	var public []issuer.MemoryID
	author := map[issuer.MemoryID]int{}
	for range 5 + r.IntN(15) {
		ai := r.IntN(len(w.agents))
		a := w.agents[ai]
		if r.IntN(4) == 0 { // a private research memory
			content := token(r, "private-content-")
			m := f.publishWith(a, issuer.Publication{Visibility: issuer.MemoryPrivate, Content: content,
				AppliesTo: issuer.AppliesTo{Skill: token(r, "privskill"), Context: label(false)}})
			w.secrets = append(w.secrets, string(m.ID), m.ContentHash, content)
			// Its author derives public work from it.
			d := f.publishWith(a, issuer.Publication{AppliesTo: issuer.AppliesTo{Skill: skills[r.IntN(len(skills))], Context: label(true)},
				Links: []issuer.Link{{Kind: issuer.LinkDerivedFrom, Target: m.ID}}})
			public, author[d.ID] = append(public, d.ID), ai
			continue
		}
		pub := issuer.Publication{AppliesTo: issuer.AppliesTo{Skill: skills[r.IntN(len(skills))], Context: label(true)}}
		if len(public) > 0 && r.IntN(4) == 0 {
			pub.Links = []issuer.Link{{Kind: []issuer.LinkKind{issuer.LinkExtends, issuer.LinkContradicts}[r.IntN(2)], Target: public[r.IntN(len(public))]}}
		}
		m := f.publishWith(a, pub)
		public, author[m.ID] = append(public, m.ID), ai
	}
	outcomes := []evidence.Outcome{evidence.OutcomeSuccess, evidence.OutcomeFailure, evidence.OutcomePartial, evidence.OutcomeUncertain}
	for range 10 + r.IntN(40) {
		m := public[r.IntN(len(public))]
		ev := w.agents[r.IntN(len(w.agents))]
		if ev.AgentID == w.agents[author[m]].AgentID {
			continue
		}
		f.retrieve(ev, m)
		svcs := svc(f.db)
		switch r.IntN(3) {
		case 0, 1:
			// Same-owner reports are refused; the refusal records nothing.
			svcs.ReportOutcome(f.ctx, ev, m, issuer.OutcomeReport{Outcome: outcomes[r.IntN(len(outcomes))], Context: label(true)}, issuer.TransportHTTP)
		default:
			typ := []reputation.Type{reputation.Corroborate, reputation.Contradict}[r.IntN(2)]
			svcs.SubmitFeedback(f.ctx, ev, m, issuer.Feedback{Type: typ}, issuer.TransportHTTP)
		}
	}
	// Other agents' public ids are named by pseudonyms only.
	for _, a := range w.agents {
		w.secrets = append(w.secrets, string(a.AgentID))
	}
	return w
}

// TestIssuedPassportsLeakNothing issues the passport of every agent of
// randomly generated stores and checks each bundle and evidence file: no
// private memory (id, content hash, content, claim), no operator id, no API
// key, no other agent's public id, and no context label outside the
// records a bundle discloses.
func TestIssuedPassportsLeakNothing(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		ring, err := keyring.New(db, keyring.Config{Issuer: "https://issuer.test", Dir: filepath.Join(t.TempDir(), "keys")})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ring.EnsureActive(f.ctx, passport.EdDSA); err != nil {
			t.Fatal(err)
		}
		signer, _, err := ring.Active(f.ctx)
		if err != nil {
			t.Fatal(err)
		}
		trust, _ := verifier.NewTrust("https://issuer.test", verifier.TrustedKey{Key: signer.Key()})
		v, _ := verifier.New(trust)
		issued, labelsShown, records := 0, 0, 0
		for seed := range uint64(4) {
			w := randomStore(t, f, rand.New(rand.NewPCG(seed, 77)))
			p := service.NewPassports(db, ring, service.PassportOptions{})
			for _, a := range w.agents {
				for _, d := range []issuing.Disclosure{issuing.DisclosePreviews, issuing.DiscloseNone, issuing.DiscloseAll} {
					is, err := p.Issue(f.ctx, a.AgentID, d)
					if err != nil {
						t.Fatalf("seed %d, %s, %s: %v", seed, a.AgentID, d, err)
					}
					issued++
					res, err := v.Verify(f.ctx, is.Bundle, verifier.AnySubject())
					if err != nil || !res.Verified {
						t.Fatalf("seed %d: not verified: %v %+v", seed, err, res)
					}
					var disclosed []byte
					for _, l := range res.Evidence {
						disclosed = append(disclosed, l.Record...)
					}
					for name, doc := range map[string][]byte{"bundle": is.Bundle, "evidence file": is.EvidenceFile} {
						for _, s := range w.secrets {
							if s != string(a.AgentID) && bytes.Contains(doc, []byte(s)) {
								t.Fatalf("seed %d: the %s of %s (%s) holds %q", seed, name, a.AgentID, d, s)
							}
						}
						if strings.Contains(string(doc), "private-content-") {
							t.Fatalf("seed %d: private content in the %s", seed, name)
						}
					}
					records += is.Passport.EvidenceCount
					for l := range w.labels {
						if bytes.Contains(disclosed, []byte(l)) {
							labelsShown++
						}
						if bytes.Contains(is.Bundle, []byte(l)) && !bytes.Contains(disclosed, []byte(l)) {
							t.Fatalf("seed %d: the %s bundle of %s holds label %s outside its disclosed records", seed, d, a.AgentID, l)
						}
					}
				}
			}
		}
		// The checks are not vacuous: records were issued and labels shown.
		if records == 0 || labelsShown == 0 {
			t.Fatalf("%d records, %d labels shown in disclosed records", records, labelsShown)
		}
		t.Logf("%d bundles checked, %d records, %d labels shown", issued, records, labelsShown)
	})
}
