package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/passport"
)

// TestServeReadsFromReplica serves with --read-db naming a streaming replica
// and pauses the replica's replay: a passport asked for after a
// publication holds it (its subject is read again on the primary, not
// built from the replica's older state), and once the replica has caught
// up the same passport is served (304). The metrics count the subject read
// again.
func TestServeReadsFromReplica(t *testing.T) {
	pair := storetest.StartReplicated(t)
	ctx := context.Background()
	step := func(f func(context.Context) error) {
		t.Helper()
		if err := f(ctx); err != nil {
			t.Fatal(err)
		}
	}
	cmd(t, pair.PrimaryURL, "migrate")
	subject := recordWorld(t, pair.PrimaryURL)
	step(pair.Sync)
	base := serveIssuer(t, pair.PrimaryURL, filepath.Join(t.TempDir(), "keys"), "--read-db", pair.ReplicaURL)
	pp := base + "/api/public/agents/" + string(subject) + "/passport"
	status, etag, body := get(t, pp, "")
	if status != 200 {
		t.Fatalf("passport: %d %s", status, body)
	}

	step(pair.PauseReplay)
	var key struct {
		APIKey issuer.APIKey `json:"apiKey"`
	}
	if err := json.Unmarshal([]byte(cmd(t, pair.PrimaryURL, "agents", "rotate-key", string(subject), "--json")), &key); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(ctx, pair.PrimaryURL, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	author, err := db.Authenticate(ctx, key.APIKey)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := service.New(db, service.Options{}).Publish(ctx, author, issuer.Publication{Category: "Databases", Domain: "databases",
		Title: "Note 3", Content: "How to vacuum.", Visibility: issuer.MemoryPublic, AppliesTo: issuer.AppliesTo{Skill: "SQLite"}}); err != nil {
		t.Fatal(err)
	}
	status, changed, after := get(t, pp, etag)
	if status != 200 || changed == etag {
		t.Fatalf("after a write the replica has not replayed: %d, ETag %s (before %s): %s", status, changed, etag, after)
	}
	if n, m := evidenceCount(t, body), evidenceCount(t, after); m <= n {
		t.Fatalf("the passport after a publication holds %d records, before it %d: it does not describe the write", m, n)
	}

	// The discovery indexer may read the subject again too.
	status, metrics := getBody(t, base+"/metrics")
	if status != 200 || !regexp.MustCompile(`(?m)^passportkit_replica_subjects_total\{result="again"\} [1-9]`).MatchString(metrics) {
		t.Fatalf("metrics: %d, no subject read again on the primary:\n%s", status, metrics)
	}

	step(pair.ResumeReplay)
	step(pair.Sync)
	if status, _, body := get(t, pp, changed); status != 304 {
		t.Fatalf("with the replica caught up: %d %s", status, body)
	}
}

// evidenceCount returns the evidenceCount of the passport bundle b.
func evidenceCount(t *testing.T, b []byte) int {
	t.Helper()
	bundle, err := passport.ParseBundleUnverified(b)
	if err != nil {
		t.Fatal(err)
	}
	_, p, err := bundle.SnapshotUnverified()
	if err != nil {
		t.Fatal(err)
	}
	return p.EvidenceCount
}
