package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/reputation"
)

// memoryRow is a memory as the store reads it.
type memoryRow struct {
	Key            int64          `db:"id"`
	PublicID       string         `db:"public_id"`
	AuthorKey      int64          `db:"author_id"`
	Author         string         `db:"author_public_id"`
	AuthorStatus   string         `db:"author_status"`
	AuthorVis      string         `db:"author_visibility"`
	Category       string         `db:"category"`
	Domain         string         `db:"domain"`
	Title          string         `db:"title"`
	Content        string         `db:"content"`
	AppliesTo      string         `db:"applies_to"`
	Status         string         `db:"status"`
	Confidence     int64          `db:"confidence"`
	Summary        string         `db:"validation_summary_json"`
	EvidenceAt     sql.NullTime   `db:"evidence_at"`
	CreatedAt      time.Time      `db:"created_at"`
	LineageRel     sql.NullString `db:"lineage_relation"`
	LineageParent  sql.NullString `db:"parent_public_id"`
	VersionRootKey sql.NullInt64  `db:"version_root_id"`
}

// memoryColumns and memoryFrom read a memoryRow.
const (
	memoryColumns = `m.id, m.public_id, m.author_id, a.public_id AS author_public_id, a.status AS author_status,
	a.visibility AS author_visibility, m.category, m.domain, m.title, m.content, m.applies_to, m.status, m.confidence, m.validation_summary_json,
	m.evidence_at, m.created_at, m.lineage_relation, p.public_id AS parent_public_id, m.version_root_id`
	memoryFrom = `FROM memories m JOIN agents a ON a.id = m.author_id LEFT JOIN memories p ON p.id = m.lineage_parent_id`
)

const memorySelect = `SELECT ` + memoryColumns + ` ` + memoryFrom

// targetColumns read only what a validation needs of its memory: not its
// text, which may be large.
const targetColumns = `m.id, m.public_id, m.author_id, a.status AS author_status, m.domain, m.status`

// targetFrom joins what targetColumns read.
const targetFrom = `FROM memories m JOIN agents a ON a.id = m.author_id`

// targetSelect reads memories as validation targets.
const targetSelect = `SELECT ` + targetColumns + ` ` + targetFrom

// memoryEligibilitySelect reads a memory with what a validation by an
// evaluator needs to know: whether the evaluator retrieved it, and whether
// evaluator and author ever shared an operator. Its first two parameters
// are the evaluator's key, twice.
const memoryEligibilitySelect = `SELECT ` + targetColumns + `,
	EXISTS (SELECT 1 FROM retrievals r WHERE r.agent_id = ? AND r.memory_id = m.id) AS consumed,
	EXISTS (SELECT 1 FROM agent_owner_bindings e JOIN agent_owner_bindings o ON o.operator_id = e.operator_id
		WHERE e.agent_id = ? AND o.agent_id = m.author_id) AS same_owner
	` + targetFrom

// visible reports whether the memory may be retrieved, consulted or
// validated: it is active and so is its author.
func (m *memoryRow) visible() bool {
	return m.Status == string(issuer.MemoryActive) && m.AuthorStatus == string(issuer.AgentActive)
}

// loadVisibleMemory reads a memory that the caller may see, or answers
// not_found.
func loadVisibleMemory(ctx context.Context, q sqlx.ExtContext, id issuer.MemoryID) (*memoryRow, error) {
	var m memoryRow
	if err := get(ctx, q, &m, memorySelect+` WHERE m.public_id = ?`, id); err != nil {
		return nil, notFound(err, "memory %s not found", id)
	}
	if !m.visible() {
		return nil, issuer.Errorf(issuer.CodeNotFound, "memory %s not found", id)
	}
	return &m, nil
}

func decodeSummary(s string) (reputation.Summary, error) {
	var sum reputation.Summary
	if err := json.Unmarshal([]byte(s), &sum); err != nil {
		return sum, fmt.Errorf("store: validation summary: %w", err)
	}
	return sum, nil
}

func encodeSummary(s reputation.Summary) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err) // a struct of integers and strings always encodes
	}
	return string(b)
}

// authorShownTo reports whether the memory's author may be named to the
// agent viewer: only a public, active author is named to others; an author
// always sees itself. See the README, "What each viewer may see".
func (m *memoryRow) authorShownTo(viewer int64) bool {
	return viewer == m.AuthorKey ||
		(m.AuthorStatus == string(issuer.AgentActive) && m.AuthorVis == string(issuer.VisibilityPublic))
}

// memory converts a row to the full retrieval form as viewer sees it: the
// author is omitted unless authorShownTo(viewer).
func (m *memoryRow) memory(viewer int64) (issuer.Memory, error) {
	out := issuer.Memory{
		ID:         issuer.MemoryID(m.PublicID),
		Category:   m.Category,
		Domain:     m.Domain,
		Title:      m.Title,
		Content:    m.Content,
		Status:     issuer.MemoryStatus(m.Status),
		Confidence: reputation.Milli(m.Confidence),
		CreatedAt:  m.CreatedAt.UTC(),
	}
	if err := json.Unmarshal([]byte(m.AppliesTo), &out.AppliesTo); err != nil {
		return out, fmt.Errorf("store: appliesTo of %s: %w", m.PublicID, err)
	}
	sum, err := decodeSummary(m.Summary)
	if err != nil {
		return out, err
	}
	out.ValidationSummary, out.ConfidenceState = sum, sum.State
	if m.authorShownTo(viewer) {
		out.Author = issuer.AgentID(m.Author)
	}
	if m.EvidenceAt.Valid {
		t := m.EvidenceAt.Time.UTC()
		out.EvidenceUpdatedAt = &t
	}
	if m.LineageRel.Valid {
		out.Lineage = &issuer.Lineage{Relation: issuer.LineageRelation(m.LineageRel.String), Parent: issuer.MemoryID(m.LineageParent.String)}
	}
	return out, nil
}

// Publish records a new memory by p. Its domain is the normalised
// category; its numeric confidence starts at the author's stated
// confidence, which stays its baseline. Lineage is recorded as given and
// grants nothing.
func (db *DB) Publish(ctx context.Context, p issuer.Principal, pub issuer.Publication) (issuer.Memory, error) {
	id, err := issuer.NewMemoryID(db.rand)
	if err != nil {
		return issuer.Memory{}, err
	}
	applies, err := json.Marshal(pub.AppliesTo)
	if err != nil {
		return issuer.Memory{}, fmt.Errorf("store: appliesTo: %w", err)
	}
	hash := sha256.Sum256([]byte(pub.Content))
	var out issuer.Memory
	err = db.inTx(ctx, func(tx *sqlx.Tx) error {
		now := db.timestamp()
		var parent, root sql.NullInt64
		var rel sql.NullString
		if pub.Lineage != nil {
			pm, err := loadVisibleMemory(ctx, tx, pub.Lineage.Parent)
			if err != nil {
				return err
			}
			parent = sql.NullInt64{Int64: pm.Key, Valid: true}
			rel = sql.NullString{String: string(pub.Lineage.Relation), Valid: true}
			if pub.Lineage.Relation == issuer.Supersedes {
				root = pm.VersionRootKey
				if !root.Valid {
					root = parent
				}
			}
		}
		_, err := exec(ctx, tx, `INSERT INTO memories (public_id, author_id, category, domain, title, content, content_hash,
			applies_to, confidence, validation_base_confidence, status, lineage_relation, lineage_parent_id, version_root_id,
			created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'active', ?, ?, ?, ?, ?)`,
			id, p.Key, pub.Category, pub.Domain, pub.Title, pub.Content, hex.EncodeToString(hash[:]),
			string(applies), int64(pub.Confidence), int64(pub.Confidence), rel, parent, root, now, now)
		if err != nil {
			return fmt.Errorf("store: publish: %w", err)
		}
		if err := audit(ctx, tx, now, string(p.AgentID), "memory.published", string(id), map[string]string{"domain": pub.Domain}); err != nil {
			return err
		}
		if err := addActivity(ctx, tx, p.Key, countPublished, 1); err != nil {
			return err
		}
		m, err := loadVisibleMemory(ctx, tx, id)
		if err != nil {
			return err
		}
		out, err = m.memory(p.Key)
		return err
	})
	return out, err
}

// Retrieve returns a memory in full and records the retrieval in the
// ledger: the consumption a later validation requires.
func (db *DB) Retrieve(ctx context.Context, p issuer.Principal, id issuer.MemoryID) (issuer.Memory, error) {
	var out issuer.Memory
	err := db.inTx(ctx, func(tx *sqlx.Tx) error {
		m, err := loadVisibleMemory(ctx, tx, id)
		if err != nil {
			return err
		}
		if _, err := exec(ctx, tx, `INSERT INTO retrievals (agent_id, memory_id, created_at) VALUES (?, ?, ?)`,
			p.Key, m.Key, db.timestamp()); err != nil {
			return fmt.Errorf("store: record retrieval: %w", err)
		}
		if err := addActivity(ctx, tx, p.Key, countRetrievals, 1); err != nil {
			return err
		}
		out, err = m.memory(p.Key)
		return err
	})
	return out, err
}

// Consult records a consultation: p activated the given memories together.
// A memory named twice is refused (invalid), as the request parser refuses
// it, so a consultation never records one activation twice. Each
// activation is recorded in the retrieval ledger under the new receipt.
// The work is a fixed number of statements whatever the number of
// memories: one read of all of them, then one insert per table.
func (db *DB) Consult(ctx context.Context, p issuer.Principal, ids []issuer.MemoryID) (issuer.Receipt, error) {
	if len(ids) == 0 || len(ids) > issuer.MaxConsultedMemories {
		return issuer.Receipt{}, issuer.Errorf(issuer.CodeInvalid, "a consultation activates between 1 and %d memories", issuer.MaxConsultedMemories)
	}
	for i, id := range ids {
		if slices.Contains(ids[:i], id) {
			return issuer.Receipt{}, issuer.Errorf(issuer.CodeInvalid, "memoryIds lists %s twice", id)
		}
	}
	rid, err := issuer.NewReceiptID(db.rand)
	if err != nil {
		return issuer.Receipt{}, err
	}
	out := issuer.Receipt{ID: rid, Memories: slices.Clone(ids)}
	err = db.inTx(ctx, func(tx *sqlx.Tx) error {
		now := db.timestamp()
		out.CreatedAt = now
		query, args, err := sqlx.In(`SELECT m.public_id, m.id, m.status, a.status AS author_status
			FROM memories m JOIN agents a ON a.id = m.author_id WHERE m.public_id IN (?)`, ids)
		if err != nil {
			return fmt.Errorf("store: consult: %w", err)
		}
		var found []struct {
			PublicID     string `db:"public_id"`
			Key          int64  `db:"id"`
			Status       string `db:"status"`
			AuthorStatus string `db:"author_status"`
		}
		if err := sel(ctx, tx, &found, query, args...); err != nil {
			return fmt.Errorf("store: read consulted memories: %w", err)
		}
		keyOf := make(map[issuer.MemoryID]int64, len(found))
		for _, f := range found {
			row := memoryRow{Status: f.Status, AuthorStatus: f.AuthorStatus}
			if row.visible() {
				keyOf[issuer.MemoryID(f.PublicID)] = f.Key
			}
		}
		for _, id := range ids {
			if _, ok := keyOf[id]; !ok {
				return issuer.Errorf(issuer.CodeNotFound, "memory %s not found", id)
			}
		}
		rkey, err := insertID(ctx, tx, `INSERT INTO receipts (public_id, agent_id, created_at) VALUES (?, ?, ?)`, rid, p.Key, now)
		if err != nil {
			return fmt.Errorf("store: create receipt: %w", err)
		}
		members := make([]string, len(ids))
		rm := make([]any, 0, 3*len(ids))
		rt := make([]any, 0, 4*len(ids))
		for i, id := range ids {
			members[i] = "(?, ?, ?)"
			rm = append(rm, rkey, keyOf[id], i)
			rt = append(rt, p.Key, keyOf[id], rkey, now)
		}
		if _, err := exec(ctx, tx, `INSERT INTO receipt_memories (receipt_id, memory_id, position) VALUES `+strings.Join(members, ", "), rm...); err != nil {
			return fmt.Errorf("store: receipt memories: %w", err)
		}
		for i := range members {
			members[i] = "(?, ?, ?, ?)"
		}
		if _, err := exec(ctx, tx, `INSERT INTO retrievals (agent_id, memory_id, receipt_id, created_at) VALUES `+strings.Join(members, ", "), rt...); err != nil {
			return fmt.Errorf("store: record consultation: %w", err)
		}
		return addActivity(ctx, tx, p.Key, countConsultations, 1)
	})
	return out, err
}

// Validations returns a memory's validation summary. It reveals neither the
// memory's text nor any evaluator's reasons.
func (db *DB) Validations(ctx context.Context, p issuer.Principal, id issuer.MemoryID) (reputation.Summary, error) {
	m, err := loadVisibleMemory(ctx, db.x, id)
	if err != nil {
		return reputation.Summary{}, err
	}
	return decodeSummary(m.Summary)
}
