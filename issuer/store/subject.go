package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/issuing"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/reputation"
)

// What LoadSubject reads at most: the collection limits of SPEC.md §5.6.
// Each query asks for one row more, so that a subject beyond a limit is
// detected (and marked truncated) without reading the rest.
const (
	loadMemories = evidence.MaxMemories
	loadEvents   = evidence.MaxReports
)

// LoadSubject reads what subject id's passport is computed from, as it
// stands, in one read-only transaction (REPEATABLE READ on PostgreSQL; one
// SQLite read transaction): every list, and the subject's revision token,
// come from one snapshot, so the subject returned is one state the store
// was in, and its Revision names exactly that state. The first statement
// pins the snapshot; now is read after it, so that every record the
// snapshot holds was written before the subject's At. No read is filtered
// by a time: a row updated in place is read as the snapshot holds it.
//
// The subject's holder keys load as their thumbprints, in byte order.
//
// Bounded reads: the subject's memories, oldest first, at most 2,000; the
// events on them, oldest first, at most 10,000 of all kinds together.
// Reaching either bound sets Truncated. Keeping the oldest keeps every
// withdrawal with the contradiction it withdraws. Events come from:
// position changes to corroborate, contradict, used_successfully and
// used_unsuccessfully (feedback_history, the full history), with the
// context of the outcome report that set them; partial and uncertain
// outcome reports; public, active memories of other active authors that
// contradict the subject's memory; a change of position away from
// contradict (a resolution of that contradiction); and the subject's
// memories that supersede its own earlier memory (a revision of the
// earlier one).
//
// With a replica ([Options.ReadURL]) the subject is read there first, and
// kept only when its revision is the primary's, read after it; else it is
// read again on the primary.
func (db *DB) LoadSubject(ctx context.Context, id issuer.AgentID, now func() time.Time) (*issuing.Subject, error) {
	if db.r != db.x {
		sub, err := db.loadSubjectOn(ctx, db.r, id, now)
		if err == nil {
			var rev string
			if rev, err = db.SubjectRevision(ctx, id); err == nil && rev == sub.Revision {
				db.subjectsKept.Add(1)
				return sub, nil
			}
		}
		db.subjectsAgain.Add(1)
		db.log.DebugContext(ctx, "store: subject read again on the primary", "subject", id, "err", err)
	}
	return db.loadSubjectOn(ctx, db.x, id, now)
}

// loadSubjectOn is LoadSubject on the pool x.
func (db *DB) loadSubjectOn(ctx context.Context, x *sqlx.DB, id issuer.AgentID, now func() time.Time) (*issuing.Subject, error) {
	var out *issuing.Subject
	err := db.snapshot(ctx, x, func(tx *sqlx.Tx) (err error) {
		out, err = loadSubject(ctx, tx, id, now)
		return err
	})
	return out, err
}

// snapshot runs fn in one read-only transaction on the pool x (REPEATABLE
// READ on PostgreSQL: every statement reads one snapshot), retrying
// transient conflicts, such as a replica's query cancelled by the replay
// of a conflicting change.
func (db *DB) snapshot(ctx context.Context, x *sqlx.DB, fn func(tx *sqlx.Tx) error) error {
	opts := &sql.TxOptions{ReadOnly: true}
	if db.engine == Postgres {
		opts.Isolation = sql.LevelRepeatableRead
	}
	return db.retry(ctx, func() error {
		tx, err := x.BeginTxx(ctx, opts)
		if err != nil {
			return fmt.Errorf("store: begin: %w", err)
		}
		defer tx.Rollback()
		if err := fn(tx); err != nil {
			return err
		}
		return tx.Commit()
	})
}

func loadSubject(ctx context.Context, tx *sqlx.Tx, id issuer.AgentID, now func() time.Time) (*issuing.Subject, error) {
	var a struct {
		Key         int64  `db:"id"`
		PublicID    string `db:"public_id"`
		Name        string `db:"name"`
		Description string `db:"description"`
		Status      string `db:"status"`
		Visibility  string `db:"visibility"`
		Revision    string `db:"revision"`
		KeysEpoch   string `db:"keys_epoch"`
	}
	// The first statement pins the snapshot: the revision is read in it.
	if err := get(ctx, tx, &a, `SELECT a.id, a.public_id, a.name, a.description, a.status, a.visibility,
		`+revisionColumns+`
		FROM agents a LEFT JOIN skill_trust_revisions r ON r.agent_id = a.id WHERE a.public_id = ?`, id); err != nil {
		return nil, notFound(err, "agent %s not found", id)
	}
	if a.Status != string(issuer.AgentActive) || a.Visibility != string(issuer.VisibilityPublic) {
		return nil, issuer.Errorf(issuer.CodeNotFound, "agent %s not found", id)
	}
	s := &issuing.Subject{
		Key: issuing.Key(a.Key), PublicID: issuer.AgentID(a.PublicID), Name: a.Name, Description: a.Description,
		Visibility: issuer.Visibility(a.Visibility), Status: issuer.AgentStatus(a.Status),
		Revision: service.PassportRevision(a.Revision, a.KeysEpoch), At: now().UTC(),
	}
	if err := loadProfile(ctx, tx, s); err != nil {
		return nil, err
	}
	var err error
	if s.HolderKeys, err = loadHolderKeys(ctx, tx, a.Key); err != nil {
		return nil, err
	}
	if err := loadMemoriesOf(ctx, tx, s); err != nil {
		return nil, err
	}
	if err := loadEventsOf(ctx, tx, s); err != nil {
		return nil, err
	}
	if err := loadOwners(ctx, tx, s); err != nil {
		return nil, err
	}
	return s, nil
}

// loadProfile reads the capabilities, activity and reputation.
func loadProfile(ctx context.Context, tx *sqlx.Tx, s *issuing.Subject) error {
	var caps []struct {
		Name       string    `db:"name"`
		DeclaredAt time.Time `db:"declared_at"`
	}
	if err := sel(ctx, tx, &caps, `SELECT name, declared_at FROM agent_capabilities WHERE agent_id = ?
		ORDER BY name LIMIT ?`, s.Key, issuing.MaxInputCapabilities); err != nil {
		return fmt.Errorf("store: read capabilities: %w", err)
	}
	for _, c := range caps {
		s.Capabilities = append(s.Capabilities, issuing.Capability{Name: c.Name, DeclaredAt: c.DeclaredAt.UTC()})
	}
	var act struct {
		Published int64 `db:"memories_published"`
		Feedback  int64 `db:"feedback_given"`
		Consumed  int64 `db:"consumed"`
	}
	// memories_published counts public, active memories (the counter
	// the write path keeps); consumed counts distinct public memories
	// retrieved.
	if err := get(ctx, tx, &act, `SELECT COALESCE(c.memories_published, 0) AS memories_published,
		COALESCE(c.feedback_given, 0) AS feedback_given,
		(SELECT COUNT(DISTINCT r.memory_id) FROM retrievals r JOIN memories m ON m.id = r.memory_id
			WHERE r.agent_id = x.id AND m.visibility = 'public') AS consumed
		FROM (SELECT CAST(? AS BIGINT) AS id) x LEFT JOIN agent_activity_counters c ON c.agent_id = x.id`, s.Key); err != nil {
		return fmt.Errorf("store: read activity: %w", err)
	}
	s.Activity = issuing.Activity{MemoriesPublished: int(act.Published), MemoriesConsumed: int(act.Consumed), FeedbackGiven: int(act.Feedback)}
	var doms []struct {
		Domain     string    `db:"domain"`
		Score      int64     `db:"score"`
		Confidence int64     `db:"confidence"`
		Sample     int       `db:"sample_size"`
		Positive   int       `db:"positive_events"`
		Negative   int       `db:"negative_events"`
		UpdatedAt  time.Time `db:"updated_at"`
	}
	if err := sel(ctx, tx, &doms, `SELECT domain, score, confidence, sample_size, positive_events, negative_events, updated_at
		FROM agent_domain_reputation WHERE agent_id = ? ORDER BY domain`, s.Key); err != nil {
		return fmt.Errorf("store: read domains: %w", err)
	}
	for _, d := range doms {
		s.Domains = append(s.Domains, issuer.DomainReputation{Domain: d.Domain, Score: reputation.Milli(d.Score),
			Confidence: reputation.Milli(d.Confidence), SampleSize: d.Sample, PositiveEvents: d.Positive,
			NegativeEvents: d.Negative, UpdatedAt: d.UpdatedAt.UTC()})
	}
	var agg []struct {
		Score int64  `db:"score"`
		Level string `db:"trust_level"`
	}
	if err := sel(ctx, tx, &agg, `SELECT score, trust_level FROM agent_reputation_aggregates WHERE agent_id = ?`, s.Key); err != nil {
		return fmt.Errorf("store: read reputation: %w", err)
	}
	s.TrustLevel = reputation.TrustLevel("new")
	if len(agg) == 1 {
		s.ReputationScore, s.TrustLevel = reputation.Milli(agg[0].Score), reputation.TrustLevel(agg[0].Level)
	}
	return nil
}

// loadMemoriesOf reads the subject's memories (oldest first, bounded) with
// their links and version roots.
func loadMemoriesOf(ctx context.Context, tx *sqlx.Tx, s *issuing.Subject) error {
	r, err := tx.QueryContext(ctx, tx.Rebind(`SELECT m.id, m.public_id, m.visibility, m.status, m.created_at, m.applies_claim, m.content_hash,
		t.id AS root_id, t.public_id AS root_public_id, `+namedTarget+` AS root_named
		FROM memories m LEFT JOIN memories t ON t.id = m.version_root_id LEFT JOIN agents ta ON ta.id = t.author_id
		WHERE m.author_id = ? ORDER BY m.created_at, m.id LIMIT ?`), s.Key, loadMemories+1)
	if err != nil {
		return fmt.Errorf("store: read memories: %w", err)
	}
	defer r.Close()
	index := make(map[int64]int, loadMemories)
	// Claims repeat: each distinct stored text is decoded once.
	claims := map[string]issuer.AppliesTo{}
	// Each row is scanned without reflection: up to 2,001 of them.
	for r.Next() {
		if len(s.Memories) == loadMemories {
			s.Truncated = true
			break
		}
		var (
			key                                        int64
			publicID, visibility, status, claimText, h string
			createdAt                                  time.Time
			rootKey                                    sql.NullInt64
			rootID                                     sql.NullString
			rootNamed                                  sql.NullBool
		)
		if err := r.Scan(&key, &publicID, &visibility, &status, &createdAt, &claimText, &h, &rootKey, &rootID, &rootNamed); err != nil {
			return fmt.Errorf("store: read memories: %w", err)
		}
		claim, ok := claims[claimText]
		if !ok {
			if err := json.Unmarshal([]byte(claimText), &claim); err != nil {
				return fmt.Errorf("store: appliesTo of %s: %w", publicID, err)
			}
			claims[claimText] = claim
		}
		m := issuing.Memory{
			Key: issuing.Key(key), PublicID: issuer.MemoryID(publicID), Visibility: issuing.MemoryVisibility(visibility),
			Status: issuer.MemoryStatus(status), CreatedAt: createdAt.UTC(),
			AppliesTo:   issuing.AppliesTo{Skill: claim.Skill, Context: claim.Context},
			ContentHash: h,
		}
		if m.Visibility != issuing.MemoryPublic {
			// A private memory is loaded only to join lineages: nothing
			// that names or describes it leaves the store.
			m.PublicID, m.ContentHash, m.AppliesTo = "", "", issuing.AppliesTo{}
		}
		if rootKey.Valid {
			m.VersionRoot = target(rootKey.Int64, rootID.String, rootNamed.Bool)
		}
		index[key] = len(s.Memories)
		s.Memories = append(s.Memories, m)
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("store: read memories: %w", err)
	}
	if err := r.Close(); err != nil {
		return fmt.Errorf("store: read memories: %w", err)
	}
	if len(s.Memories) == 0 {
		return nil
	}
	var links []struct {
		Memory   int64  `db:"memory_id"`
		Kind     string `db:"kind"`
		Target   int64  `db:"target_id"`
		PublicID string `db:"public_id"`
		Named    bool   `db:"named"`
	}
	if err := sel(ctx, tx, &links, `WITH mine AS (`+mineSQL+`) SELECT l.memory_id, l.kind, l.target_id, t.public_id, `+namedTarget+` AS named
		FROM mine JOIN memory_links l ON l.memory_id = mine.id AND l.kind <> 'refs'
		JOIN memories t ON t.id = l.target_id JOIN agents ta ON ta.id = t.author_id
		ORDER BY l.memory_id, l.kind, l.position`, s.Key, loadMemories); err != nil {
		return fmt.Errorf("store: read links: %w", err)
	}
	for _, l := range links {
		m := &s.Memories[index[l.Memory]]
		m.Links = append(m.Links, issuing.Link{Kind: issuer.LinkKind(l.Kind), Target: target(l.Target, l.PublicID, l.Named)})
	}
	return nil
}

// target is a link target or version root; one that may not be named
// keeps only its key, which joins lineages.
func target(key int64, id string, named bool) issuing.Target {
	if !named {
		id = ""
	}
	return issuing.Target{Key: issuing.Key(key), PublicID: issuer.MemoryID(id), Named: named}
}

// mineSQL selects the keys of the subject's memories LoadSubject reads:
// its parameters are the subject's key and the bound.
const mineSQL = `SELECT id FROM memories WHERE author_id = ? ORDER BY created_at, id LIMIT ?`

// namedTarget says whether memory t (author ta) may be named in a
// passport: it is public and active, and so is its author.
const namedTarget = `(t.visibility = 'public' AND t.status = 'active' AND ta.status = 'active')`

// eventRow is one event as loaded, before keys are assigned.
type eventRow struct {
	Source  string // h: history, o: outcome report, c: contradicting memory, r: revision
	Group   int64  // h: the feedback id; else 0
	Type    string
	Actor   int64
	Memory  int64
	At      eventTime
	Context sql.NullString
}

// loadEventsOf reads the events on the subject's loaded memories, oldest
// first, bounded.
func loadEventsOf(ctx context.Context, tx *sqlx.Tx, s *issuing.Subject) error {
	if len(s.Memories) == 0 {
		return nil
	}
	// mine selects the loaded memories again, in the same snapshot, so
	// that the statement carries two parameters instead of their keys.
	// The source row's id orders events of one instant and source; it is
	// not read.
	query := `WITH mine AS (` + mineSQL + `) SELECT source, grp, type, actor, memory, ev_at, context FROM (
		SELECT 'h' AS source, h.id, h.feedback_id AS grp, h.type, f.evaluator_id AS actor, f.memory_id AS memory,
			h.created_at AS ev_at, mo.context
		FROM mine JOIN feedback f ON f.memory_id = mine.id JOIN feedback_history h ON h.feedback_id = f.id
		LEFT JOIN memory_outcomes mo ON mo.feedback_id = h.feedback_id AND mo.feedback_revision = h.revision
		WHERE h.change = 'position'
		UNION ALL
		SELECT 'o', mo.id, 0, mo.outcome, mo.evaluator_id, mo.memory_id, mo.updated_at, mo.context
		FROM mine JOIN memory_outcomes mo ON mo.memory_id = mine.id WHERE mo.feedback_id IS NULL
		UNION ALL
		SELECT 'c', t.id, 0, 'contradicts', t.author_id, l.target_id, t.created_at, NULL
		FROM mine JOIN memory_links l ON l.target_id = mine.id AND l.kind = 'contradicts'
		JOIN memories t ON t.id = l.memory_id JOIN agents ta ON ta.id = t.author_id
		WHERE ` + namedTarget + ` AND t.author_id <> ?
		UNION ALL
		SELECT 'r', t.id, 0, 'supersedes', t.author_id, l.target_id, t.created_at, NULL
		FROM mine JOIN memory_links l ON l.target_id = mine.id AND l.kind = 'supersedes'
		JOIN memories t ON t.id = l.memory_id
		WHERE t.author_id = ?
	) e ORDER BY ev_at, source, id LIMIT ?`
	args := []any{s.Key, loadMemories, s.Key, s.Key, 2*loadEvents + 2}
	rows, err := scanEvents(ctx, tx, query, args)
	if err != nil {
		return fmt.Errorf("store: read events: %w", err)
	}
	// A history row of useful or not_useful is no event itself, but it
	// may follow a contradict (a resolution); the read above is bounded
	// at twice the limit so that such rows cannot crowd out events.
	if len(rows) > 2*loadEvents+1 {
		s.Truncated = true
	}
	// The events are no more than the rows read: allocated once.
	s.Events = make([]issuing.Event, 0, min(len(rows), loadEvents))
	prevType := map[int64]string{}           // feedback id → its last position type
	contradiction := map[int64]issuing.Key{} // feedback id → its current contradiction event
	full := false
	add := func(e issuing.Event) bool {
		if len(s.Events) == loadEvents {
			s.Truncated, full = true, true
			return false
		}
		e.Key = issuing.Key(len(s.Events) + 1)
		s.Events = append(s.Events, e)
		return true
	}
	// Outcome contexts repeat: each distinct stored text is decoded once.
	contexts := map[string]evidence.Context{}
	for _, r := range rows {
		e := issuing.Event{Actor: issuing.Key(r.Actor), Memory: issuing.Key(r.Memory), At: time.Time(r.At).UTC()}
		if r.Context.Valid {
			c, ok := contexts[r.Context.String]
			if !ok {
				if err := json.Unmarshal([]byte(r.Context.String), &c); err != nil {
					return fmt.Errorf("store: outcome context: %w", err)
				}
				contexts[r.Context.String] = c
			}
			e.Context = c
		}
		switch r.Source {
		case "h":
			prev := prevType[r.Group]
			prevType[r.Group] = r.Type
			if prev == string(reputation.Contradict) && r.Type != prev {
				e := e
				e.Kind, e.Resolves, e.Context = issuing.EventResolution, contradiction[r.Group], evidence.Context{}
				if !add(e) {
					break
				}
				delete(contradiction, r.Group)
			}
			switch reputation.Type(r.Type) {
			case reputation.Corroborate:
				e.Kind = issuing.EventCorroboration
			case reputation.Contradict:
				e.Kind = issuing.EventContradiction
			case reputation.UsedSuccessfully:
				e.Kind, e.Outcome = issuing.EventOutcome, evidence.OutcomeSuccess
			case reputation.UsedUnsuccessfully:
				e.Kind, e.Outcome = issuing.EventOutcome, evidence.OutcomeFailure
			default:
				continue
			}
			if !add(e) {
				break
			}
			if e.Kind == issuing.EventContradiction {
				contradiction[r.Group] = s.Events[len(s.Events)-1].Key
			}
		case "o":
			e.Kind, e.Outcome = issuing.EventOutcome, evidence.Outcome(r.Type)
			add(e)
		case "c":
			e.Kind = issuing.EventContradiction
			add(e)
		case "r":
			e.Kind = issuing.EventRevision
			add(e)
		}
		if full {
			break
		}
	}
	return nil
}

// scanEvents runs the events query, scanning rows without reflection: it
// reads up to 20,002 of them.
func scanEvents(ctx context.Context, tx *sqlx.Tx, query string, args []any) ([]eventRow, error) {
	r, err := tx.QueryContext(ctx, tx.Rebind(query), args...)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var out []eventRow
	for r.Next() {
		var e eventRow
		if err := r.Scan(&e.Source, &e.Group, &e.Type, &e.Actor, &e.Memory, &e.At, &e.Context); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, r.Err()
}

// loadOwners reads the owner-binding history of the subject and of every
// actor of its events.
func loadOwners(ctx context.Context, tx *sqlx.Tx, s *issuing.Subject) error {
	agents := []int64{int64(s.Key)}
	for _, e := range s.Events {
		agents = append(agents, int64(e.Actor))
	}
	slices.Sort(agents)
	agents = slices.Compact(agents)
	var rows []struct {
		Agent    int64        `db:"agent_id"`
		Operator int64        `db:"operator_id"`
		From     time.Time    `db:"bound_at"`
		Until    sql.NullTime `db:"unbound_at"`
	}
	for chunk := range slices.Chunk(agents, 5000) {
		query, args, err := sqlx.In(`SELECT agent_id, operator_id, bound_at, unbound_at FROM agent_owner_bindings
			WHERE agent_id IN (?) ORDER BY agent_id, bound_at, id`, chunk)
		if err != nil {
			return fmt.Errorf("store: read owners: %w", err)
		}
		var part []struct {
			Agent    int64        `db:"agent_id"`
			Operator int64        `db:"operator_id"`
			From     time.Time    `db:"bound_at"`
			Until    sql.NullTime `db:"unbound_at"`
		}
		if err := sel(ctx, tx, &part, query, args...); err != nil {
			return fmt.Errorf("store: read owners: %w", err)
		}
		rows = append(rows, part...)
	}
	for _, r := range rows {
		b := issuing.OwnerBinding{Agent: issuing.Key(r.Agent), Operator: issuing.Key(r.Operator), From: r.From.UTC()}
		if r.Until.Valid {
			b.Until = r.Until.Time.UTC()
		}
		s.Owners = append(s.Owners, b)
	}
	slices.SortFunc(s.Owners, func(x, y issuing.OwnerBinding) int {
		return cmp.Or(cmp.Compare(x.Agent, y.Agent), x.From.Compare(y.From))
	})
	return nil
}

// eventTime scans a timestamp. SQLite reports a column of a compound
// SELECT without its declared type, so the driver may hand over the text
// it stored instead of a time.
type eventTime time.Time

// sqliteLayouts are the layouts modernc.org/sqlite writes times in.
var sqliteLayouts = []string{
	"2006-01-02 15:04:05.999999999-07:00",
	"2006-01-02T15:04:05.999999999-07:00",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04:05.999999999",
	time.RFC3339Nano,
}

// Scan implements sql.Scanner.
func (t *eventTime) Scan(v any) error {
	var s string
	switch v := v.(type) {
	case time.Time:
		*t = eventTime(v)
		return nil
	case string:
		s = v
	case []byte:
		s = string(v)
	default:
		return fmt.Errorf("store: cannot read %T as a time", v)
	}
	for _, l := range sqliteLayouts {
		if p, err := time.Parse(l, s); err == nil {
			*t = eventTime(p)
			return nil
		}
	}
	return fmt.Errorf("store: cannot read %q as a time", s)
}
