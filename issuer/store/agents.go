package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/reputation"
)

// maxProfileDomains bounds the domains listed in a profile or report; the
// domains with the most evaluators come first.
const maxProfileDomains = 100

type agentRow struct {
	Key         int64     `db:"id"`
	PublicID    string    `db:"public_id"`
	Name        string    `db:"name"`
	Description string    `db:"description"`
	Status      string    `db:"status"`
	Visibility  string    `db:"visibility"`
	CreatedAt   time.Time `db:"created_at"`
}

// listedNow is the SQL condition that the agent row a is listed (active
// and public) as the statement reads it. Every public answer about an
// agent filters with it in the statement that finds the agent, so that an
// unlisted, private or suspended agent, like an unknown id, yields no row:
// the same answer, after the same work.
const listedNow = `a.status = 'active' AND a.visibility = 'public'`

func (db *DB) loadAgent(ctx context.Context, q sqlx.ExtContext, id issuer.AgentID) (*agentRow, error) {
	return db.findAgent(ctx, q, id, `a.public_id = ?`, id)
}

// findAgent reads the row of the agent id, which the condition where on
// the agent row a finds with args; no row is not_found, with the message
// of an unknown id.
func (db *DB) findAgent(ctx context.Context, q sqlx.ExtContext, id issuer.AgentID, where string, args ...any) (*agentRow, error) {
	var a agentRow
	err := get(ctx, q, &a, `SELECT a.id, a.public_id, a.name, a.description, a.status, a.visibility, a.created_at FROM agents a WHERE `+where, args...)
	if err != nil {
		return nil, notFound(err, "agent %s not found", id)
	}
	return &a, nil
}

type globalRow struct {
	Score      int64  `db:"score"`
	Confidence int64  `db:"confidence"`
	SampleSize int    `db:"sample_size"`
	Trust      string `db:"trust_level"`
}

func (db *DB) loadGlobal(ctx context.Context, key int64) (globalRow, error) {
	var g globalRow
	if err := get(ctx, db.x, &g, `SELECT score, confidence, sample_size, trust_level FROM agent_reputation_aggregates WHERE agent_id = ?`, key); err != nil {
		return g, fmt.Errorf("store: read reputation: %w", err)
	}
	return g, nil
}

func (db *DB) loadDomains(ctx context.Context, key int64, domain string) ([]issuer.DomainReputation, error) {
	var rows []struct {
		Domain         string    `db:"domain"`
		Score          int64     `db:"score"`
		Confidence     int64     `db:"confidence"`
		SampleSize     int       `db:"sample_size"`
		PositiveEvents int       `db:"positive_events"`
		NegativeEvents int       `db:"negative_events"`
		UpdatedAt      time.Time `db:"updated_at"`
	}
	query := `SELECT domain, score, confidence, sample_size, positive_events, negative_events, updated_at
		FROM agent_domain_reputation WHERE agent_id = ?`
	args := []any{key}
	if domain != "" {
		query += ` AND domain = ?`
		args = append(args, domain)
	}
	query += ` ORDER BY sample_size DESC, domain LIMIT ?`
	args = append(args, maxProfileDomains)
	if err := sel(ctx, db.x, &rows, query, args...); err != nil {
		return nil, fmt.Errorf("store: read domain reputation: %w", err)
	}
	out := make([]issuer.DomainReputation, len(rows))
	for i, r := range rows {
		out[i] = issuer.DomainReputation{
			Domain: r.Domain, Score: reputation.Milli(r.Score), Confidence: reputation.Milli(r.Confidence),
			SampleSize: r.SampleSize, PositiveEvents: r.PositiveEvents, NegativeEvents: r.NegativeEvents, UpdatedAt: r.UpdatedAt.UTC(),
		}
	}
	return out, nil
}

// loadStats reads the agent's activity counters: one row, whatever the
// size of its history.
func (db *DB) loadStats(ctx context.Context, key int64) (issuer.AgentStats, error) {
	var s []struct {
		Published     int `db:"memories_published"`
		Retrievals    int `db:"retrievals"`
		Consultations int `db:"consultations"`
		Feedback      int `db:"feedback_given"`
	}
	if err := sel(ctx, db.x, &s, `SELECT memories_published, retrievals, consultations, feedback_given
		FROM agent_activity_counters WHERE agent_id = ?`, key); err != nil {
		return issuer.AgentStats{}, fmt.Errorf("store: read stats: %w", err)
	}
	if len(s) == 0 {
		return issuer.AgentStats{}, nil
	}
	return issuer.AgentStats{MemoriesPublished: s[0].Published, Retrievals: s[0].Retrievals,
		Consultations: s[0].Consultations, FeedbackGiven: s[0].Feedback}, nil
}

func (db *DB) profile(ctx context.Context, a *agentRow) (issuer.PublicProfile, error) {
	out := issuer.PublicProfile{PublicID: issuer.AgentID(a.PublicID), Name: a.Name, Description: a.Description}
	g, err := db.loadGlobal(ctx, a.Key)
	if err != nil {
		return out, err
	}
	out.TrustLevel, out.ReputationScore = reputation.TrustLevel(g.Trust), reputation.Milli(g.Score)
	if out.DomainReputations, err = db.loadDomains(ctx, a.Key, ""); err != nil {
		return out, err
	}
	out.Stats, err = db.loadStats(ctx, a.Key)
	return out, err
}

// Profile returns the calling agent's view of itself. A suspended agent may
// read it.
func (db *DB) Profile(ctx context.Context, p issuer.Principal) (issuer.Profile, error) {
	a, err := db.loadAgent(ctx, db.x, p.AgentID)
	if err != nil {
		return issuer.Profile{}, err
	}
	pub, err := db.profile(ctx, a)
	if err != nil {
		return issuer.Profile{}, err
	}
	return issuer.Profile{
		PublicProfile: pub, Status: issuer.AgentStatus(a.Status), Visibility: issuer.Visibility(a.Visibility),
		Scopes: p.Scopes, CreatedAt: a.CreatedAt.UTC(),
	}, nil
}

// PublicProfile returns the public profile of an active, public agent; any
// other agent answers not_found. Name and description that fail the
// safe-text checks are replaced by neutral text.
func (db *DB) PublicProfile(ctx context.Context, id issuer.AgentID) (issuer.PublicProfile, error) {
	a, err := db.findAgent(ctx, db.x, id, `a.public_id = ? AND `+listedNow, id)
	if err != nil {
		return issuer.PublicProfile{}, err
	}
	out, err := db.profile(ctx, a)
	out.Name, out.Description = issuer.PublicName(out.Name), issuer.PublicDescription(out.Description)
	return out, err
}

// Reputation explains an agent's reputation: its aggregates, the policy,
// and a page of its journal, newest first, after q.After (keyset paging on
// the journal's key; the service seals the page's Last into its cursor). Reasons and internal IDs are never shown, references
// to memories that are not active are hidden, and a validator is named only
// when it is public and active or is the caller. The subject must be public
// and active, unless it is the caller.
func (db *DB) Reputation(ctx context.Context, p issuer.Principal, id issuer.AgentID, q issuer.ReputationQuery) (issuer.ReputationReport, error) {
	a, err := db.findAgent(ctx, db.x, id, `a.public_id = ? AND (`+listedNow+` OR a.id = ?)`, id, p.Key)
	if err != nil {
		return issuer.ReputationReport{}, err
	}
	g, err := db.loadGlobal(ctx, a.Key)
	if err != nil {
		return issuer.ReputationReport{}, err
	}
	out := issuer.ReputationReport{
		PublicID: id, PolicyVersion: reputation.Policy, TrustLevel: reputation.TrustLevel(g.Trust),
		ReputationScore: reputation.Milli(g.Score), Confidence: reputation.Milli(g.Confidence), SampleSize: g.SampleSize,
		Domain: q.Domain, Limit: q.Limit, Events: []issuer.ReputationEvent{},
	}
	if out.Domains, err = db.loadDomains(ctx, a.Key, q.Domain); err != nil {
		return out, err
	}
	var rows []struct {
		Key       int64          `db:"id"`
		Phase     string         `db:"phase"`
		Type      sql.NullString `db:"type"`
		Delta     int64          `db:"delta"`
		Weight    int64          `db:"weight"`
		Validator sql.NullString `db:"validator"`
		VKey      sql.NullInt64  `db:"validator_key"`
		VStatus   sql.NullString `db:"validator_status"`
		VVis      sql.NullString `db:"validator_visibility"`
		Memory    sql.NullString `db:"memory"`
		Domain    string         `db:"domain"`
		Policy    string         `db:"policy"`
		CreatedAt time.Time      `db:"created_at"`
	}
	var where strings.Builder
	where.WriteString(`e.author_id = ?`)
	args := []any{a.Key}
	if q.Domain != "" {
		where.WriteString(` AND e.domain = ?`)
		args = append(args, q.Domain)
	}
	if q.After > 0 {
		where.WriteString(` AND e.id < ?`)
		args = append(args, q.After)
	}
	args = append(args, q.Limit+1)
	// Keyset paging on the journal's key: a deep page costs what the first
	// does, through reputation_events_author(_domain).
	if err := sel(ctx, db.x, &rows, `SELECT e.id, e.phase, e.type, e.delta, e.weight, v.public_id AS validator,
		v.id AS validator_key, v.status AS validator_status, v.visibility AS validator_visibility,
		CASE WHEN m.status = 'active' THEN m.public_id END AS memory, e.domain, e.policy, e.created_at
		FROM reputation_events e
		LEFT JOIN agents v ON v.id = e.evaluator_id
		LEFT JOIN memories m ON m.id = e.memory_id
		WHERE `+where.String()+` ORDER BY e.id DESC LIMIT ?`, args...); err != nil {
		return out, fmt.Errorf("store: read reputation events: %w", err)
	}
	if len(rows) > q.Limit {
		out.HasMore, rows = true, rows[:q.Limit]
		out.Last = rows[len(rows)-1].Key
	}
	for _, r := range rows {
		// A validator is named only if it is public and active, or is
		// the viewer: see docs/reference.md, "What each viewer may see".
		if r.VKey.Int64 != p.Key && (r.VStatus.String != string(issuer.AgentActive) || r.VVis.String != string(issuer.VisibilityPublic)) {
			r.Validator = sql.NullString{}
		}
		out.Events = append(out.Events, issuer.ReputationEvent{
			Type: reputation.Type(r.Type.String), Phase: reputation.Phase(r.Phase), Delta: reputation.Milli(r.Delta),
			Weight: reputation.Milli(r.Weight), Validator: issuer.AgentID(r.Validator.String), Memory: issuer.MemoryID(r.Memory.String),
			Domain: r.Domain, Policy: r.Policy, CreatedAt: r.CreatedAt.UTC(),
		})
	}
	return out, nil
}
