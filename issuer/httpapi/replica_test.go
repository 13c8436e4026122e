package httpapi_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/httpapi"
	"github.com/remnant/passportkit/issuer/keyring"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/passport"
)

// replica is one issuer process: its own connection pool, cache and
// server on loopback, on a database it shares.
type replica struct {
	db        *store.DB
	passports *service.Passports
	env       *env
}

func newReplica(t *testing.T, dsn, keys string) *replica {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	db, err := store.Open(ctx, dsn, store.Options{Logger: storetest.Logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	ring, err := keyring.New(db, keyring.Config{Issuer: "https://issuer.test", Dir: keys})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ring.EnsureActive(ctx, passport.EdDSA); err != nil {
		t.Fatal(err)
	}
	p := service.NewPassports(db, ring, service.PassportOptions{})
	done := make(chan error, 1)
	go func() { done <- db.ListenRevisions(ctx, p.Invalidate) }()
	t.Cleanup(func() {
		cancel()
		<-done
		db.Close()
	})
	e := serve(t, db, httpapi.New(service.New(db, service.Options{}), storetest.Logger(t),
		httpapi.Config{RatePerSecond: 1000, Burst: 1000, Passports: p}))
	return &replica{db: db, passports: p, env: e}
}

// TestReplicasNeverServeStale runs two issuers on one PostgreSQL schema. A
// write through one is never answered stale by the other, even at once;
// and the other's cached passport is freed by the write's notification.
func TestReplicasNeverServeStale(t *testing.T) {
	t.Parallel()
	if !slices.Contains(storetest.Engines(t), store.Postgres) {
		t.Skip("replicas share a PostgreSQL database: " + storetest.EnvURL + " is not set")
	}
	dsn := storetest.URL(t, store.Postgres)
	keys := filepath.Join(t.TempDir(), "keys")
	a := newReplica(t, dsn, keys)
	b := newReplica(t, dsn, keys)
	ctx := context.Background()

	create := func(name string) (issuer.APIKey, issuer.Principal) {
		op, err := storetest.Admin(a.db).CreateOperator(ctx, name+" Inc")
		if err != nil {
			t.Fatal(err)
		}
		c, err := storetest.Admin(a.db).CreateAgent(ctx, service.NewAgent{Name: name, Operator: op})
		if err != nil {
			t.Fatal(err)
		}
		p, err := a.db.Authenticate(ctx, c.Key)
		if err != nil {
			t.Fatal(err)
		}
		return c.Key, p
	}
	_, subject := create("Subject")
	mem, err := service.New(a.db, service.Options{}).Publish(ctx, subject, issuer.Publication{Category: "Databases", Domain: "databases",
		Title: "Indexes", Content: "Index the join keys.", Visibility: issuer.MemoryPublic,
		AppliesTo: issuer.AppliesTo{Skill: "PostgreSQL indexing", Context: evidence.Context{Version: "16"}}})
	if err != nil {
		t.Fatal(err)
	}
	path := "/api/public/agents/" + string(subject.AgentID) + "/passport"
	count := func(r response) int {
		var b passport.Bundle
		if err := json.Unmarshal(r.body, &b); err != nil {
			t.Fatal(err)
		}
		var snap struct {
			Passport passport.Passport `json:"passport"`
		}
		if err := json.Unmarshal(b.Snapshot, &snap); err != nil {
			t.Fatal(err)
		}
		return snap.Passport.EvidenceCount
	}
	before := must(t, b.env.do("", "GET", path, ""), 200)
	if s, n := b.passports.Cached(); s != 1 || n != 1 {
		t.Fatalf("b caches %d subjects, %d passports; want 1, 1", s, n)
	}

	for i := range 3 {
		key, _ := create("Evaluator " + string(rune('A'+i)))
		must(t, a.env.do(key, "GET", "/api/memories/"+string(mem.ID), ""), 200)
		must(t, a.env.do(key, "POST", "/api/memories/"+string(mem.ID)+"/feedback", `{"type":"corroborate"}`), 200)
		// At once, without waiting for any notification.
		after := must(t, b.env.do("", "GET", path, before.header.Get("ETag")), 200)
		if after.header.Get("ETag") == before.header.Get("ETag") || count(after) != count(before)+1 {
			t.Fatalf("write %d: b answered with %d records (etag %s); before %d (etag %s)", i,
				count(after), after.header.Get("ETag"), count(before), before.header.Get("ETag"))
		}
		before = after
	}

	// The notification frees b's cached passport without a request.
	key, _ := create("Evaluator Z")
	must(t, a.env.do(key, "GET", "/api/memories/"+string(mem.ID), ""), 200)
	must(t, a.env.do(key, "POST", "/api/memories/"+string(mem.ID)+"/feedback", `{"type":"corroborate"}`), 200)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if s, _ := b.passports.Cached(); s == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("b's cache was not invalidated by a's write")
		}
	}
	if !strings.Contains(string(must(t, b.env.do("", "GET", path, ""), 200).body), `"bundleVersion"`) {
		t.Fatal("no bundle")
	}
}
