package store_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
)

// TestReadReplicaRefused checks that only a PostgreSQL database reads from
// a replica, and only one a postgres:// URL names.
func TestReadReplicaRefused(t *testing.T) {
	ctx := context.Background()
	_, err := store.Open(ctx, filepath.Join(t.TempDir(), "a.db"), store.Options{ReadURL: "postgres://127.0.0.1:1/x"})
	if err == nil || !strings.Contains(err.Error(), "needs a PostgreSQL database") {
		t.Errorf("a SQLite file with a replica: %v", err)
	}
	_, err = store.Open(ctx, "postgres://127.0.0.1:1/x", store.Options{ReadURL: filepath.Join(t.TempDir(), "b.db")})
	if err == nil || !strings.Contains(err.Error(), "postgres:// URL") {
		t.Errorf("a replica named by a path: %v", err)
	}
}

// TestReadReplica runs a primary and a streaming replica of it, stops the
// replica's replay, and checks which reads go where: search and a
// subject's records are read on the replica while it holds the subject's
// revision, and a subject the primary has changed since is read again on
// the primary, so that it never describes a revision older than the
// primary's.
func TestReadReplica(t *testing.T) {
	pair := storetest.StartReplicated(t)
	ctx := context.Background()
	db := pair.Open(store.Options{})
	app := storetest.Service(db)
	author := storetest.Principal(t, db, "Replicated author")
	publish := func(word string) {
		t.Helper()
		if _, err := app.Publish(ctx, author, issuer.Publication{Category: "sql", Domain: "sql", Title: "A finding about " + word,
			Content: "What was found about " + word + ".", Confidence: 500}); err != nil {
			t.Fatal(err)
		}
	}
	found := func(word string) bool {
		t.Helper()
		c, _, err := db.SearchCandidates(ctx, author.Key, []string{word}, 10)
		if err != nil {
			t.Fatal(err)
		}
		return len(c) == 1
	}
	// load reads the subject and checks that it describes the primary's
	// revision now.
	load := func() (name string, memories int) {
		t.Helper()
		sub, err := db.LoadSubject(ctx, author.AgentID, time.Now)
		if err != nil {
			t.Fatal(err)
		}
		rev, err := db.SubjectRevision(ctx, author.AgentID)
		if err != nil {
			t.Fatal(err)
		}
		if sub.Revision != rev {
			t.Fatalf("the subject read describes revision %q, the primary holds %q", sub.Revision, rev)
		}
		return sub.Name, len(sub.Memories)
	}
	// step runs one of the pair's steps.
	step := func(f func(context.Context) error) {
		t.Helper()
		if err := f(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// read checks the subject read, and how many subjects were kept from
	// the replica and read again on the primary so far.
	read := func(name string, memories int, kept, again int64) {
		t.Helper()
		if n, m := load(); n != name || m != memories {
			t.Fatalf("the subject was read as %q with %d memories, want %q with %d", n, m, name, memories)
		}
		if k, a := db.ReplicaSubjects(); k != kept || a != again {
			t.Fatalf("%d subjects kept from the replica, %d read again on the primary; want %d and %d", k, a, kept, again)
		}
	}
	publish("vacuum")
	step(pair.Sync)
	read("Replicated author", 1, 1, 0)

	step(pair.PauseReplay)
	// A change the revision does not follow (behind the store's back)
	// shows which server a read went to: with the revision unchanged,
	// the replica's state is kept.
	if _, err := db.UnsafeSQL().Exec(`UPDATE agents SET name = 'Renamed on the primary' WHERE public_id = $1`, author.AgentID); err != nil {
		t.Fatal(err)
	}
	read("Replicated author", 1, 2, 0)
	publish("analyze")
	if found("analyze") {
		t.Fatal("search found a memory the paused replica has not replayed: it did not read the replica")
	}
	// Behind the primary's revision, the subject is read on the primary.
	read("Renamed on the primary", 2, 2, 1)

	step(pair.ResumeReplay)
	step(pair.Sync)
	if !found("analyze") || !found("vacuum") {
		t.Fatal("search on the replica, caught up, misses a memory")
	}
	read("Renamed on the primary", 2, 3, 1)
}
