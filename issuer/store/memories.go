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
	Key            int64         `db:"id"`
	PublicID       string        `db:"public_id"`
	AuthorKey      int64         `db:"author_id"`
	Author         string        `db:"author_public_id"`
	AuthorStatus   string        `db:"author_status"`
	AuthorVis      string        `db:"author_visibility"`
	Category       string        `db:"category"`
	Domain         string        `db:"domain"`
	Title          string        `db:"title"`
	Content        string        `db:"content"`
	AppliesTo      string        `db:"applies_claim"`
	Visibility     string        `db:"visibility"`
	ContentHash    string        `db:"content_hash"`
	Status         string        `db:"status"`
	Confidence     int64         `db:"confidence"`
	Summary        string        `db:"validation_summary_json"`
	EvidenceAt     sql.NullTime  `db:"evidence_at"`
	CreatedAt      time.Time     `db:"created_at"`
	VersionRootKey sql.NullInt64 `db:"version_root_id"`
}

// memoryColumns and memoryFrom read a memoryRow.
const (
	memoryColumns = `m.id, m.public_id, m.author_id, a.public_id AS author_public_id, a.status AS author_status,
	a.visibility AS author_visibility, m.category, m.domain, m.title, m.content, m.applies_claim, m.visibility, m.content_hash,
	m.status, m.confidence, m.validation_summary_json, m.evidence_at, m.created_at, m.version_root_id`
	memoryFrom = `FROM memories m JOIN agents a ON a.id = m.author_id`
)

const memorySelect = `SELECT ` + memoryColumns + ` ` + memoryFrom

// targetColumns read only what a validation needs of its memory: not its
// text, which may be large.
const targetColumns = `m.id, m.public_id, m.author_id, a.status AS author_status, m.domain, m.status, m.visibility`

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
// validated by others: it is public and active, and its author is active.
func (m *memoryRow) visible() bool {
	return m.Status == string(issuer.MemoryActive) && m.AuthorStatus == string(issuer.AgentActive) &&
		m.Visibility == string(issuer.MemoryPublic)
}

// loadVisibleMemory reads a memory that viewer may see, or answers
// not_found: a visible memory, or viewer's own active private memory.
// A viewer of 0 sees only visible memories.
func loadVisibleMemory(ctx context.Context, q sqlx.ExtContext, id issuer.MemoryID, viewer int64) (*memoryRow, error) {
	var m memoryRow
	if err := get(ctx, q, &m, memorySelect+` WHERE m.public_id = ?`, id); err != nil {
		return nil, notFound(err, "memory %s not found", id)
	}
	own := viewer != 0 && m.AuthorKey == viewer && m.Status == string(issuer.MemoryActive) && m.AuthorStatus == string(issuer.AgentActive)
	if !m.visible() && !own {
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
// always sees itself. See docs/reference.md, "What each viewer may see".
func (m *memoryRow) authorShownTo(viewer int64) bool {
	return viewer == m.AuthorKey ||
		(m.AuthorStatus == string(issuer.AgentActive) && m.AuthorVis == string(issuer.VisibilityPublic))
}

// memory converts a row to the full retrieval form as viewer sees it: the
// author is omitted unless authorShownTo(viewer); lineage names only the
// targets viewer may read.
func (m *memoryRow) memory(ctx context.Context, q sqlx.ExtContext, viewer int64) (issuer.Memory, error) {
	out := issuer.Memory{
		ID:          issuer.MemoryID(m.PublicID),
		Category:    m.Category,
		Domain:      m.Domain,
		Title:       m.Title,
		Content:     m.Content,
		Visibility:  issuer.MemoryVisibility(m.Visibility),
		ContentHash: m.ContentHash,
		Status:      issuer.MemoryStatus(m.Status),
		Confidence:  reputation.Milli(m.Confidence),
		CreatedAt:   m.CreatedAt.UTC(),
	}
	if err := m.lineage(ctx, q, viewer, &out); err != nil {
		return out, err
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
	return out, nil
}

// readableTarget is the condition, on a memory t and its author ta, that
// viewer (the first parameter) may read t: t is public and active with an
// active author, or t is viewer's own.
const readableTarget = `(t.author_id = ? OR (t.visibility = 'public' AND t.status = 'active' AND ta.status = 'active'))`

// lineage fills out's lineage from memory_links and the version root,
// naming only what viewer may read.
func (m *memoryRow) lineage(ctx context.Context, q sqlx.ExtContext, viewer int64, out *issuer.Memory) error {
	var links []struct {
		Kind   string `db:"kind"`
		Target string `db:"public_id"`
	}
	err := sel(ctx, q, &links, `SELECT l.kind, t.public_id FROM memory_links l JOIN memories t ON t.id = l.target_id
		JOIN agents ta ON ta.id = t.author_id WHERE l.memory_id = ? AND `+readableTarget+` ORDER BY l.kind, l.position`, m.Key, viewer)
	if err != nil {
		return fmt.Errorf("store: read lineage: %w", err)
	}
	for _, l := range links {
		id := issuer.MemoryID(l.Target)
		switch issuer.LinkKind(l.Kind) {
		case issuer.LinkDerivedFrom:
			out.DerivedFrom = append(out.DerivedFrom, id)
		case issuer.LinkExtends:
			out.Extends = append(out.Extends, id)
		case issuer.LinkSupersedes:
			out.Supersedes = append(out.Supersedes, id)
		case issuer.LinkContradicts:
			out.Contradicts = append(out.Contradicts, id)
		}
	}
	if m.VersionRootKey.Valid {
		var root []string
		if err := sel(ctx, q, &root, `SELECT t.public_id FROM memories t JOIN agents ta ON ta.id = t.author_id
			WHERE t.id = ? AND `+readableTarget, m.VersionRootKey.Int64, viewer); err != nil {
			return fmt.Errorf("store: read version root: %w", err)
		}
		if len(root) == 1 {
			out.VersionRoot = issuer.MemoryID(root[0])
		}
	}
	return nil
}

// linkTarget is a lineage target as Publish checks it.
type linkTarget struct {
	Key          int64         `db:"id"`
	PublicID     string        `db:"public_id"`
	Author       int64         `db:"author_id"`
	AuthorStatus string        `db:"author_status"`
	Visibility   string        `db:"visibility"`
	Status       string        `db:"status"`
	VersionRoot  sql.NullInt64 `db:"version_root_id"`
}

// linkable reports whether author may link to t with kind: any visible
// memory; and, except for contradicts, the author's own active private
// memories (research ancestors, for de-duplication only).
func (t *linkTarget) linkable(author int64, kind issuer.LinkKind) bool {
	active := t.Status == string(issuer.MemoryActive) && t.AuthorStatus == string(issuer.AgentActive)
	switch {
	case !active:
		return false
	case t.Visibility == string(issuer.MemoryPublic):
		return true
	default:
		return kind != issuer.LinkContradicts && t.Author == author
	}
}

// Publish records a new memory by p. Its domain is the normalised
// category; its numeric confidence starts at the author's stated
// confidence, which stays its baseline. Lineage links are recorded as
// given and grant nothing; each target must be a memory p may link to
// (see linkable), else the publication is refused as not_found, so that
// a private memory's existence is not revealed. contentHash is "sha256:"
// and the hex SHA-256 of the content as stored; the version root is the
// version root of the first supersedes target (or that target, when it is
// a first version), none for a memory that supersedes nothing. p's
// revision is bumped in the same transaction.
func (db *DB) Publish(ctx context.Context, p issuer.Principal, pub issuer.Publication) (issuer.Memory, error) {
	id, err := issuer.NewMemoryID(db.rand)
	if err != nil {
		return issuer.Memory{}, err
	}
	applies, err := json.Marshal(pub.AppliesTo)
	if err != nil {
		return issuer.Memory{}, fmt.Errorf("store: appliesTo: %w", err)
	}
	if pub.Visibility == "" {
		pub.Visibility = issuer.MemoryPublic
	}
	hash := sha256.Sum256([]byte(pub.Content))
	var out issuer.Memory
	err = db.inTx(ctx, func(tx *sqlx.Tx) error {
		now := db.timestamp()
		targets := map[issuer.MemoryID]*linkTarget{}
		if len(pub.Links) > 0 {
			ids := make([]issuer.MemoryID, 0, len(pub.Links))
			for _, l := range pub.Links {
				ids = append(ids, l.Target)
			}
			query, args, err := sqlx.In(`SELECT m.id, m.public_id, m.author_id, a.status AS author_status, m.visibility, m.status,
				m.version_root_id FROM memories m JOIN agents a ON a.id = m.author_id WHERE m.public_id IN (?)`, ids)
			if err != nil {
				return fmt.Errorf("store: publish: %w", err)
			}
			var found []linkTarget
			if err := sel(ctx, tx, &found, query, args...); err != nil {
				return fmt.Errorf("store: read link targets: %w", err)
			}
			for i := range found {
				targets[issuer.MemoryID(found[i].PublicID)] = &found[i]
			}
		}
		var root sql.NullInt64
		for _, l := range pub.Links {
			t := targets[l.Target]
			if t == nil || !t.linkable(p.Key, l.Kind) {
				return issuer.Errorf(issuer.CodeNotFound, "%s target %s not found", l.Kind, l.Target)
			}
			if l.Kind == issuer.LinkSupersedes && !root.Valid {
				root = t.VersionRoot
				if !root.Valid {
					root = sql.NullInt64{Int64: t.Key, Valid: true}
				}
			}
		}
		key, err := insertID(ctx, tx, `INSERT INTO memories (public_id, author_id, category, domain, title, content, content_hash,
			applies_claim, visibility, confidence, validation_base_confidence, status, version_root_id,
			created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'active', ?, ?, ?)`,
			id, p.Key, pub.Category, pub.Domain, pub.Title, pub.Content, "sha256:"+hex.EncodeToString(hash[:]),
			string(applies), string(pub.Visibility), int64(pub.Confidence), int64(pub.Confidence), root, now, now)
		if err != nil {
			return fmt.Errorf("store: publish: %w", err)
		}
		if len(pub.Links) > 0 {
			rows := make([]string, len(pub.Links))
			args := make([]any, 0, 4*len(pub.Links))
			for i, l := range pub.Links {
				rows[i] = "(?, ?, ?, ?)"
				args = append(args, key, string(l.Kind), targets[l.Target].Key, i)
			}
			if _, err := exec(ctx, tx, `INSERT INTO memory_links (memory_id, kind, target_id, position) VALUES `+strings.Join(rows, ", "), args...); err != nil {
				return fmt.Errorf("store: record lineage: %w", err)
			}
		}
		// A contradiction is evidence about the contradicted memory's
		// author too.
		bump := []int64{p.Key}
		for _, l := range pub.Links {
			if t := targets[l.Target]; l.Kind == issuer.LinkContradicts && t.Author != p.Key && !slices.Contains(bump, t.Author) {
				bump = append(bump, t.Author)
			}
		}
		if err := db.bumpRevision(ctx, tx, now, bump...); err != nil {
			return err
		}
		if err := audit(ctx, tx, now, string(p.AgentID), "memory.published", string(id), map[string]string{"domain": pub.Domain, "visibility": string(pub.Visibility)}); err != nil {
			return err
		}
		if pub.Visibility == issuer.MemoryPublic {
			if err := addActivity(ctx, tx, p.Key, countPublished, 1); err != nil {
				return err
			}
		}
		m, err := loadVisibleMemory(ctx, tx, id, p.Key)
		if err != nil {
			return err
		}
		out, err = m.memory(ctx, tx, p.Key)
		return err
	})
	return out, err
}

// Retrieve returns a memory in full and records the retrieval in the
// ledger: the consumption a later validation requires.
func (db *DB) Retrieve(ctx context.Context, p issuer.Principal, id issuer.MemoryID) (issuer.Memory, error) {
	var out issuer.Memory
	err := db.inTx(ctx, func(tx *sqlx.Tx) error {
		m, err := loadVisibleMemory(ctx, tx, id, p.Key)
		if err != nil {
			return err
		}
		if _, err := exec(ctx, tx, `INSERT INTO retrievals (agent_id, memory_id, created_at) VALUES (?, ?, ?)`,
			p.Key, m.Key, db.timestamp()); err != nil {
			return fmt.Errorf("store: record retrieval: %w", err)
		}
		if m.Visibility == string(issuer.MemoryPublic) {
			if err := addActivity(ctx, tx, p.Key, countRetrievals, 1); err != nil {
				return err
			}
		}
		out, err = m.memory(ctx, tx, p.Key)
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
		query, args, err := sqlx.In(`SELECT m.public_id, m.id, m.status, m.visibility, a.status AS author_status
			FROM memories m JOIN agents a ON a.id = m.author_id WHERE m.public_id IN (?)`, ids)
		if err != nil {
			return fmt.Errorf("store: consult: %w", err)
		}
		var found []struct {
			PublicID     string `db:"public_id"`
			Key          int64  `db:"id"`
			Status       string `db:"status"`
			Visibility   string `db:"visibility"`
			AuthorStatus string `db:"author_status"`
		}
		if err := sel(ctx, tx, &found, query, args...); err != nil {
			return fmt.Errorf("store: read consulted memories: %w", err)
		}
		keyOf := make(map[issuer.MemoryID]int64, len(found))
		for _, f := range found {
			row := memoryRow{Status: f.Status, Visibility: f.Visibility, AuthorStatus: f.AuthorStatus}
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
	m, err := loadVisibleMemory(ctx, db.x, id, 0)
	if err != nil {
		return reputation.Summary{}, err
	}
	return decodeSummary(m.Summary)
}
