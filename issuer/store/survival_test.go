package store_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/reputation"
)

// TestSweepEvictsInOrderAndKeepsGuaranteedBodies drives a store over its
// budget: bodies go in eviction order (score, uses, age, key), one at a
// time as the budget tightens, and never a confirmed memory, a confirmed
// digest or its sources; rows, hashes and events stay, and each eviction
// is audited (SPEC.md §15.10).
func TestSweepEvictsInOrderAndKeepsGuaranteedBodies(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		author, reader := f.agent("author"), f.agent("reader")
		liked := f.publish(author, "sql") // score 1, used once
		used := f.publish(author, "sql")  // score 0, used once
		plain := f.publish(author, "sql") // score 0, never used
		confirmed := f.publish(author, "sql")
		source := f.publish(author, "sql")
		f.consumeAndValidate(reader, liked, reputation.Useful)
		f.retrieve(reader, used)
		f.consumeAndValidate(reader, confirmed, reputation.UsedSuccessfully)
		digest, err := svc(db).Publish(f.ctx, author, issuer.Publication{
			Kind: issuer.KindDigest, Category: "sql", Domain: "sql", Title: "The digest", Content: "Some knowledge.",
			Confidence: 500, Links: []issuer.Link{{Kind: issuer.LinkRefs, Target: source}},
		})
		if err != nil {
			t.Fatal(err)
		}
		f.consumeAndValidate(reader, digest.ID, reputation.UsedSuccessfully)
		hashes := queryText(t, db, `SELECT public_id || ' ' || content_hash FROM memories ORDER BY id`)
		events := f.count(`SELECT COUNT(*) FROM feedback_history`)

		sweep := func(budget int64, dry bool) service.SweepReport {
			t.Helper()
			rep, err := db.SweepStorage(f.ctx, service.SweepOptions{Budget: budget, Batch: 1, DryRun: dry})
			if err != nil {
				t.Fatal(err)
			}
			return rep
		}
		const size = int64(len("Some knowledge."))
		held := sweep(1<<40, false).HeldBefore
		if held != 6*size {
			t.Fatalf("held %d, want %d", held, 6*size)
		}
		if rep := sweep(held-1, true); rep.Memories != 1 || rep.Batches != 0 || f.count(`SELECT COUNT(*) FROM memories WHERE evicted_at IS NOT NULL`) != 0 {
			t.Fatalf("a dry run wrote: %+v", rep)
		}
		order := []issuer.MemoryID{plain, used, liked}
		for i := range order {
			rep := sweep(held-int64(i)*size-1, false)
			if rep.Memories != 1 || rep.MemoryBytes != size || rep.OverBudget {
				t.Fatalf("step %d: %+v", i, rep)
			}
			got := queryText(t, db, `SELECT public_id FROM memories WHERE evicted_at IS NOT NULL ORDER BY id`)
			if len(got) != i+1 {
				t.Fatalf("step %d: evicted %v", i, got)
			}
			for _, want := range order[:i+1] {
				if !slices.Contains(got, string(want)) {
					t.Fatalf("step %d: evicted %v, want %v", i, got, order[:i+1])
				}
			}
		}
		rep := sweep(0, false)
		if rep.Memories != 0 || !rep.OverBudget || rep.HeldAfter != 3*size {
			t.Fatalf("the kept bodies: %+v", rep)
		}
		for _, id := range []issuer.MemoryID{confirmed, source, digest.ID} {
			if m := f.retrieve(reader, id); m.Evicted || m.Content == "" {
				t.Fatalf("%s lost its body", id)
			}
		}
		m := f.retrieve(reader, plain)
		if !m.Evicted || m.Content != "" || m.ContentHash == "" {
			t.Fatalf("evicted memory reads %+v", m)
		}
		b, _ := json.Marshal(m)
		if !strings.Contains(string(b), `"content":null`) || !strings.Contains(string(b), `"evicted":true`) {
			t.Fatalf("evicted memory JSON %s", b)
		}
		if got := queryText(t, db, `SELECT public_id || ' ' || content_hash FROM memories ORDER BY id`); strings.Join(got, ",") != strings.Join(hashes, ",") {
			t.Fatalf("hashes changed: %v -> %v", hashes, got)
		}
		if n := f.count(`SELECT COUNT(*) FROM feedback_history`); n != events {
			t.Fatalf("events %d -> %d", events, n)
		}
		if n := f.count(`SELECT COUNT(*) FROM audit_events WHERE action = 'memory.evict'`); n != 3 {
			t.Fatalf("%d eviction audits, want 3", n)
		}
	})
}

// TestSweptArtifactIsGoneUntilUploadedAgain: an artifact no position cites
// is evicted under a budget of 0; its digest then reads not_found, even to
// its uploader, and may not be cited, until the same content is uploaded
// again, which stores it anew (SPEC.md §15.10).
func TestSweptArtifactIsGoneUntilUploadedAgain(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		uploader := f.agent("uploader")
		content := []byte("41 passed, 0 failed")
		digest := issuer.ArtifactDigest(content)
		key := uploader.Key
		if _, err := db.PutArtifact(f.ctx, key, digest, content, time.Now()); err != nil {
			t.Fatal(err)
		}
		rep, err := db.SweepStorage(f.ctx, service.SweepOptions{Budget: 0})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Artifacts != 1 || rep.ArtifactBytes != int64(len(content)) {
			t.Fatalf("sweep: %+v", rep)
		}
		if _, _, err := db.ReadArtifact(f.ctx, key, digest); issuer.ErrorCode(err) != issuer.CodeNotFound {
			t.Fatalf("an evicted artifact reads %v", err)
		}
		again, err := db.PutArtifact(f.ctx, key, digest, content, time.Now())
		if err != nil || !again.Created {
			t.Fatalf("uploaded again: %+v %v", again, err)
		}
		got, _, err := db.ReadArtifact(f.ctx, key, digest)
		if err != nil || string(got) != string(content) {
			t.Fatalf("read after a new upload: %q %v", got, err)
		}
	})
}
