package store_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/reputation"
)

// fixture drives one store through the public API.
type fixture struct {
	t     *testing.T
	db    *store.DB
	ctx   context.Context
	keys  map[issuer.AgentID]issuer.APIKey
	admin *service.Admin // the operator's use cases, on the store's clock
}

func newFixture(t *testing.T, db *store.DB) *fixture {
	return &fixture{t: t, db: db, ctx: context.Background(), keys: map[issuer.AgentID]issuer.APIKey{}, admin: storetest.Admin(db)}
}

// reauth authenticates p's key again, picking up a changed status.
func (f *fixture) reauth(p issuer.Principal) issuer.Principal {
	f.t.Helper()
	np, err := f.db.Authenticate(f.ctx, f.keys[p.AgentID])
	if err != nil {
		f.t.Fatalf("authenticate %s: %v", p.AgentID, err)
	}
	return np
}

// agent creates an agent with the default scopes (or those given) and
// returns its principal.
func (f *fixture) agent(name string, scopes ...issuer.Scope) issuer.Principal {
	f.t.Helper()
	return f.agentWith(service.NewAgent{Name: name, Scopes: scopes})
}

func (f *fixture) agentWith(in service.NewAgent) issuer.Principal {
	f.t.Helper()
	a, err := f.admin.CreateAgent(f.ctx, in)
	if err != nil {
		f.t.Fatalf("create agent %s: %v", in.Name, err)
	}
	p, err := f.db.Authenticate(f.ctx, a.Key)
	if err != nil {
		f.t.Fatalf("authenticate %s: %v", in.Name, err)
	}
	f.keys[p.AgentID] = a.Key
	return p
}

func (f *fixture) publish(author issuer.Principal, category string) issuer.MemoryID {
	f.t.Helper()
	m, err := svc(f.db).Publish(f.ctx, author, issuer.Publication{
		Category: category, Domain: reputation.NormalizeDomain(category), Title: "A finding",
		Content: "Some knowledge.", Confidence: 500,
	})
	if err != nil {
		f.t.Fatalf("publish: %v", err)
	}
	return m.ID
}

func (f *fixture) retrieve(p issuer.Principal, mem issuer.MemoryID) issuer.Memory {
	f.t.Helper()
	m, err := svc(f.db).Retrieve(f.ctx, p, mem)
	if err != nil {
		f.t.Fatalf("retrieve: %v", err)
	}
	return m
}

// validate submits a direct validation over HTTP and fails on error.
func (f *fixture) validate(p issuer.Principal, mem issuer.MemoryID, t reputation.Type, reason string) issuer.FeedbackResult {
	f.t.Helper()
	res, _, err := svc(f.db).SubmitFeedback(f.ctx, p, mem, issuer.Feedback{Type: t, Reason: reason}, issuer.TransportHTTP)
	if err != nil {
		f.t.Fatalf("validate %s as %s: %v", mem, t, err)
	}
	return res
}

// consumeAndValidate retrieves then validates.
func (f *fixture) consumeAndValidate(p issuer.Principal, mem issuer.MemoryID, t reputation.Type) issuer.FeedbackResult {
	f.t.Helper()
	f.retrieve(p, mem)
	return f.validate(p, mem, t, "")
}

func (f *fixture) profile(p issuer.Principal) issuer.Profile {
	f.t.Helper()
	pr, err := svc(f.db).Profile(f.ctx, p)
	if err != nil {
		f.t.Fatalf("profile: %v", err)
	}
	return pr
}

func (f *fixture) domain(p issuer.Principal, domain string) issuer.DomainReputation {
	f.t.Helper()
	for _, d := range f.profile(p).DomainReputations {
		if d.Domain == domain {
			return d
		}
	}
	return issuer.DomainReputation{Domain: domain}
}

// wantCode fails unless err carries code.
func wantCode(t *testing.T, err error, code issuer.Code) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %s", code)
	}
	if got := issuer.ErrorCode(err); got != code {
		t.Fatalf("got %v (code %s), want %s", err, got, code)
	}
	var e *issuer.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v is not an *issuer.Error", err)
	}
}

// snapshot returns every row of every table except goose's, as text, so
// that two snapshots compare equal exactly when no table changed.
func snapshot(t *testing.T, db *store.DB) map[string][]string {
	t.Helper()
	ctx := context.Background()
	query := `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'goose_db_version'`
	if db.Engine() == store.Postgres {
		query = `SELECT tablename FROM pg_catalog.pg_tables WHERE schemaname = current_schema() AND tablename <> 'goose_db_version'`
	}
	var tables []string
	if err := db.UnsafeSQL().SelectContext(ctx, &tables, query); err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	if len(tables) < 20 {
		t.Fatalf("snapshot: only %d tables: %v", len(tables), tables)
	}
	out := map[string][]string{}
	for _, table := range tables {
		out[table] = queryText(t, db, `SELECT * FROM `+table+` ORDER BY 1`)
		out[table] = append(out[table], fmt.Sprintf("(%d rows)", len(out[table])))
	}
	return out
}

// queryText returns every row of a query, each as text.
func queryText(t testing.TB, db *store.DB, query string, args ...any) []string {
	t.Helper()
	rows, err := db.UnsafeSQL().Queryx(query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		v, err := rows.SliceScan()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprint(v...))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// queryPlan returns the plan the engine chooses for query (written with ?
// placeholders). On PostgreSQL sequential scans and sorts are forbidden,
// so that with few rows to choose by the plan shows which index the
// planner would use, and keeps a sort only where no index gives the order.
func queryPlan(t testing.TB, db *store.DB, query string, args ...any) string {
	t.Helper()
	if db.Engine() != store.Postgres {
		return strings.Join(queryText(t, db, `EXPLAIN QUERY PLAN `+query, args...), "\n")
	}
	x := db.UnsafeSQL()
	tx, err := x.Beginx()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`SET LOCAL enable_seqscan = off; SET LOCAL enable_sort = off`); err != nil {
		t.Fatal(err)
	}
	var plan []string
	if err := tx.Select(&plan, `EXPLAIN `+x.Rebind(query), args...); err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "\n")
}

// diffSnapshots reports the tables whose rows differ.
func diffSnapshots(before, after map[string][]string) []string {
	var changed []string
	for table, rows := range after {
		if !slices.Equal(before[table], rows) {
			changed = append(changed, table)
		}
	}
	slices.Sort(changed)
	return changed
}

// count returns the single integer a query yields.
func (f *fixture) count(query string, args ...any) int {
	f.t.Helper()
	var n int
	if err := f.db.UnsafeSQL().GetContext(f.ctx, &n, f.db.UnsafeSQL().Rebind(query), args...); err != nil {
		f.t.Fatalf("count %q: %v", query, err)
	}
	return n
}

// event is a journal entry as the tests inspect it.
type event struct {
	Phase  string `db:"phase"`
	Type   string `db:"type"`
	Weight int64  `db:"weight"`
	Delta  int64  `db:"delta"`
}

// events returns the journal of author's reputation, oldest first.
func (f *fixture) events(author issuer.Principal) []event {
	f.t.Helper()
	var out []event
	if err := f.db.UnsafeSQL().SelectContext(f.ctx, &out, f.db.UnsafeSQL().Rebind(`SELECT phase, type, weight, delta FROM reputation_events
		WHERE author_id = ? ORDER BY id`), author.Key); err != nil {
		f.t.Fatalf("events: %v", err)
	}
	return out
}

// score returns the author's global reputation score.
func (f *fixture) score(p issuer.Principal) reputation.Milli {
	f.t.Helper()
	return f.profile(p).ReputationScore
}

// derived snapshots the rows a rebuild restores.
func derived(t *testing.T, db *store.DB) map[string][]string {
	t.Helper()
	all := snapshot(t, db)
	out := map[string][]string{}
	for _, table := range []string{"agent_domain_reputation", "agent_reputation_aggregates", "agent_domain_evaluator_counts", "agent_global_evaluator_counts"} {
		out[table] = all[table]
	}
	out["memories"] = queryText(t, db, `SELECT id, validation_summary_json, confidence_state, confidence FROM memories ORDER BY id`)
	return out
}

// svc returns the issuer service over db: the behavioural suite drives the
// store through the use cases.
func svc(db *store.DB) *service.Service { return storetest.Service(db) }
