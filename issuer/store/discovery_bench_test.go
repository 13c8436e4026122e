package store_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/keyring"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/passport"
)

// The registry the discovery benchmarks load into PostgreSQL.
const (
	benchRegistryDB      = "passportkit_bench_findagents"
	benchRegistryVersion = 3 // bump when the generator or the schema of its tables changes
	benchRegistryAgents  = 100_000
	benchRegistryReports = 1_000_000
	benchAgentsPerOp     = 20
)

// benchSkills are the skills the registry's memories are about: the first
// is what most agents' passports list.
var benchSkills = []string{"PostgreSQL indexing", "PostgreSQL replication", "SQLite query optimization", "MCP reliability",
	"PostgreSQL query optimization", "MCP server development", "SQLite indexing"}

// benchWorkloads are the workloads outcome reports name.
var benchWorkloads = []string{"oltp", "batch", "analytics", "htap", "embedded", "edge"}

// benchRegistry is the loaded registry: the store, and the discovery use
// case over it.
type benchRegistry struct {
	db        *store.DB
	discovery *service.Discovery
	passports *service.Passports
}

// openBenchRegistry opens the database passportkit_bench_findagents on the
// server of PASSPORT_TEST_DATABASE_URL, loading it and building its index
// unless a complete load of this generator is there already (a load takes
// minutes; it is kept between runs). It skips without the URL.
func openBenchRegistry(b *testing.B) *benchRegistry {
	b.Helper()
	base := os.Getenv(storetest.EnvURL)
	if base == "" {
		b.Skipf("%s is not set: the discovery benchmarks run on PostgreSQL only", storetest.EnvURL)
	}
	ctx := context.Background()
	u, err := url.Parse(base)
	if err != nil {
		b.Fatal(err)
	}
	u.Path = "/" + benchRegistryDB
	dsn := u.String()
	admin, err := sql.Open("pgx", base)
	if err != nil {
		b.Fatal(err)
	}
	defer admin.Close()
	var exists bool
	if err := admin.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, benchRegistryDB).Scan(&exists); err != nil {
		b.Fatal(err)
	}
	if !exists {
		if _, err := admin.ExecContext(ctx, `CREATE DATABASE `+benchRegistryDB); err != nil {
			b.Fatal(err)
		}
	}
	db, err := store.Open(ctx, dsn, store.Options{MaxOpenConns: 16, Logger: storetest.Logger(b)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	r := &benchRegistry{db: db}
	// The database remembers its active key: keep the key directory too.
	keys := filepath.Join(os.TempDir(), benchRegistryDB+"-keys")
	if err := os.MkdirAll(keys, 0o700); err != nil {
		b.Fatal(err)
	}
	ring, err := keyring.New(db, keyring.Config{Issuer: "https://issuer.bench", Dir: keys})
	if err != nil {
		b.Fatal(err)
	}
	if loaded, _ := registryState(ctx, db); loaded {
		b.Logf("reusing the loaded registry in %s", benchRegistryDB)
	} else {
		db.Close()
		if _, err := admin.ExecContext(ctx, `DROP DATABASE `+benchRegistryDB+` WITH (FORCE)`); err != nil {
			b.Fatal(err)
		}
		if _, err := admin.ExecContext(ctx, `CREATE DATABASE `+benchRegistryDB); err != nil {
			b.Fatal(err)
		}
		if db, err = store.Open(ctx, dsn, store.Options{MaxOpenConns: 16, Logger: storetest.Logger(b)}); err != nil {
			b.Fatal(err)
		}
		r.db = db
		if ring, err = keyring.New(db, keyring.Config{Issuer: "https://issuer.bench", Dir: keys}); err != nil {
			b.Fatal(err)
		}
		loadBenchRegistry(b, db)
	}
	if _, err := ring.EnsureActive(ctx, passport.EdDSA); err != nil {
		// The key directory is gone (a new machine, a cleaned /tmp).
		if _, err := ring.Rotate(ctx, "", passport.EdDSA); err != nil {
			b.Fatal(err)
		}
	}
	r.passports = service.NewPassports(db, ring, service.PassportOptions{})
	r.discovery = service.NewDiscovery(db, r.passports, storetest.Sealer(b, db), service.DiscoveryOptions{})
	if _, indexed := registryState(ctx, db); !indexed {
		t0 := time.Now()
		rep, err := r.discovery.Rebuild(ctx, 4, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Logf("indexed %d agents in %s (%.1f ms each, 4 at a time)", rep.Indexed, time.Since(t0).Round(time.Second),
			ms(time.Since(t0))/float64(rep.Indexed)*4)
		if _, err := db.UnsafeSQL().ExecContext(ctx, `VACUUM ANALYZE discovery_subjects, discovery_skills, discovery_context_ceilings`); err != nil {
			b.Fatal(err)
		}
		if _, err := db.UnsafeSQL().ExecContext(ctx, `UPDATE bench_registry SET complete = TRUE`); err != nil {
			b.Fatal(err)
		}
	}
	return r
}

// registryState reports whether db holds a finished load of this
// generator on the current schema, and whether its index was built.
func registryState(ctx context.Context, db *store.DB) (loaded, indexed bool) {
	if db.CheckSchema(ctx) != nil {
		return false, false
	}
	err := db.UnsafeSQL().QueryRowContext(ctx, `SELECT complete FROM bench_registry WHERE version = $1 AND agents = $2 AND reports = $3`,
		benchRegistryVersion, benchRegistryAgents, benchRegistryReports).Scan(&indexed)
	return err == nil, err == nil && indexed
}

// loadBenchRegistry migrates db and fills it with COPY: 100,000 agents of
// 5,000 operators, their memories about benchSkills, and 1,000,000 outcome
// reports on them by agents of other operators, each with its position,
// the position's history and the outcome record, as the write path would
// have left them; then the derived tables and the revision tokens.
// Triggers are off during the load (the derived tables are filled after,
// as the migrations fill them); the reputation journal is not written.
func loadBenchRegistry(b *testing.B, db *store.DB) {
	b.Helper()
	ctx := context.Background()
	t0 := time.Now()
	if _, err := db.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	x := db.UnsafeSQL()
	if _, err := x.ExecContext(ctx, `CREATE TABLE bench_registry (version INTEGER, agents INTEGER, reports INTEGER, complete BOOLEAN)`); err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewChaCha8([32]byte{'f', 'i', 'n', 'd', '_', 'a', 'g', 'e', 'n', 't', 's'}))
	ids := rand.NewChaCha8([32]byte{'i', 'd', 's'})
	now := time.Now().UTC().Truncate(time.Second)
	born := now.AddDate(0, 0, -800)
	n := benchRegistryAgents
	ops := n / benchAgentsPerOp
	opOf := func(agent int) int { return agent / benchAgentsPerOp }

	// Memories: 80% of agents author 1 to 15, most about one main skill.
	type memory struct {
		author int
		skill  string
		at     time.Time
	}
	var mems []memory
	for a := range n {
		if rng.IntN(10) < 2 {
			continue
		}
		main := benchSkills[0]
		switch p := rng.IntN(100); {
		case p >= 70 && p < 80:
			main = benchSkills[1]
		case p >= 80 && p < 88:
			main = benchSkills[2]
		case p >= 88 && p < 93:
			main = benchSkills[3]
		case p >= 93:
			main = fmt.Sprintf("niche skill %d", rng.IntN(400))
		}
		count := 1 + min(14, int(rng.ExpFloat64()*1.5))
		for range count {
			sk := main
			if rng.IntN(5) == 0 {
				sk = benchSkills[rng.IntN(len(benchSkills))]
			}
			mems = append(mems, memory{author: a, skill: sk, at: born.Add(time.Duration(rng.IntN(40*24)) * time.Hour)})
		}
	}
	// Reports per memory: exponential, then trimmed or topped up to the
	// exact total; each by distinct evaluators of other operators.
	counts := make([]int, len(mems))
	total := 0
	mean := float64(benchRegistryReports) / float64(len(mems))
	for i := range counts {
		counts[i] = min(60, int(rng.ExpFloat64()*mean))
		total += counts[i]
	}
	for total != benchRegistryReports {
		i := rng.IntN(len(counts))
		switch {
		case total > benchRegistryReports && counts[i] > 0:
			counts[i]--
			total--
		case total < benchRegistryReports && counts[i] < 60:
			counts[i]++
			total++
		}
	}

	conn, err := x.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		pg := dc.(*stdlib.Conn).Conn()
		if _, err := pg.Exec(ctx, `SET session_replication_role = replica`); err != nil {
			return err
		}
		copyRows := func(table string, cols []string, rows int, row func(i int) []any) error {
			_, err := pg.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromFunc(func() func() ([]any, error) {
				i := 0
				return func() ([]any, error) {
					if i == rows {
						return nil, nil
					}
					i++
					return row(i - 1), nil
				}
			}()))
			if err != nil {
				return fmt.Errorf("copy %s: %w", table, err)
			}
			return nil
		}
		if err := copyRows("operators", []string{"public_id", "name", "created_at"}, ops, func(i int) []any {
			id, _ := issuer.NewOperatorID(ids)
			return []any{string(id), fmt.Sprintf("operator %d", i), born}
		}); err != nil {
			return err
		}
		if err := copyRows("agents", []string{"public_id", "name", "description", "status", "visibility", "created_at", "updated_at"}, n, func(i int) []any {
			id, _ := issuer.NewAgentID(ids)
			return []any{string(id), fmt.Sprintf("agent %d", i), "", "active", "public", born, born}
		}); err != nil {
			return err
		}
		if err := copyRows("agent_owner_bindings", []string{"agent_id", "operator_id", "bound_at"}, n, func(i int) []any {
			return []any{int64(i + 1), int64(opOf(i) + 1), born}
		}); err != nil {
			return err
		}
		if err := copyRows("agent_reputation_aggregates", []string{"agent_id", "raw", "score", "confidence", "sample_size",
			"positive_events", "negative_events", "trust_level", "updated_at"}, n, func(i int) []any {
			score := int64(rng.IntN(60_000)) - 10_000
			level := "new"
			switch {
			case score >= 30_000:
				level = "high_trust"
			case score >= 10_000:
				level = "trusted"
			case score >= 2_000:
				level = "observed"
			}
			return []any{int64(i + 1), score, score, int64(500), 5, 5, 0, level, now}
		}); err != nil {
			return err
		}
		if err := copyRows("memories", []string{"public_id", "author_id", "category", "domain", "title", "content", "content_hash",
			"confidence", "validation_base_confidence", "applies_claim", "created_at", "updated_at"}, len(mems), func(i int) []any {
			m := mems[i]
			id, _ := issuer.NewMemoryID(ids)
			content := fmt.Sprintf("Finding %d about %s.", i, m.skill)
			claim, _ := json.Marshal(issuer.AppliesTo{Skill: m.skill, Context: evidence.Context{Workload: benchWorkloads[i%len(benchWorkloads)]}})
			return []any{string(id), int64(m.author + 1), "bench", "bench", "A finding", content,
				fmt.Sprintf("sha256:%064x", i), int64(500), int64(500), string(claim), m.at, m.at}
		}); err != nil {
			return err
		}
		// The reports, one list of (memory, evaluator, outcome, time).
		type report struct {
			mem, evaluator int
			success        bool
			workload       int
			at             time.Time
		}
		reports := make([]report, 0, benchRegistryReports)
		for m, c := range counts {
			author := mems[m].author
			seen := map[int]bool{}
			for k := 0; len(seen) < c; k++ {
				e := (m*7919 + k*104729 + rng.IntN(n)) % n
				if seen[e] || e == author || opOf(e) == opOf(author) {
					continue
				}
				seen[e] = true
				reports = append(reports, report{mem: m, evaluator: e, success: rng.IntN(100) < 85, workload: rng.IntN(len(benchWorkloads)),
					at: mems[m].at.Add(time.Duration(1+rng.IntN(750*24)) * time.Hour)})
			}
		}
		typeOf := func(r report) string {
			if r.success {
				return "used_successfully"
			}
			return "used_unsuccessfully"
		}
		if err := copyRows("feedback", []string{"public_id", "memory_id", "evaluator_id", "type", "revision", "eligible", "weight",
			"direct", "base_weight", "contribution", "policy", "created_at", "updated_at"}, len(reports), func(i int) []any {
			r := reports[i]
			id, _ := issuer.NewValidationID(ids)
			contribution := int64(1000)
			if !r.success {
				contribution = -1000
			}
			return []any{string(id), int64(r.mem + 1), int64(r.evaluator + 1), typeOf(r), 1, true, int64(500), true, int64(500),
				contribution, "independent-validation-v2", r.at, r.at}
		}); err != nil {
			return err
		}
		if err := copyRows("feedback_history", []string{"feedback_id", "revision", "change", "type", "reason", "eligible", "weight",
			"transport", "created_at"}, len(reports), func(i int) []any {
			r := reports[i]
			return []any{int64(i + 1), 1, "position", typeOf(r), "", true, int64(500), "http", r.at}
		}); err != nil {
			return err
		}
		if err := copyRows("memory_outcomes", []string{"memory_id", "evaluator_id", "outcome", "context", "feedback_id",
			"feedback_revision", "created_at", "updated_at"}, len(reports), func(i int) []any {
			r := reports[i]
			outcome := "success"
			if !r.success {
				outcome = "failure"
			}
			return []any{int64(r.mem + 1), int64(r.evaluator + 1), outcome, fmt.Sprintf(`{"workload":%q}`, benchWorkloads[r.workload]),
				int64(i + 1), 1, r.at, r.at}
		}); err != nil {
			return err
		}
		if err := copyRows("skill_trust_revisions", []string{"agent_id", "revision", "updated_at"}, n, func(i int) []any {
			tok, _ := service.NewRevisionToken(ids)
			return []any{int64(i + 1), tok, now}
		}); err != nil {
			return err
		}
		_, err := pg.Exec(ctx, `SET session_replication_role = origin`)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	for _, q := range []string{
		// Identities were assigned in load order from 1: check it.
		`DO $$ BEGIN
			IF (SELECT MAX(id) FROM agents) <> (SELECT COUNT(*) FROM agents) OR (SELECT MAX(id) FROM memories) <> (SELECT COUNT(*) FROM memories)
				OR (SELECT MAX(id) FROM feedback) <> (SELECT COUNT(*) FROM feedback) THEN RAISE EXCEPTION 'keys out of load order'; END IF;
		END $$`,
		`INSERT INTO trust_edges (source_id, target_id, weight)
			SELECT f.evaluator_id, m.author_id, SUM(f.weight) FROM feedback f JOIN memories m ON m.id = f.memory_id
			WHERE f.eligible AND f.type IN ('corroborate', 'useful', 'used_successfully') AND m.author_id <> f.evaluator_id
			GROUP BY f.evaluator_id, m.author_id HAVING SUM(f.weight) > 0`,
		`INSERT INTO agent_activity_counters (agent_id, memories_published, feedback_given)
			SELECT a.id, COALESCE(m.n, 0), COALESCE(f.n, 0) FROM agents a
			LEFT JOIN (SELECT author_id, COUNT(*) AS n FROM memories GROUP BY author_id) m ON m.author_id = a.id
			LEFT JOIN (SELECT evaluator_id, COUNT(*) AS n FROM feedback GROUP BY evaluator_id) f ON f.evaluator_id = a.id`,
		`VACUUM ANALYZE`,
	} {
		if _, err := x.ExecContext(ctx, q); err != nil {
			b.Fatalf("%v\n%s", err, q)
		}
	}
	if _, err := x.ExecContext(ctx, `INSERT INTO bench_registry VALUES ($1, $2, $3, FALSE)`, benchRegistryVersion, benchRegistryAgents, benchRegistryReports); err != nil {
		b.Fatal(err)
	}
	b.Logf("loaded %d agents, %d memories and %d outcome reports in %s", n, len(mems), benchRegistryReports, time.Since(t0).Round(time.Second))
}

// benchQuery is one find_agents query of the benchmark's mix.
type benchQuery struct {
	name string
	q    issuer.FindAgentsQuery
}

// queryMix returns find_agents queries with a skill: every benchmark skill
// (the first matches most agents, others a few thousand, a niche skill a
// handful), limits 1, 20 and 100, and for each a first page and pages
// after cursors 1%, 10% and 60% of the way down the list, found by
// paging with the largest limit.
func (r *benchRegistry) queryMix(b *testing.B) []benchQuery {
	b.Helper()
	ctx := context.Background()
	var out []benchQuery
	for _, skill := range append(slices.Clone(benchSkills), "niche skill 7") {
		var matching int
		if err := r.db.UnsafeSQL().GetContext(ctx, &matching, `SELECT COUNT(*) FROM discovery_skills WHERE skill = $1`, skill); err != nil {
			b.Fatal(err)
		}
		cursors := map[string]string{"first": ""}
		q := issuer.FindAgentsQuery{Skill: skill, Limit: 100}
		for seen := 0; ; {
			p, err := r.discovery.FindAgents(ctx, q)
			if err != nil {
				b.Fatal(err)
			}
			seen += len(p.Results)
			for _, depth := range []float64{0.01, 0.1, 0.6} {
				key := fmt.Sprintf("at %.0f%%", depth*100)
				if _, ok := cursors[key]; !ok && float64(seen) >= depth*float64(matching) && p.NextCursor != "" {
					cursors[key] = p.NextCursor
				}
			}
			if p.NextCursor == "" || len(cursors) == 4 {
				break
			}
			q.Cursor = p.NextCursor
		}
		for where, cur := range cursors {
			for _, limit := range []int{1, 20, 100} {
				out = append(out, benchQuery{name: fmt.Sprintf("%s (%d agents) %s limit %d", skill, matching, where, limit),
					q: issuer.FindAgentsQuery{Skill: skill, Limit: limit, Cursor: cur}})
			}
		}
	}
	return out
}

// latencies runs each query of the mix in turn, b.N rounds in a shuffled
// order, and reports the median and 99th percentile in milliseconds.
func latencies(b *testing.B, f func(issuer.FindAgentsQuery) error, mix []benchQuery) []time.Duration {
	b.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	var all []time.Duration
	for b.Loop() {
		order := rng.Perm(len(mix))
		for _, i := range order {
			t0 := time.Now()
			if err := f(mix[i].q); err != nil {
				b.Fatalf("%s: %v", mix[i].name, err)
			}
			all = append(all, time.Since(t0))
		}
	}
	slices.Sort(all)
	pct := func(p float64) float64 { return ms(all[min(len(all)-1, int(math.Ceil(p*float64(len(all))))-1)]) }
	b.ReportMetric(pct(0.5), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(ms(all[len(all)-1]), "max-ms")
	b.ReportMetric(float64(len(all))/float64(b.N), "queries/op")
	return all
}

// BenchmarkFindAgents measures find_agents on PostgreSQL over a registry
// of 100,000 agents and 1,000,000 outcome reports: with a skill, over a
// mix of skills (one listed by most agents), limits and cursor depths; the
// legacy listing without a skill; and, apart, with a skill and a task
// context. Each reports its median and 99th percentile latency, and the
// primary-key read of one index row measured in the same run as a floor.
func BenchmarkFindAgents(b *testing.B) {
	r := openBenchRegistry(b)
	ctx := context.Background()
	mix := r.queryMix(b)
	find := func(q issuer.FindAgentsQuery) error { _, err := r.discovery.FindAgents(ctx, q); return err }
	b.Run("skill", func(b *testing.B) {
		latencies(b, find, mix)
	})
	b.Run("floor", func(b *testing.B) {
		x := r.db.UnsafeSQL()
		var keys []int64
		if err := x.SelectContext(ctx, &keys, `SELECT agent_id FROM discovery_skills WHERE skill = $1 LIMIT 1000`, benchSkills[0]); err != nil {
			b.Fatal(err)
		}
		latencies(b, func(issuer.FindAgentsQuery) error {
			var k int64
			return x.GetContext(ctx, &k, `SELECT rank_key FROM discovery_skills WHERE agent_id = $1 AND skill = $2`, keys[rand.IntN(len(keys))], benchSkills[0])
		}, mix[:20])
	})
	b.Run("listing", func(b *testing.B) {
		var list []benchQuery
		q := issuer.FindAgentsQuery{Limit: 100}
		for i := 0; i < 300; i++ {
			p, err := r.discovery.FindAgents(ctx, q)
			if err != nil {
				b.Fatal(err)
			}
			if i%50 == 0 {
				for _, limit := range []int{1, 20, 100} {
					list = append(list, benchQuery{name: fmt.Sprintf("listing page %d limit %d", i, limit), q: issuer.FindAgentsQuery{Limit: limit, Cursor: q.Cursor}})
				}
			}
			q.Cursor = p.NextCursor
		}
		latencies(b, find, list)
	})
	b.Run("in-context", func(b *testing.B) {
		var list []benchQuery
		for _, skill := range benchSkills[:3] {
			for _, wl := range benchWorkloads[:2] {
				list = append(list, benchQuery{name: skill + " in " + wl, q: issuer.FindAgentsQuery{Skill: skill, Limit: 20,
					Context: evidence.Context{Workload: wl}}})
			}
		}
		var assessed, candidates, truncated int
		all := latencies(b, func(q issuer.FindAgentsQuery) error {
			p, err := r.discovery.FindAgents(ctx, q)
			if err == nil {
				assessed, candidates = assessed+p.Work.Assessed, candidates+p.Work.Candidates
				if p.Truncated {
					truncated++
				}
			}
			return err
		}, list)
		b.ReportMetric(float64(candidates)/float64(len(all)), "candidates/query")
		b.ReportMetric(float64(assessed)/float64(len(all)), "assessed/query")
		b.ReportMetric(float64(truncated)/float64(len(all)), "truncated-share")
	})
}

// BenchmarkIndexOnWrite measures the write path with the index kept and
// without: outcome reports through the service on the registry, in rounds
// alternating between no indexer and the indexer of serve re-indexing
// each changed subject as its notification arrives, on the same machine
// and database. The write itself is the same either way (it replaces the
// subject's revision token, as it always did); what the ratio shows is
// what the indexer working beside it costs the writes. After each round
// with the indexer it waits until the index has caught up, and reports
// that lag. It runs with the indexer's default share of the time and
// unpaced (share=1).
func BenchmarkIndexOnWrite(b *testing.B) {
	r := openBenchRegistry(b)
	for _, share := range []float64{service.DefaultIndexShare, 1} {
		b.Run(fmt.Sprintf("share=%v", share), func(b *testing.B) { indexOnWrite(b, r, share) })
	}
}

func indexOnWrite(b *testing.B, r *benchRegistry, share float64) {
	ctx := context.Background()
	const perRound = 40
	rounds := 6
	// Evaluators that have consumed a memory they have not reported on.
	type pair struct {
		ev  issuer.Principal
		mem issuer.MemoryID
	}
	var pairs []pair
	// Every run reports on pairs no run has reported on before: a few
	// thousand candidates, enough for many runs on one loaded registry.
	rows, err := r.db.UnsafeSQL().QueryxContext(ctx, `SELECT a.public_id AS agent, m.public_id AS memory
		FROM memories m CROSS JOIN (VALUES (4321), (8642), (12963)) AS o (offset_by)
		JOIN agents a ON a.id = (m.author_id + o.offset_by) % 100000 + 1
		WHERE m.id % 97 = 0 AND NOT EXISTS (SELECT 1 FROM feedback f WHERE f.memory_id = m.id AND f.evaluator_id = a.id)
		AND (SELECT operator_id FROM agent_owner_bindings WHERE agent_id = a.id) <> (SELECT operator_id FROM agent_owner_bindings WHERE agent_id = m.author_id)
		ORDER BY m.id, o.offset_by LIMIT $1`, perRound*rounds)
	if err != nil {
		b.Fatal(err)
	}
	s := service.New(r.db, service.Options{})
	for rows.Next() {
		var agent, mem string
		if err := rows.Scan(&agent, &mem); err != nil {
			b.Fatal(err)
		}
		key, err := storetest.Admin(r.db).RotateKey(ctx, issuer.AgentID(agent), []issuer.Scope{issuer.ScopeSearch, issuer.ScopeFeedback})
		if err != nil {
			b.Fatal(err)
		}
		p, err := r.db.Authenticate(ctx, key)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Retrieve(ctx, p, issuer.MemoryID(mem)); err != nil {
			b.Fatal(err)
		}
		pairs = append(pairs, pair{p, issuer.MemoryID(mem)})
	}
	rows.Close()
	if len(pairs) < perRound*rounds {
		b.Fatalf("only %d unreported pairs", len(pairs))
	}
	var (
		mu      sync.Mutex
		enabled bool
	)
	ix := r.discovery.NewIndexer(service.IndexerOptions{NoSweep: true, Share: share, Logger: storetest.Logger(b)})
	listenCtx, stop := context.WithCancel(ctx)
	defer stop()
	go r.db.ListenRevisions(listenCtx, func(id issuer.AgentID) {
		mu.Lock()
		on := enabled
		mu.Unlock()
		if on {
			ix.Changed(id)
		}
	})
	go ix.Run(listenCtx)
	time.Sleep(200 * time.Millisecond)

	var off, on []time.Duration
	var lags []time.Duration
	next := 0
	outcomes := []evidence.Outcome{evidence.OutcomeSuccess, evidence.OutcomeFailure}
	b.ResetTimer()
	for round := range rounds * 2 {
		withIndex := round%2 == 1
		mu.Lock()
		enabled = withIndex
		mu.Unlock()
		var authors []issuer.AgentID
		for range perRound / 2 {
			p := pairs[next%len(pairs)]
			next++
			t0 := time.Now()
			_, _, err := s.ReportOutcome(ctx, p.ev, p.mem, issuer.OutcomeReport{Outcome: outcomes[next%2]}, issuer.TransportHTTP)
			d := time.Since(t0)
			if err != nil {
				b.Fatal(err)
			}
			if withIndex {
				on = append(on, d)
			} else {
				off = append(off, d)
			}
			authors = append(authors, authorOf(b, r.db, p.mem))
		}
		if withIndex {
			// Wait for the index to catch up with the round's writes.
			t0 := time.Now()
			for !caughtUp(b, r.db, authors) {
				if time.Since(t0) > time.Minute {
					b.Fatal("the index did not catch up within a minute")
				}
				time.Sleep(5 * time.Millisecond)
			}
			lags = append(lags, time.Since(t0))
		} else {
			// Enter the round's subjects without timing it, so that the
			// next rounds start from an index that is up to date.
			for _, a := range authors {
				if _, err := r.discovery.IndexSubject(ctx, a); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	b.StopTimer()
	median := func(ds []time.Duration) float64 {
		s := slices.Clone(ds)
		sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
		return ms(s[len(s)/2])
	}
	mean := func(ds []time.Duration) float64 {
		var t time.Duration
		for _, d := range ds {
			t += d
		}
		return ms(t) / float64(len(ds))
	}
	b.ReportMetric(median(off), "write-ms-without")
	b.ReportMetric(median(on), "write-ms-with")
	b.ReportMetric(median(on)/median(off), "with/without-median")
	b.ReportMetric(mean(on)/mean(off), "with/without-mean")
	b.ReportMetric(median(lags), "catch-up-ms")
	b.Logf("%d writes each way; median write %.2f ms without the indexer, %.2f ms with it; the index caught up %.0f ms (median) after a round's last write",
		len(off), median(off), median(on), median(lags))
}

// authorOf returns the author of mem.
func authorOf(b *testing.B, db *store.DB, mem issuer.MemoryID) issuer.AgentID {
	var a issuer.AgentID
	if err := db.UnsafeSQL().Get(&a, `SELECT a.public_id FROM memories m JOIN agents a ON a.id = m.author_id WHERE m.public_id = $1`, mem); err != nil {
		b.Fatal(err)
	}
	return a
}

// caughtUp reports whether every author's index entry holds its current
// revision.
func caughtUp(b *testing.B, db *store.DB, authors []issuer.AgentID) bool {
	var stale int
	if err := db.UnsafeSQL().Get(&stale, `SELECT COUNT(*) FROM agents a JOIN skill_trust_revisions r ON r.agent_id = a.id
		LEFT JOIN discovery_subjects s ON s.agent_id = a.id WHERE a.public_id = ANY($1) AND (s.revision IS NULL OR s.revision <> r.revision)`,
		authorStrings(authors)); err != nil {
		b.Fatal(err)
	}
	return stale == 0
}

func authorStrings(ids []issuer.AgentID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = string(id)
	}
	return out
}
