package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/passport"
)

var _ service.DiscoveryStore = (*DB)(nil)

// changedSubjects selects the agents never indexed or whose revision
// token differs from the one their index entry was computed from (a
// missing token is the revision "").
const changedSubjects = `FROM agents a
	LEFT JOIN skill_trust_revisions r ON r.agent_id = a.id
	LEFT JOIN discovery_subjects s ON s.agent_id = a.id
	WHERE s.agent_id IS NULL OR s.revision <> COALESCE(r.revision, '')`

// agedSubjects selects the listed subjects whose figures were assessed
// before the day given.
const agedSubjects = `FROM discovery_subjects s WHERE s.listed AND s.assessed_on < ?`

// PendingSubjects returns at most n subjects awaiting re-indexing: those
// never indexed or changed since (by key), then the listed ones assessed
// before today (oldest first).
func (db *DB) PendingSubjects(ctx context.Context, today string, n int) ([]issuer.AgentID, error) {
	var ids []issuer.AgentID
	if err := sel(ctx, db.x, &ids, `SELECT a.public_id `+changedSubjects+` ORDER BY a.id LIMIT ?`, n); err != nil {
		return nil, fmt.Errorf("store: read changed subjects: %w", err)
	}
	if len(ids) == n {
		return ids, nil
	}
	var aged []issuer.AgentID
	if err := sel(ctx, db.x, &aged, `SELECT s.public_id `+agedSubjects+` ORDER BY s.assessed_on, s.agent_id LIMIT ?`, today, n-len(ids)); err != nil {
		return nil, fmt.Errorf("store: read aged subjects: %w", err)
	}
	return append(ids, aged...), nil
}

// indexClaimClass is the first key of the PostgreSQL advisory locks by
// which a process claims the indexing of a subject ("di").
const indexClaimClass = 0x6469

// ClaimSubjectIndex runs index, which indexes the subject id, only when
// the subject awaits re-indexing as PendingSubjects finds it on today and
// no other process is indexing it, and reports whether index ran. On
// PostgreSQL every process of the database hears every revision
// notification: the claim is a session advisory lock on the subject,
// held while index runs, and the check follows it, so that one change is
// indexed once, by the first process to claim it. One that finds the
// claim held skips the subject: the holder heard the same notifications
// and re-indexes after it whatever changed meanwhile, and a holder that
// stops leaves it to the next sweep. On SQLite (one process) it only
// checks.
func (db *DB) ClaimSubjectIndex(ctx context.Context, id issuer.AgentID, today string, index func() error) (bool, error) {
	if db.engine != Postgres {
		return db.indexIfPending(ctx, id, today, index)
	}
	c, err := db.x.Connx(ctx)
	if err != nil {
		return false, fmt.Errorf("store: claim index entry: %w", err)
	}
	defer c.Close()
	var claimed bool
	if err := c.QueryRowContext(ctx, `SELECT pg_try_advisory_lock($1, hashtext($2))`, indexClaimClass, id).Scan(&claimed); err != nil {
		return false, fmt.Errorf("store: claim index entry: %w", err)
	}
	if !claimed {
		return false, nil
	}
	defer func() {
		if _, err := c.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1, hashtext($2))`, indexClaimClass, id); err != nil {
			// A connection that may still hold the claim never goes
			// back to the pool: closing it releases the claim.
			c.Raw(func(any) error { return driver.ErrBadConn })
		}
	}()
	return db.indexIfPending(ctx, id, today, index)
}

// indexIfPending runs index when the subject id awaits re-indexing (see
// changedSubjects and agedSubjects) and reports whether it ran.
func (db *DB) indexIfPending(ctx context.Context, id issuer.AgentID, today string, index func() error) (bool, error) {
	var pending bool
	if err := get(ctx, db.x, &pending, `SELECT EXISTS (SELECT 1 FROM agents a
		LEFT JOIN skill_trust_revisions r ON r.agent_id = a.id
		LEFT JOIN discovery_subjects s ON s.agent_id = a.id
		WHERE a.public_id = ? AND (s.agent_id IS NULL OR s.revision <> COALESCE(r.revision, '') OR s.listed AND s.assessed_on < ?))`, id, today); err != nil {
		return false, fmt.Errorf("store: read index entry: %w", err)
	}
	if !pending {
		return false, nil
	}
	return true, index()
}

// CheckPending counts the subjects awaiting re-indexing and records the
// count as the index status.
func (db *DB) CheckPending(ctx context.Context, today string, now time.Time) (service.IndexStatus, error) {
	st := service.IndexStatus{CheckedAt: now.UTC().Truncate(time.Microsecond)}
	if err := get(ctx, db.x, &st.Changed, `SELECT COUNT(*) `+changedSubjects); err != nil {
		return st, fmt.Errorf("store: count changed subjects: %w", err)
	}
	if err := get(ctx, db.x, &st.Aged, `SELECT COUNT(*) `+agedSubjects, today); err != nil {
		return st, fmt.Errorf("store: count aged subjects: %w", err)
	}
	err := db.inTx(ctx, func(tx *sqlx.Tx) error {
		_, err := exec(ctx, tx, `INSERT INTO discovery_status (id, checked_at, changed, aged) VALUES (1, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET checked_at = excluded.checked_at, changed = excluded.changed, aged = excluded.aged`,
			st.CheckedAt, st.Changed, st.Aged)
		return err
	})
	if err != nil {
		return st, fmt.Errorf("store: record index status: %w", err)
	}
	return st, nil
}

// IndexStatus returns the status CheckPending last recorded.
func (db *DB) IndexStatus(ctx context.Context) (service.IndexStatus, error) {
	var rows []struct {
		At      time.Time `db:"checked_at"`
		Changed int64     `db:"changed"`
		Aged    int64     `db:"aged"`
	}
	if err := sel(ctx, db.r, &rows, `SELECT checked_at, changed, aged FROM discovery_status WHERE id = 1`); err != nil {
		return service.IndexStatus{}, fmt.Errorf("store: read index status: %w", err)
	}
	if len(rows) == 0 {
		return service.IndexStatus{}, nil
	}
	return service.IndexStatus{CheckedAt: rows[0].At.UTC(), Changed: rows[0].Changed, Aged: rows[0].Aged}, nil
}

// WriteSubjectIndex replaces the subject's index entry with w in one
// transaction, unless w is stale: the subject's revision token is no
// longer w.Revision, or its entry holds w.Revision assessed on a later
// day. Index writers of one subject are serialised on its entry's row
// (inserted first when missing; SQLite serialises every writer), and the
// revision is read after that lock is taken, so of two concurrent
// writers the one computed from an older revision never commits last.
func (db *DB) WriteSubjectIndex(ctx context.Context, w service.SubjectIndex) (bool, error) {
	wrote := false
	err := db.inTx(ctx, func(tx *sqlx.Tx) error {
		wrote = false
		now := db.timestamp()
		var key int64
		if err := get(ctx, tx, &key, `SELECT id FROM agents WHERE public_id = ?`, w.Subject); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return nil
			}
			return fmt.Errorf("store: read agent: %w", err)
		}
		if _, err := exec(ctx, tx, `INSERT INTO discovery_subjects (agent_id, public_id, revision, listed, assessed_on, score, trust_level, listing_key, indexed_at)
			VALUES (?, ?, '', FALSE, NULL, 0, 'new', 100000, ?) ON CONFLICT (agent_id) DO NOTHING`, key, w.Subject, now); err != nil {
			return fmt.Errorf("store: index subject: %w", err)
		}
		var held struct {
			Revision   string         `db:"revision"`
			AssessedOn sql.NullString `db:"assessed_on"`
		}
		if err := get(ctx, tx, &held, `SELECT revision, assessed_on FROM discovery_subjects WHERE agent_id = ?`+db.forUpdate(), key); err != nil {
			return fmt.Errorf("store: read index entry: %w", err)
		}
		var current string
		if err := get(ctx, tx, &current, `SELECT COALESCE((SELECT revision FROM skill_trust_revisions WHERE agent_id = ?), '')`, key); err != nil {
			return fmt.Errorf("store: read revision: %w", err)
		}
		if current != w.Revision || held.Revision == w.Revision && held.AssessedOn.Valid && held.AssessedOn.String > w.AssessedOn {
			return nil
		}
		for _, table := range []string{"discovery_skills", "discovery_context_ceilings"} {
			if _, err := exec(ctx, tx, `DELETE FROM `+table+` WHERE agent_id = ?`, key); err != nil {
				return fmt.Errorf("store: clear index rows: %w", err)
			}
		}
		if err := insertRows(ctx, tx, `INSERT INTO discovery_skills (agent_id, skill, public_id, revision, rank_key, level, lower_bound,
			midpoint, upper_bound, state, assessment, contested, stale, operators, source_count, assessment_hash, assessed_on) VALUES `,
			w.Skills, func(r service.IndexedSkill) []any {
				return []any{key, r.Skill, w.Subject, w.Revision, r.RankKey, string(r.Level), r.Lower, r.Midpoint, r.Upper,
					string(r.State), string(r.Assessment), r.Contested, r.Stale, r.Operators, r.SourceCount, r.AssessmentHash, r.AssessedOn}
			}); err != nil {
			return err
		}
		if err := insertRows(ctx, tx, `INSERT INTO discovery_context_ceilings (agent_id, skill, dimension, alone, label, public_id, ceiling_key) VALUES `,
			w.Ceilings, func(r service.CeilingRow) []any {
				return []any{key, r.Skill, r.Dimension, r.Alone, r.Label, w.Subject, r.Key}
			}); err != nil {
			return err
		}
		var assessed, latest any
		if w.Listed {
			assessed = w.AssessedOn
		}
		if w.LatestEvidence != "" {
			latest = w.LatestEvidence
		}
		if _, err := exec(ctx, tx, `UPDATE discovery_subjects SET revision = ?, listed = ?, assessed_on = ?, score = ?, trust_level = ?,
			listing_key = ?, latest_evidence = ?, evidenced_key = ?, indexed_at = ? WHERE agent_id = ?`,
			w.Revision, w.Listed, assessed, w.Score, w.TrustLevel, 100000-w.Score, latest, service.EvidencedKey(w.LatestEvidence), now, key); err != nil {
			return fmt.Errorf("store: index subject: %w", err)
		}
		wrote = true
		return nil
	})
	return wrote, err
}

// insertRows inserts the rows of s with the multi-row statement that
// begins with head, a hundred rows at a time.
func insertRows[T any](ctx context.Context, tx sqlx.ExtContext, head string, s []T, values func(T) []any) error {
	for len(s) > 0 {
		chunk := s[:min(100, len(s))]
		s = s[len(chunk):]
		var b strings.Builder
		b.WriteString(head)
		var args []any
		for i, r := range chunk {
			v := values(r)
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("(" + placeholders(len(v)) + ")")
			args = append(args, v...)
		}
		if _, err := exec(ctx, tx, b.String(), args...); err != nil {
			return fmt.Errorf("store: write index rows: %w", err)
		}
	}
	return nil
}

// indexTables are the tables of the discovery index.
var indexTables = []string{"discovery_subjects", "discovery_skills", "discovery_context_ceilings"}

// AnalyzeIndex refreshes the planner's statistics of the index tables.
// Without them, a freshly rebuilt index of a hundred thousand agents is
// read as if it were empty until autovacuum comes by, and PostgreSQL walks
// a ceiling order by the wrong index.
func (db *DB) AnalyzeIndex(ctx context.Context) error {
	for _, t := range indexTables {
		if _, err := db.x.ExecContext(ctx, `ANALYZE `+t); err != nil {
			return fmt.Errorf("store: analyze %s: %w", t, err)
		}
	}
	return nil
}

// AgentsAfter returns at most n agents' public ids after after, in byte
// order.
func (db *DB) AgentsAfter(ctx context.Context, after issuer.AgentID, n int) ([]issuer.AgentID, error) {
	var ids []issuer.AgentID
	if err := sel(ctx, db.x, &ids, `SELECT public_id FROM agents WHERE public_id > ? ORDER BY public_id LIMIT ?`, after, n); err != nil {
		return nil, fmt.Errorf("store: read agents: %w", err)
	}
	return ids, nil
}

// skillRow is an index row as read back.
type skillRow struct {
	Subject        string         `db:"public_id"`
	Name           string         `db:"name"`
	Skill          string         `db:"skill"`
	RankKey        int64          `db:"rank_key"`
	Level          string         `db:"level"`
	Lower          sql.NullInt64  `db:"lower_bound"`
	Midpoint       sql.NullInt64  `db:"midpoint"`
	Upper          sql.NullInt64  `db:"upper_bound"`
	State          string         `db:"state"`
	Assessment     string         `db:"assessment"`
	Contested      bool           `db:"contested"`
	Stale          bool           `db:"stale"`
	Operators      int            `db:"operators"`
	SourceCount    int            `db:"source_count"`
	AssessmentHash string         `db:"assessment_hash"`
	AssessedOn     string         `db:"assessed_on"`
	Revision       string         `db:"revision"`
	Current        sql.NullString `db:"current"`
}

func (r skillRow) indexed() service.IndexedSkill {
	s := service.IndexedSkill{
		Subject: issuer.AgentID(r.Subject), Skill: r.Skill, RankKey: r.RankKey,
		Level: passport.EvidenceLevel(r.Level), State: passport.SkillState(r.State), Assessment: passport.AssessmentLabel(r.Assessment),
		Contested: r.Contested, Stale: r.Stale, Operators: r.Operators, SourceCount: r.SourceCount,
		AssessmentHash: r.AssessmentHash, AssessedOn: r.AssessedOn, Revision: r.Revision, Name: r.Name, Current: r.Current.String,
	}
	if r.Lower.Valid && r.Midpoint.Valid && r.Upper.Valid {
		lo, mid, up := r.Lower.Int64, r.Midpoint.Int64, r.Upper.Int64
		s.Lower, s.Midpoint, s.Upper = &lo, &mid, &up
	}
	return s
}

// skillColumns are the columns of an index row read back, with the
// agent's name and current revision.
const skillColumns = `d.public_id, a.name, d.skill, d.rank_key, d.level, d.lower_bound, d.midpoint, d.upper_bound,
	d.state, d.assessment, d.contested, d.stale, d.operators, d.source_count, d.assessment_hash, d.assessed_on, d.revision,
	r.revision AS current
	FROM discovery_skills d JOIN agents a ON a.id = d.agent_id LEFT JOIN skill_trust_revisions r ON r.agent_id = d.agent_id`

// skillPageSQL reads a page of a skill's rows: its parameters are the
// skill, the position's key and public id, and the number of rows. Like
// every discovery read, it keeps the agents listed now, whatever their
// index entry says, so that a change of visibility or status takes effect
// before the indexer has run.
const skillPageSQL = `SELECT ` + skillColumns + `
	WHERE d.skill = ? AND (d.rank_key, d.public_id) > (?, ?) AND ` + listedNow + `
	ORDER BY d.rank_key, d.public_id LIMIT ?`

// SkillPage returns at most n index rows of skill after after in
// (rank key, public id) order: one range of the index on (skill, rank_key,
// public_id).
func (db *DB) SkillPage(ctx context.Context, skill string, after service.IndexPosition, n int) ([]service.IndexedSkill, error) {
	var rows []skillRow
	if err := sel(ctx, db.r, &rows, skillPageSQL, skill, after.Key, after.ID, n); err != nil {
		return nil, fmt.Errorf("store: read index: %w", err)
	}
	out := make([]service.IndexedSkill, len(rows))
	for i, r := range rows {
		out[i] = r.indexed()
	}
	return out, nil
}

// CeilingPage returns at most n candidates for a task context stating
// label on dimension, after after in (ceiling key, public id) order: with
// matched, the rows for that label (one range of the index on (skill,
// dimension, alone, label, ceiling_key, public_id)); without, the rows for
// any other label of the agents that have none for it.
func (db *DB) CeilingPage(ctx context.Context, skill, dimension, label string, alone, matched bool, after service.IndexPosition, n int) ([]service.Candidate, error) {
	args := []any{skill, dimension, alone, label, after.Key, after.ID}
	other := ""
	if !matched {
		args = []any{skill, dimension, alone, "", after.Key, after.ID, dimension, alone, label}
		other = ` AND NOT EXISTS (SELECT 1 FROM discovery_context_ceilings m
			WHERE m.agent_id = c.agent_id AND m.skill = c.skill AND m.dimension = ? AND m.alone = ? AND m.label = ?)`
	}
	var rows []struct {
		Subject  string         `db:"public_id"`
		Key      int64          `db:"ceiling_key"`
		Name     string         `db:"name"`
		Revision string         `db:"revision"`
		Current  sql.NullString `db:"current"`
	}
	if err := sel(ctx, db.r, &rows, `SELECT c.public_id, c.ceiling_key, a.name, d.revision, r.revision AS current
		FROM discovery_context_ceilings c JOIN agents a ON a.id = c.agent_id
		JOIN discovery_skills d ON d.agent_id = c.agent_id AND d.skill = c.skill
		LEFT JOIN skill_trust_revisions r ON r.agent_id = c.agent_id
		WHERE c.skill = ? AND c.dimension = ? AND c.alone = ? AND c.label = ? AND (c.ceiling_key, c.public_id) > (?, ?) AND `+listedNow+other+`
		ORDER BY c.ceiling_key, c.public_id LIMIT ?`, append(args, n)...); err != nil {
		return nil, fmt.Errorf("store: read index: %w", err)
	}
	out := make([]service.Candidate, len(rows))
	for i, r := range rows {
		out[i] = service.Candidate{Subject: issuer.AgentID(r.Subject), CeilingKey: r.Key, Name: r.Name, Revision: r.Revision, Current: r.Current.String}
	}
	return out, nil
}

// listingPageSQL reads a page of the legacy listing: its parameters are
// the position's key and public id, and the number of rows.
const listingPageSQL = `SELECT s.public_id, a.name, s.score, s.trust_level, s.listing_key, s.latest_evidence, s.evidenced_key, s.revision, r.revision AS current
	FROM discovery_subjects s JOIN agents a ON a.id = s.agent_id LEFT JOIN skill_trust_revisions r ON r.agent_id = s.agent_id
	WHERE s.listed AND (s.listing_key, s.public_id) > (?, ?) AND ` + listedNow + `
	ORDER BY s.listing_key, s.public_id LIMIT ?`

// recentPageSQL reads a page of the start page's listing, the latest
// evidence first: its parameters are the position's key and public id,
// and the number of rows.
const recentPageSQL = `SELECT s.public_id, a.name, s.score, s.trust_level, s.listing_key, s.latest_evidence, s.evidenced_key, s.revision, r.revision AS current
	FROM discovery_subjects s JOIN agents a ON a.id = s.agent_id LEFT JOIN skill_trust_revisions r ON r.agent_id = s.agent_id
	WHERE s.listed AND (s.evidenced_key, s.public_id) > (?, ?) AND ` + listedNow + `
	ORDER BY s.evidenced_key, s.public_id LIMIT ?`

// ListingPage returns at most n listed subjects after after in (listing
// key, public id) order: best global reputation first.
func (db *DB) ListingPage(ctx context.Context, after service.IndexPosition, n int) ([]service.IndexedSubject, error) {
	return db.subjectPage(ctx, listingPageSQL, after, n)
}

// RecentPage returns at most n listed subjects after after in (evidenced
// key, public id) order: the latest evidence first.
func (db *DB) RecentPage(ctx context.Context, after service.IndexPosition, n int) ([]service.IndexedSubject, error) {
	return db.subjectPage(ctx, recentPageSQL, after, n)
}

// subjectPage reads a page of listed subjects with query, one of the
// listings' statements.
func (db *DB) subjectPage(ctx context.Context, query string, after service.IndexPosition, n int) ([]service.IndexedSubject, error) {
	var rows []struct {
		Subject        string         `db:"public_id"`
		Name           string         `db:"name"`
		Score          int64          `db:"score"`
		TrustLevel     string         `db:"trust_level"`
		ListingKey     int64          `db:"listing_key"`
		LatestEvidence sql.NullString `db:"latest_evidence"`
		EvidencedKey   int64          `db:"evidenced_key"`
		Revision       string         `db:"revision"`
		Current        sql.NullString `db:"current"`
	}
	if err := sel(ctx, db.r, &rows, query, after.Key, after.ID, n); err != nil {
		return nil, fmt.Errorf("store: read listing: %w", err)
	}
	out := make([]service.IndexedSubject, len(rows))
	for i, r := range rows {
		out[i] = service.IndexedSubject{Subject: issuer.AgentID(r.Subject), Name: r.Name, Score: r.Score, TrustLevel: r.TrustLevel,
			ListingKey: r.ListingKey, LatestEvidence: r.LatestEvidence.String, EvidencedKey: r.EvidencedKey,
			Revision: r.Revision, Current: r.Current.String}
	}
	return out, nil
}

// CursorKey returns the key that seals the service's cursors: 32 random
// bytes created by the first caller, in one transaction that inserts it
// unless a key exists, then read back, so that every process and replica
// on the database seals with one key that survives restarts.
func (db *DB) CursorKey(ctx context.Context) ([]byte, error) {
	fresh := make([]byte, 32)
	if _, err := db.rand.Read(fresh); err != nil {
		return nil, fmt.Errorf("store: cursor key: %w", err)
	}
	var key []byte
	err := db.inTx(ctx, func(tx *sqlx.Tx) error {
		if _, err := exec(ctx, tx, `INSERT INTO cursor_key (id, key, created_at) VALUES (1, ?, ?) ON CONFLICT (id) DO NOTHING`,
			fresh, db.timestamp()); err != nil {
			return err
		}
		return get(ctx, tx, &key, `SELECT key FROM cursor_key WHERE id = 1`)
	})
	if err != nil {
		return nil, fmt.Errorf("store: cursor key: %w", err)
	}
	return key, nil
}
