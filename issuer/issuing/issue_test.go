package issuing_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/issuing"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/skilltrust"
	"github.com/remnant/passportkit/verifier"
)

// recompute checks an evidence file as `passport verify --recompute
// --evidence FILE` does: its root must be the verified passport's
// evidenceRoot, and every skill passport must be re-derived from it.
func recompute(t *testing.T, res *verifier.Result, file []byte) {
	t.Helper()
	if err := passport.CheckCanonical(file); err != nil {
		t.Fatalf("evidence file is not canonical: %v", err)
	}
	set, err := evidence.Parse(file)
	if err != nil {
		t.Fatalf("evidence file does not parse: %v", err)
	}
	var hashes []evidence.Hash
	leaves := map[int][]byte{}
	for i, r := range set.Records() {
		c := canon(t, r)
		hashes = append(hashes, evidence.LeafHash(c))
		leaves[i] = c
	}
	if root := evidence.NewTree(hashes).Root().String(); root != res.EvidenceRoot {
		t.Fatalf("evidence file root %s; the passport's is %s", root, res.EvidenceRoot)
	}
	p := decode(t, res)
	if p.EvidenceCount != len(hashes) {
		t.Fatalf("evidence file holds %d records; the passport counts %d", len(hashes), p.EvidenceCount)
	}
	for _, rc := range skilltrust.Recompute(p.SkillPassports, p.EvidenceCount, leaves) {
		if rc.Status != skilltrust.RecomputeMatch {
			t.Errorf("recompute %s: %s %s", rc.Skill, rc.Status, rc.Detail)
		}
	}
	var f struct {
		PassportHash string `json:"passportHash"`
		EvidenceRoot string `json:"evidenceRoot"`
	}
	if err := json.Unmarshal(file, &f); err != nil || f.PassportHash != res.PassportHash || f.EvidenceRoot != res.EvidenceRoot {
		t.Errorf("evidence file names passport %s root %s; want %s %s (%v)", f.PassportHash, f.EvidenceRoot, res.PassportHash, res.EvidenceRoot, err)
	}
}

func verify(t *testing.T, v *verifier.Verifier, bundle []byte) *verifier.Result {
	t.Helper()
	res, err := v.Verify(context.Background(), bundle, verifier.AnySubject())
	if err != nil {
		t.Fatal(err)
	}
	if !res.Verified {
		t.Fatalf("bundle did not verify: %s", res.Reason)
	}
	return res
}

// TestNoLeaks issues passports for random subjects and checks that no
// internal key, private memory id, private content hash, private label,
// private ancestor or hidden memory id appears in any bundle or evidence
// file, that every bundle verifies and every evidence file re-derives
// every skill passport, and that a previews bundle carries no label of a
// record it does not disclose.
func TestNoLeaks(t *testing.T) {
	sg, v := signer(t)
	n := 40
	if testing.Short() {
		n = 15
	}
	for seed := range uint64(n) {
		w := newWorld(seed)
		s := w.Subject(shape{Memories: 5 + int(seed%40), Events: 20 + int(seed*7%300), Agents: 2 + int(seed%12), Operators: 1 + int(seed%5), Capabilities: int(seed % 4)})
		for _, d := range []issuing.Disclosure{issuing.DisclosePreviews, issuing.DiscloseAll, issuing.DiscloseNone} {
			out, err := issuing.Issue(s, testKey, sg, options(), d)
			if err != nil {
				t.Fatalf("seed %d %s: %v", seed, d, err)
			}
			for _, doc := range [][]byte{out.Bundle, out.EvidenceFile} {
				for _, sec := range w.Secrets() {
					if bytes.Contains(doc, []byte(sec)) {
						t.Fatalf("seed %d %s: %q leaked", seed, d, sec)
					}
				}
			}
			res := verify(t, v, out.Bundle)
			if res.PassportHash != out.PassportHash {
				t.Fatalf("passportHash %s; the bundle's is %s", out.PassportHash, res.PassportHash)
			}
			recompute(t, res, out.EvidenceFile)
			if d == issuing.DisclosePreviews {
				shown := map[string]bool{} // labels of disclosed records
				for _, l := range res.Evidence {
					r, err := evidence.ParseRecord(l.Record)
					if err != nil {
						t.Fatal(err)
					}
					for _, lbl := range r.Context.Values() {
						shown[lbl] = true
					}
				}
				for _, r := range parse(t, out.EvidenceFile).Records() {
					for _, lbl := range r.Context.Values() {
						if lbl != "" && !shown[lbl] && bytes.Contains(out.Bundle, []byte(lbl)) {
							t.Fatalf("seed %d: label %q of an undisclosed record is in the bundle", seed, lbl)
						}
					}
				}
			}
		}
	}
}

// TestDeterministic: the same subject and key material give the same
// bytes, whatever the order of the input lists; another pseudonym key
// gives unrelated pseudonyms and the same figures.
func TestDeterministic(t *testing.T) {
	sg, _ := signer(t)
	w := newWorld(42)
	s := w.Subject(shape{Memories: 40, Events: 400, Agents: 12, Operators: 4, Capabilities: 3})
	a := issue(t, s, testKey, sg, options(), issuing.DisclosePreviews)

	shuffled := *s
	r := rand.New(rand.NewPCG(1, 2))
	for _, l := range []func(){
		func() {
			shuffled.Memories = slices.Clone(s.Memories)
			r.Shuffle(len(shuffled.Memories), func(i, j int) {
				shuffled.Memories[i], shuffled.Memories[j] = shuffled.Memories[j], shuffled.Memories[i]
			})
		},
		func() {
			shuffled.Events = slices.Clone(s.Events)
			r.Shuffle(len(shuffled.Events), func(i, j int) { shuffled.Events[i], shuffled.Events[j] = shuffled.Events[j], shuffled.Events[i] })
		},
		func() {
			shuffled.Owners = slices.Clone(s.Owners)
			r.Shuffle(len(shuffled.Owners), func(i, j int) { shuffled.Owners[i], shuffled.Owners[j] = shuffled.Owners[j], shuffled.Owners[i] })
		},
		func() { shuffled.Domains = slices.Clone(s.Domains); slices.Reverse(shuffled.Domains) },
	} {
		l()
	}
	b := issue(t, &shuffled, testKey, sg, options(), issuing.DisclosePreviews)
	if !bytes.Equal(a.Bundle, b.Bundle) || !bytes.Equal(a.EvidenceFile, b.EvidenceFile) {
		t.Fatal("the same subject in another order gives other bytes")
	}

	other := issue(t, s, bytes.Repeat([]byte{9}, 32), sg, options(), issuing.DisclosePreviews)
	if bytes.Equal(a.EvidenceFile, other.EvidenceFile) {
		t.Fatal("another pseudonym key gives the same evidence")
	}
	pa, po := a.Passport, other.Passport
	if len(pa.SkillPassports) != len(po.SkillPassports) || pa.EvidenceCount != po.EvidenceCount {
		t.Fatal("another pseudonym key changes the passport's shape")
	}
	for i := range pa.SkillPassports {
		x, y := pa.SkillPassports[i], po.SkillPassports[i]
		if x.Skill != y.Skill || x.Effective != y.Effective || x.Assessment != y.Assessment || x.State != y.State {
			t.Errorf("skill %s: figures depend on the pseudonym key", x.Skill)
		}
	}
}

// TestTamper: a changed byte in the snapshot, a disclosed leaf or the
// credential fails verification.
func TestTamper(t *testing.T) {
	sg, v := signer(t)
	s := newWorld(3).Subject(shape{Memories: 20, Events: 150, Agents: 6, Operators: 3, Capabilities: 1})
	out := issue(t, s, testKey, sg, options(), issuing.DisclosePreviews)
	verify(t, v, out.Bundle)
	for _, target := range []string{`"reputationScore":`, `"outcome":"`, `"credential":"ey`} {
		i := bytes.Index(out.Bundle, []byte(target))
		if i < 0 {
			t.Fatalf("no %s in the bundle", target)
		}
		bad := slices.Clone(out.Bundle)
		j := i + len(target)
		if bad[j] == 'A' || bad[j] == 'f' {
			bad[j] = 'B'
		} else {
			bad[j] = 'A'
		}
		res, err := v.Verify(context.Background(), bad, verifier.AnySubject())
		if err != nil {
			t.Fatal(err)
		}
		if res.Verified {
			t.Errorf("tampering after %s still verifies", target)
		}
	}
}

// at is a fixed issuance time for hand-built subjects.
func day(n int) time.Time { return issuedAt.Add(-time.Duration(n) * 24 * time.Hour) }

// TestOwnership pins SPEC.md §5.3 on the owner-binding history: the
// operator at the instant of the event decides, a later change of owner
// rewrites nothing, and the subject's current owner makes a report shared.
func TestOwnership(t *testing.T) {
	const (
		subj, opA, opB, opC, agent = 10, 20, 21, 22, 30
	)
	mem := issuing.Memory{Key: 100, PublicID: "mem_aaaaaaaaaaaaaaaaaaaaaaaaaa", Visibility: issuing.MemoryPublic,
		Status: issuer.MemoryActive, CreatedAt: day(600), AppliesTo: issuing.AppliesTo{Skill: "SQLite"}}
	cases := []struct {
		name   string
		actor  issuing.Key
		owners []issuing.OwnerBinding
		want   evidence.Ownership
		op     bool
	}{
		{"self", subj, nil, evidence.OwnershipSelf, false},
		{"unknown actor owner", agent, []issuing.OwnerBinding{{Agent: subj, Operator: opA, From: day(900)}}, evidence.OwnershipUnknown, false},
		{"unknown subject owner", agent, []issuing.OwnerBinding{{Agent: agent, Operator: opB, From: day(900)}}, evidence.OwnershipUnknown, false},
		{"distinct", agent, []issuing.OwnerBinding{{Agent: subj, Operator: opA, From: day(900)}, {Agent: agent, Operator: opB, From: day(900)}}, evidence.OwnershipDistinct, true},
		{"shared then", agent, []issuing.OwnerBinding{
			{Agent: subj, Operator: opA, From: day(900), Until: day(50)}, {Agent: subj, Operator: opC, From: day(50)},
			{Agent: agent, Operator: opA, From: day(900)}}, evidence.OwnershipShared, true},
		{"shared now", agent, []issuing.OwnerBinding{
			{Agent: subj, Operator: opC, From: day(900), Until: day(50)}, {Agent: subj, Operator: opB, From: day(50)},
			{Agent: agent, Operator: opB, From: day(900)}}, evidence.OwnershipShared, true},
		{"actor's later owner ignored", agent, []issuing.OwnerBinding{
			{Agent: subj, Operator: opA, From: day(900)},
			{Agent: agent, Operator: opB, From: day(900), Until: day(10)}, {Agent: agent, Operator: opA, From: day(10)}}, evidence.OwnershipDistinct, true},
		{"unbound at the event", agent, []issuing.OwnerBinding{
			{Agent: subj, Operator: opA, From: day(900)},
			{Agent: agent, Operator: opB, From: day(900), Until: day(200)}}, evidence.OwnershipUnknown, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := &issuing.Subject{Key: subj, PublicID: "agt_x", Visibility: issuer.VisibilityPublic, Status: issuer.AgentActive,
				Memories: []issuing.Memory{mem}, Owners: c.owners,
				Events: []issuing.Event{{Key: 1, Kind: issuing.EventOutcome, Outcome: evidence.OutcomeSuccess, Actor: c.actor, Memory: 100, At: day(100)}}}
			col := collect(t, s)
			var got *evidence.Record
			for i, r := range col.Records {
				if r.Type == evidence.TypeOutcome {
					got = &col.Records[i]
				}
			}
			if got == nil {
				t.Fatal("no outcome record")
			}
			if got.Ownership != c.want || (got.Operator != "") != c.op {
				t.Errorf("ownership %s operator %q; want %s (operator %v)", got.Ownership, got.Operator, c.want, c.op)
			}
		})
	}
}

// TestPrivateAncestor: two public memories distilled from one private
// research memory share a lineage cluster, and neither the ancestor nor
// its id appears.
func TestPrivateAncestor(t *testing.T) {
	anc := issuing.Target{Key: 987654321987654321, PublicID: "mem_privateprivateprivatepri"}
	m := func(k issuing.Key, id string) issuing.Memory {
		return issuing.Memory{Key: k, PublicID: issuer.MemoryID(id), Visibility: issuing.MemoryPublic, Status: issuer.MemoryActive,
			CreatedAt: day(300), AppliesTo: issuing.AppliesTo{Skill: "SQLite"},
			Links: []issuing.Link{{Kind: issuer.LinkDerivedFrom, Target: anc}}}
	}
	s := &issuing.Subject{Key: 1, PublicID: "agt_x", Visibility: issuer.VisibilityPublic, Status: issuer.AgentActive,
		Memories: []issuing.Memory{m(2, "mem_bbbbbbbbbbbbbbbbbbbbbbbbbb"), m(3, "mem_cccccccccccccccccccccccccc"), m(4, "mem_dddddddddddddddddddddddddd")},
		Owners:   []issuing.OwnerBinding{{Agent: 1, Operator: 9, From: day(999)}, {Agent: 5, Operator: 8, From: day(999)}}}
	s.Memories[2].Links = nil // not derived from the ancestor
	for i, k := range []issuing.Key{2, 3, 4} {
		s.Events = append(s.Events, issuing.Event{Key: issuing.Key(10 + i), Kind: issuing.EventOutcome, Outcome: evidence.OutcomeSuccess, Actor: 5, Memory: k, At: day(10)})
	}
	col := collect(t, s)
	clusters := map[string]string{}
	for i, r := range col.Records {
		if r.Type == evidence.TypeOutcome {
			clusters[r.Lineage.Memory] = col.Set().Cluster(i)
		}
		if b := canon(t, r); bytes.Contains(b, []byte("private")) || bytes.Contains(b, []byte("987654321987654321")) {
			t.Errorf("record names the ancestor: %s", b)
		}
	}
	if clusters["mem_bbbbbbbbbbbbbbbbbbbbbbbbbb"] != clusters["mem_cccccccccccccccccccccccccc"] {
		t.Error("memories distilled from one private ancestor are in different clusters")
	}
	if clusters["mem_bbbbbbbbbbbbbbbbbbbbbbbbbb"] == clusters["mem_dddddddddddddddddddddddddd"] {
		t.Error("an unrelated memory joined their cluster")
	}
}

// TestRefusals: a subject that may not be shown, or that breaks the
// input contract, gets a clear error.
func TestRefusals(t *testing.T) {
	sg, _ := signer(t)
	base := func() *issuing.Subject {
		return newWorld(5).Subject(shape{Memories: 5, Events: 30, Agents: 3, Operators: 2})
	}
	for _, c := range []struct {
		name string
		mod  func(*issuing.Subject)
		want func(error) bool
	}{
		{"private", func(s *issuing.Subject) { s.Visibility = issuer.VisibilityPrivate }, notFound},
		{"unlisted", func(s *issuing.Subject) { s.Visibility = issuer.VisibilityUnlisted }, notFound},
		{"suspended", func(s *issuing.Subject) { s.Status = issuer.AgentSuspended }, notFound},
		{"foreign memory", func(s *issuing.Subject) { s.Events[0].Memory = 12345 }, invalid},
		{"overlapping owners", func(s *issuing.Subject) {
			s.Owners = append(s.Owners, issuing.OwnerBinding{Agent: s.Key, Operator: 1, From: day(5000)})
		}, invalid},
		{"revision by another", func(s *issuing.Subject) {
			s.Events[0].Kind, s.Events[0].Outcome, s.Events[0].Actor = issuing.EventRevision, "", s.Key+1
		}, invalid},
		{"long label", func(s *issuing.Subject) { s.Events[0].Context.Domain = strings.Repeat("x", 201) }, invalid},
		{"label not UTF-8", func(s *issuing.Subject) { s.Events[0].Context.Domain = "\xff" }, invalid},
		{"unknown trust level", func(s *issuing.Subject) { s.TrustLevel = "gold" }, invalid},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := base()
			c.mod(s)
			_, err := issuing.Issue(s, testKey, sg, options(), issuing.DisclosePreviews)
			if !c.want(err) {
				t.Errorf("error %v", err)
			}
		})
	}
	if _, err := issuing.Issue(base(), testKey[:16], sg, options(), issuing.DisclosePreviews); err == nil {
		t.Error("a short pseudonym key was accepted")
	}
}

func notFound(err error) bool { return issuer.ErrorCode(err) == issuer.CodeNotFound }
func invalid(err error) bool  { return errors.Is(err, issuing.ErrInvalidSubject) }

func canon(t testing.TB, r evidence.Record) []byte {
	t.Helper()
	b, err := r.Canonical()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func decode(t testing.TB, res *verifier.Result) *passport.Passport {
	t.Helper()
	p, err := res.Decode()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func parse(t testing.TB, file []byte) *evidence.Set {
	t.Helper()
	s, err := evidence.Parse(file)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func issue(t testing.TB, s *issuing.Subject, key []byte, sg issuing.Signer, opt issuing.Options, d issuing.Disclosure) *issuing.Issued {
	t.Helper()
	out, err := issuing.Issue(s, key, sg, opt, d)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func collect(t testing.TB, s *issuing.Subject) *issuing.Collection {
	t.Helper()
	c, err := issuing.Collect(s, testKey, issuedAt)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestHiddenMemoryKeepsEvidence: moderation or withdrawal hides a memory's
// id and content hash, never its evidence: a failure on a quarantined
// memory still counts, under a pseudonym.
func TestHiddenMemoryKeepsEvidence(t *testing.T) {
	s := &issuing.Subject{Key: 1, PublicID: "agt_x", Visibility: issuer.VisibilityPublic, Status: issuer.AgentActive,
		Owners: []issuing.OwnerBinding{{Agent: 1, Operator: 9, From: day(999)}, {Agent: 5, Operator: 8, From: day(999)}},
		Memories: []issuing.Memory{{Key: 2, PublicID: "mem_hiddenhiddenhiddenhidden", Visibility: issuing.MemoryPublic,
			Status: issuer.MemoryQuarantined, CreatedAt: day(300), AppliesTo: issuing.AppliesTo{Skill: "SQLite"},
			ContentHash: "sha256:" + strings.Repeat("ab", 32)}},
		Events: []issuing.Event{{Key: 3, Kind: issuing.EventOutcome, Outcome: evidence.OutcomeFailure, Actor: 5, Memory: 2, At: day(10)}}}
	col := collect(t, s)
	if len(col.Records) != 2 {
		t.Fatalf("%d records; want the publication and the failure", len(col.Records))
	}
	for _, r := range col.Records {
		b := canon(t, r)
		if bytes.Contains(b, []byte("hidden")) || bytes.Contains(b, []byte("abab")) {
			t.Errorf("a hidden memory is named: %s", b)
		}
		if r.Lineage == nil || !strings.HasPrefix(r.Lineage.Memory, "mem_") {
			t.Errorf("record %s lost its memory", r.ID)
		}
	}
}
