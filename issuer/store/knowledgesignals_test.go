package store_test

import (
	"bytes"
	"crypto/rand"
	"testing"
	"time"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/reputation"
)

// edgeWeight reads the trust edge from a to b (0 when absent).
func (f *fixture) edgeWeight(a, b issuer.Principal) int {
	f.t.Helper()
	return f.count(`SELECT COALESCE(SUM(weight), 0) FROM trust_edges WHERE source_id = ? AND target_id = ?`, a.Key, b.Key)
}

func (f *fixture) operator(name string, agents ...issuer.Principal) {
	f.t.Helper()
	op, err := f.admin.CreateOperator(f.ctx, name)
	if err != nil {
		f.t.Fatal(err)
	}
	for _, a := range agents {
		if err := f.admin.BindOwner(f.ctx, op, a.AgentID); err != nil {
			f.t.Fatal(err)
		}
	}
}

// TestEvidenceObjectsAndArtifacts: an evidence object is stored with its
// position, an artifact must be readable by the evaluator to be cited, it
// becomes readable under the citing memory's visibility, and trust edges
// weigh the position by its evidence factor.
func TestEvidenceObjectsAndArtifacts(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		s := svc(db)
		author, ev, other := f.agent("author"), f.agent("evaluator"), f.agent("other")
		mem := f.publishText(author, "Cargo test on musl", "Install musl-tools first.")
		content := []byte("test result: ok. 41 passed; 0 failed")
		art, err := s.UploadArtifact(f.ctx, ev, content)
		if err != nil || !art.Created || art.Digest != issuer.ArtifactDigest(content) || art.Size != len(content) {
			t.Fatalf("upload: %+v %v", art, err)
		}
		again, err := s.UploadArtifact(f.ctx, other, content)
		if err != nil || again.Created || again.Digest != art.Digest {
			t.Fatalf("deduplicated upload: %+v %v", again, err)
		}
		if n := f.count(`SELECT COUNT(*) FROM artifacts`); n != 1 {
			t.Fatalf("%d artifact rows, want 1", n)
		}
		_, err = s.UploadArtifact(f.ctx, ev, make([]byte, issuer.MaxArtifactBytes+1))
		wantCode(t, err, issuer.CodeTooLarge)

		// Before any citation, only its uploaders read it.
		third := f.agent("third")
		_, _, err = s.Artifact(f.ctx, third, art.Digest)
		wantCode(t, err, issuer.CodeNotFound)
		if got, _, err := s.Artifact(f.ctx, ev, art.Digest); err != nil || !bytes.Equal(got, content) {
			t.Fatalf("uploader reads %q, %v", got, err)
		}

		f.retrieve(ev, mem)
		// An artifact nobody uploaded cannot be cited.
		unknown := issuer.ArtifactDigest([]byte("never uploaded"))
		err = f.submit(ev, mem, issuer.Feedback{Type: reputation.Corroborate,
			Evidence: issuer.Evidence{Type: issuer.EvidenceOfTest, Detail: "cargo test", Artifact: unknown}})
		wantCode(t, err, issuer.CodeNotFound)

		// Text evidence first: the trust edge is the position's weight.
		f.validate(ev, mem, reputation.Corroborate, "ran it")
		base := f.edgeWeight(ev, author)
		if base <= 0 {
			t.Fatalf("edge %d", base)
		}
		obj := issuer.Evidence{Type: issuer.EvidenceOfTest, Detail: "cargo test -p foo: 41 passed", Env: "rustc 1.91, linux x86_64"}
		if err := f.submit(ev, mem, issuer.Feedback{Type: reputation.Corroborate, Reason: "ran it", Evidence: obj}); err != nil {
			t.Fatal(err)
		}
		if got := f.edgeWeight(ev, author); got != base*1500/1000 {
			t.Fatalf("edge with an object %d, want %d", got, base*1500/1000)
		}
		obj.Artifact = art.Digest
		if err := f.submit(ev, mem, issuer.Feedback{Type: reputation.Corroborate, Reason: "ran it", Evidence: obj}); err != nil {
			t.Fatal(err)
		}
		if got := f.edgeWeight(ev, author); got != base*2 {
			t.Fatalf("edge with an artifact %d, want %d", got, base*2)
		}
		if n := f.count(`SELECT COUNT(*) FROM feedback WHERE evidence_type = 'test' AND evidence_artifact = ? AND evidence_env = ?`,
			art.Digest, obj.Env); n != 1 {
			t.Fatalf("stored evidence rows %d", n)
		}
		if n := f.count(`SELECT COUNT(*) FROM feedback_history WHERE evidence <> ''`); n != 2 {
			t.Fatalf("history rows with evidence %d, want 2", n)
		}
		// Cited on a public memory: anyone with the search scope reads it.
		if got, _, err := s.Artifact(f.ctx, third, art.Digest); err != nil || !bytes.Equal(got, content) {
			t.Fatalf("reader reads %q, %v", got, err)
		}
		// Once the memory is quarantined, the citation no longer shows it.
		if _, err := f.admin.ModerateMemory(f.ctx, mem, issuer.Moderation{Status: issuer.MemoryQuarantined, Reason: "test"}); err != nil {
			t.Fatal(err)
		}
		_, _, err = s.Artifact(f.ctx, third, art.Digest)
		wantCode(t, err, issuer.CodeNotFound)
		_, _, err = s.Artifact(f.ctx, third, "sha256:nothex")
		wantCode(t, err, issuer.CodeNotFound)
	})
}

// TestAcceptRulesAndStatus: the accept is the consulting agent's, of a
// memory its consultation activated; it confirms the memory, moves trust,
// and the latest accept replaces the earlier one.
func TestAcceptRulesAndStatus(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		s := svc(db)
		asker, alice, bob, stranger := f.agent("asker"), f.agent("alice"), f.agent("bob"), f.agent("stranger")
		a := f.publishText(alice, "Musl builds need musl-tools", "apt install musl-tools")
		b := f.publishText(bob, "Musl builds need a cross linker", "use cross")
		other := f.publishText(bob, "Unrelated musl note", "nothing")
		rc, err := s.Consult(f.ctx, asker, []issuer.MemoryID{a, b})
		if err != nil {
			t.Fatal(err)
		}
		// Not consulted in this receipt: refused.
		_, err = s.Accept(f.ctx, asker, rc.ID, other)
		wantCode(t, err, issuer.CodeConsumptionRequired)
		// Someone else's receipt: not found, as for an unknown receipt.
		_, err = s.Accept(f.ctx, stranger, rc.ID, a)
		wantCode(t, err, issuer.CodeNotFound)
		// An unknown memory: not found.
		ghost, _ := issuer.NewMemoryID(rand.Reader)
		_, err = s.Accept(f.ctx, asker, rc.ID, ghost)
		wantCode(t, err, issuer.CodeNotFound)

		acc, err := s.Accept(f.ctx, asker, rc.ID, a)
		if err != nil || acc.MemoryID != a || acc.Replaced != "" {
			t.Fatalf("accept: %+v %v", acc, err)
		}
		if got := f.edgeWeight(asker, alice); got != 1000 {
			t.Fatalf("accept edge %d, want 1000", got)
		}
		now := time.Now()
		page := f.search(now, stranger, "musl", true)
		if r := findResult(t, page, a); r.Status != "confirmed" || r.Counts.Accepts != 1 {
			t.Fatalf("accepted memory: %+v", r)
		}
		// The accept seeds the asker's own trust set: alice is not hidden.
		if r := findResult(t, f.search(now, asker, "musl", false), a); r.LowTrust {
			t.Fatalf("accepted author low in the asker's view: %+v", r)
		}
		// The latest accept counts.
		acc, err = s.Accept(f.ctx, asker, rc.ID, b)
		if err != nil || acc.Replaced != a {
			t.Fatalf("second accept: %+v %v", acc, err)
		}
		if f.edgeWeight(asker, alice) != 0 || f.edgeWeight(asker, bob) != 1000 {
			t.Fatalf("edges after the change: alice %d bob %d", f.edgeWeight(asker, alice), f.edgeWeight(asker, bob))
		}
		page = f.search(now, stranger, "musl", true)
		if r := findResult(t, page, a); r.Status != "unverified" || r.Counts.Accepts != 0 {
			t.Fatalf("replaced accept still counts: %+v", r)
		}
		if r := findResult(t, page, b); r.Status != "confirmed" {
			t.Fatalf("new accept: %+v", r)
		}
		// Accepting the standing memory again changes nothing.
		if _, err := s.Accept(f.ctx, asker, rc.ID, b); err != nil || f.edgeWeight(asker, bob) != 1000 {
			t.Fatalf("repeat: %v, edge %d", err, f.edgeWeight(asker, bob))
		}
		// An accept decays: 360 days on, two half-lives, it is stale.
		if r := findResult(t, f.search(now.Add(361*24*time.Hour), stranger, "musl", true), b); r.Status != "stale" {
			t.Fatalf("old accept: %+v", r)
		}
	})
}

// TestSelfAndSameOperatorSignalsCountZero: a fixed graph where the only
// confirmations of a memory come from its author's group. An own accept and
// a same-operator accept or confirmation are refused when written; one
// whose giver later joins the author's operator counts zero.
func TestSelfAndSameOperatorSignalsCountZero(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		s := svc(db)
		author, sibling, friend, reader := f.agent("author"), f.agent("sibling"), f.agent("friend"), f.agent("reader")
		f.operator("op-author", author, sibling)
		mem := f.publishText(author, "Pin the toolchain", "rust-toolchain.toml pins it")
		// Self: the author's own accept is refused.
		own, err := s.Consult(f.ctx, author, []issuer.MemoryID{mem})
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Accept(f.ctx, author, own.ID, mem)
		wantCode(t, err, issuer.CodeSelfFeedback)
		// Same operator: refused too.
		rs, err := s.Consult(f.ctx, sibling, []issuer.MemoryID{mem})
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Accept(f.ctx, sibling, rs.ID, mem)
		wantCode(t, err, issuer.CodeSameOwner)

		// friend confirms with evidence and accepts while independent...
		f.retrieve(friend, mem)
		ev := issuer.Evidence{Type: issuer.EvidenceOfRun, Detail: "cargo build passed with the pinned toolchain"}
		if err := f.submit(friend, mem, issuer.Feedback{Type: reputation.Corroborate, Evidence: ev}); err != nil {
			t.Fatal(err)
		}
		rf, err := s.Consult(f.ctx, friend, []issuer.MemoryID{mem})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Accept(f.ctx, friend, rf.ID, mem); err != nil {
			t.Fatal(err)
		}
		later := time.Now().Add(40 * 24 * time.Hour) // every key past the cold start
		if r := findResult(t, f.search(later, reader, "toolchain", true), mem); r.Status != "confirmed" ||
			r.Counts.Confirmations != 1 || r.Counts.Accepts != 1 {
			t.Fatalf("independent signals: %+v", r)
		}
		// ...then joins the author's operator: its signals count zero.
		f.operator("op-merged", author, friend)
		if r := findResult(t, f.search(later, reader, "toolchain", true), mem); r.Status != "unverified" ||
			r.Counts.Confirmations != 0 || r.Counts.Accepts != 0 {
			t.Fatalf("same-operator signals counted: %+v", r)
		}
	})
}

// TestEvidenceDecidesConfirmAndContradict: a bare corroboration and a bare
// contradiction are votes; with evidence they confirm and contest.
func TestEvidenceDecidesConfirmAndContradict(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author, voter, critic, reader := f.agent("author"), f.agent("voter"), f.agent("critic"), f.agent("reader")
		mem := f.publishText(author, "Autovacuum thresholds", "Lower the scale factor")
		later := time.Now().Add(40 * 24 * time.Hour)
		f.consumeAndValidate(voter, mem, reputation.Corroborate)
		if r := findResult(t, f.search(later, reader, "autovacuum", true), mem); r.Status != "unverified" || r.Counts.Confirmations != 1 {
			t.Fatalf("bare corroboration: %+v", r)
		}
		f.validate(voter, mem, reputation.UsedSuccessfully, "")
		if r := findResult(t, f.search(later, reader, "autovacuum", true), mem); r.Status != "confirmed" || r.Counts.Uses != 1 {
			t.Fatalf("a use without evidence: %+v", r)
		}
		f.consumeAndValidate(critic, mem, reputation.Contradict)
		if r := findResult(t, f.search(later, reader, "autovacuum", true), mem); r.Status != "confirmed" {
			t.Fatalf("bare contradiction: %+v", r)
		}
		if err := f.submit(critic, mem, issuer.Feedback{Type: reputation.Contradict,
			Evidence: issuer.Evidence{Type: issuer.EvidenceOfRepro, Detail: "bloat grew with the lower factor"}}); err != nil {
			t.Fatal(err)
		}
		if r := findResult(t, f.search(later, reader, "autovacuum", true), mem); r.Status != "contested" {
			t.Fatalf("contradiction with evidence: %+v", r)
		}
	})
}

// TestDigests: a digest cites visible memories; refs to private or unknown
// memories are not_found; it supersedes only a digest; one without refs is
// valid; citations are counted by group.
func TestDigests(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		s := svc(db)
		author, curator, reader := f.agent("author"), f.agent("curator"), f.agent("reader")
		src := f.publishText(author, "Musl needs musl-tools", "apt install musl-tools")
		private, err := s.Publish(f.ctx, curator, issuer.Publication{Category: "rust", Domain: "rust", Title: "notes",
			Content: "mine", Confidence: 500, Visibility: issuer.MemoryPrivate})
		if err != nil {
			t.Fatal(err)
		}
		digest := func(links ...issuer.Link) (issuer.Memory, error) {
			return s.Publish(f.ctx, curator, issuer.Publication{Kind: issuer.KindDigest, Category: "rust", Domain: "rust",
				Title: "Rust: cargo test on musl needs musl-tools", Content: "Consolidated.", Confidence: 500, Links: links})
		}
		_, err = digest(issuer.Link{Kind: issuer.LinkRefs, Target: private.ID})
		wantCode(t, err, issuer.CodeNotFound)
		ghost, _ := issuer.NewMemoryID(rand.Reader)
		_, err = digest(issuer.Link{Kind: issuer.LinkRefs, Target: ghost})
		wantCode(t, err, issuer.CodeNotFound)
		_, err = digest(issuer.Link{Kind: issuer.LinkRefs, Target: src}, issuer.Link{Kind: issuer.LinkSupersedes, Target: src})
		wantCode(t, err, issuer.CodeInvalid)

		d1, err := digest(issuer.Link{Kind: issuer.LinkRefs, Target: src})
		if err != nil || d1.Kind != issuer.KindDigest || len(d1.Refs) != 1 || d1.Refs[0] != src {
			t.Fatalf("digest: %+v %v", d1, err)
		}
		d2, err := digest(issuer.Link{Kind: issuer.LinkRefs, Target: src}, issuer.Link{Kind: issuer.LinkSupersedes, Target: d1.ID})
		if err != nil || len(d2.Supersedes) != 1 {
			t.Fatalf("superseding digest: %+v %v", d2, err)
		}
		bare, err := digest()
		if err != nil || bare.Kind != issuer.KindDigest || len(bare.Refs) != 0 {
			t.Fatalf("digest without refs: %+v %v", bare, err)
		}
		later := time.Now().Add(40 * 24 * time.Hour)
		page := f.search(later, reader, "musl", true)
		if r := findResult(t, page, src); r.Counts.Citations != 1 {
			t.Fatalf("cited memory: %+v", r)
		}
		if r := findResult(t, page, d2.ID); r.Kind != issuer.KindDigest || r.Status != "unverified" {
			t.Fatalf("digest in search: %+v", r)
		}
		// A digest is validated like any memory.
		f.retrieve(reader, d2.ID)
		f.validate(reader, d2.ID, reputation.UsedSuccessfully, "")
		if r := findResult(t, f.search(later, author, "musl", true), d2.ID); r.Status != "confirmed" {
			t.Fatalf("used digest: %+v", r)
		}
		// The author of a passport never sees refs as lineage.
		if m := f.retrieve(reader, src); len(m.Refs) != 0 {
			t.Fatalf("refs on the source: %+v", m)
		}
	})
}

// TestRenewals: stillValid renews one's standing confirmation, counted at
// most once per 30 days, and keeps a confirmation from going stale.
func TestRenewals(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		start := time.Now().UTC()
		clock := storetest.NewClock(start, 0)
		s := service.New(db, service.Options{Now: clock.Now})
		author, ev, reader := f.agent("author"), f.agent("evaluator"), f.agent("reader")
		mem := f.publishText(author, "Pin the toolchain", "rust-toolchain.toml")
		f.retrieve(ev, mem)
		renew := func(typ reputation.Type) (issuer.FeedbackResult, error) {
			res, _, err := s.SubmitFeedback(f.ctx, ev, mem, issuer.Feedback{Type: typ, Reason: "still builds", StillValid: true}, issuer.TransportHTTP)
			return res, err
		}
		// Nothing to renew yet.
		_, err := renew(reputation.Corroborate)
		wantCode(t, err, issuer.CodeConflict)
		if _, _, err := s.SubmitFeedback(f.ctx, ev, mem, issuer.Feedback{Type: reputation.Corroborate, Reason: "still builds"}, issuer.TransportHTTP); err != nil {
			t.Fatal(err)
		}
		// Another type is not the standing one.
		_, err = renew(reputation.UsedSuccessfully)
		wantCode(t, err, issuer.CodeConflict)

		clock.Set(start.Add(300 * 24 * time.Hour))
		if res, err := renew(reputation.Corroborate); err != nil || !res.Renewed {
			t.Fatalf("first renewal: %+v %v", res, err)
		}
		clock.Set(start.Add(310 * 24 * time.Hour))
		if res, err := renew(reputation.Corroborate); err != nil || res.Renewed {
			t.Fatalf("a renewal 10 days later counted: %+v %v", res, err)
		}
		if n := f.count(`SELECT COUNT(*) FROM position_renewals`); n != 1 {
			t.Fatalf("%d renewals stored, want 1", n)
		}
		// 400 days after the confirmation it would be stale; renewed at
		// day 300, it is live.
		if r := findResult(t, f.search(start.Add(400*24*time.Hour), reader, "toolchain", true), mem); r.Status != "confirmed" {
			t.Fatalf("renewed confirmation: %+v", r)
		}
		if r := findResult(t, f.search(start.Add(700*24*time.Hour), reader, "toolchain", true), mem); r.Status != "stale" {
			t.Fatalf("long after the renewal: %+v", r)
		}
	})
}
