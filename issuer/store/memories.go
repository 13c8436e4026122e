package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
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

// dest returns the scan destinations of memoryColumns.
func (m *memoryRow) dest() []any {
	return []any{&m.Key, &m.PublicID, &m.AuthorKey, &m.Author, &m.AuthorStatus, &m.AuthorVis, &m.Category, &m.Domain,
		&m.Title, &m.Content, &m.AppliesTo, &m.Visibility, &m.ContentHash, &m.Status, &m.Confidence, &m.Summary,
		&m.EvidenceAt, &m.CreatedAt, &m.VersionRootKey}
}

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
// always sees itself. See the README, "What each viewer may see".
func (m *memoryRow) authorShownTo(viewer int64) bool {
	return viewer == m.AuthorKey ||
		(m.AuthorStatus == string(issuer.AgentActive) && m.AuthorVis == string(issuer.VisibilityPublic))
}

// memory reads the lineage of m that viewer may read and converts m to
// the full retrieval form as viewer sees it.
func (m *memoryRow) memory(ctx context.Context, q sqlx.ExtContext, viewer int64) (issuer.Memory, error) {
	var links []lineageLink
	if err := sel(ctx, q, &links, lineageSelect, m.Key, viewer); err != nil {
		return issuer.Memory{}, fmt.Errorf("store: read lineage: %w", err)
	}
	var root []string
	if m.VersionRootKey.Valid {
		if err := sel(ctx, q, &root, rootSelect, m.VersionRootKey.Int64, viewer); err != nil {
			return issuer.Memory{}, fmt.Errorf("store: read version root: %w", err)
		}
	}
	return m.convert(viewer, links, root)
}

// convert returns the row in the full retrieval form as viewer sees it,
// with the lineage links and version root (at most one) that viewer may
// read: the author is omitted unless authorShownTo(viewer).
func (m *memoryRow) convert(viewer int64, links []lineageLink, root []string) (issuer.Memory, error) {
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
	if len(root) == 1 {
		out.VersionRoot = issuer.MemoryID(root[0])
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
// viewer (the last parameter) may read t: t is public and active with an
// active author, or t is viewer's own.
const readableTarget = `(t.author_id = ? OR (t.visibility = 'public' AND t.status = 'active' AND ta.status = 'active'))`

// lineageLink is one lineage link of a memory: its kind and its target.
type lineageLink struct {
	Kind   string `db:"kind"`
	Target string `db:"public_id"`
}

// lineageOf reads the lineage links, in order, of the memory that its
// first parameter names by the condition mem on the link l, that the
// viewer its last parameter names may read.
func lineageOf(mem string) string {
	return `SELECT l.kind, t.public_id FROM memory_links l JOIN memories t ON t.id = l.target_id
	JOIN agents ta ON ta.id = t.author_id WHERE ` + mem + ` AND ` + readableTarget + ` ORDER BY l.kind, l.position`
}

// lineageSelect is lineageOf the memory whose key is the first parameter.
var lineageSelect = lineageOf(`l.memory_id = ?`)

// rootSelect reads the public ID of the memory its first parameter names
// (by key) when the viewer its second names may read it.
const rootSelect = `SELECT t.public_id FROM memories t JOIN agents ta ON ta.id = t.author_id WHERE t.id = ? AND ` + readableTarget

// loadPublication reads the memories q's links name, in one statement.
func loadPublication(ctx context.Context, br batchRunner, q service.PublicationQuery) (*service.PublicationState, error) {
	st := &service.PublicationState{Targets: map[issuer.MemoryID]service.LinkTarget{}}
	if len(q.Targets) == 0 {
		return st, nil
	}
	args := make([]any, len(q.Targets))
	for i, id := range q.Targets {
		args[i] = id
	}
	var b batch
	b.read(func(r rows) error {
		var t service.LinkTarget
		var id issuer.MemoryID
		var root sql.NullInt64
		if err := r.Scan(&t.Key, &id, &t.Author, &t.AuthorStatus, &t.Status, &t.Visibility, &root); err != nil {
			return err
		}
		t.VersionRoot = root.Int64
		st.Targets[id] = t
		return nil
	}, `SELECT m.id, m.public_id, m.author_id, a.status, m.status, m.visibility, m.version_root_id
		FROM memories m JOIN agents a ON a.id = m.author_id WHERE m.public_id IN (`+placeholders(len(args))+`)`, args...)
	if err := br.run(ctx, b, false); err != nil {
		return nil, fmt.Errorf("store: read link targets: %w", err)
	}
	return st, nil
}

// writePublication writes plan in one batch that then reads the new
// memory back as its author sees it: its row, and its lineage and version
// root when it has them. The new memory's key is found by its public ID.
func writePublication(ctx context.Context, br batchRunner, plan *service.PublicationPlan) (issuer.Memory, error) {
	pub, now := plan.Memory, plan.Now
	applies, err := json.Marshal(pub.AppliesTo)
	if err != nil {
		return issuer.Memory{}, fmt.Errorf("store: appliesTo: %w", err)
	}
	var b batch
	root := sql.NullInt64{Int64: plan.VersionRoot, Valid: plan.VersionRoot != 0}
	b.add(`INSERT INTO memories (public_id, author_id, category, domain, title, content, content_hash,
		applies_claim, visibility, confidence, validation_base_confidence, status, version_root_id,
		created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'active', ?, ?, ?)`,
		plan.ID, plan.Author, pub.Category, pub.Domain, pub.Title, pub.Content, plan.ContentHash,
		string(applies), string(pub.Visibility), int64(pub.Confidence), int64(pub.Confidence), root, now, now)
	const key = `(SELECT id FROM memories WHERE public_id = ?)`
	if len(plan.Links) > 0 {
		values := make([]string, len(plan.Links))
		args := make([]any, 0, 4*len(plan.Links))
		for i, l := range plan.Links {
			values[i] = "(" + key + ", ?, ?, ?)"
			args = append(args, plan.ID, string(l.Kind), l.Target, i)
		}
		b.add(`INSERT INTO memory_links (memory_id, kind, target_id, position) VALUES `+strings.Join(values, ", "), args...)
	}
	b.revisions(plan.Revisions, now)
	if err := b.audit(plan.Audit, now); err != nil {
		return issuer.Memory{}, err
	}
	if err := b.activity(plan.Activity); err != nil {
		return issuer.Memory{}, err
	}
	var m *memoryRow
	b.read(func(r rows) error {
		m = &memoryRow{}
		return r.Scan(m.dest()...)
	}, memorySelect+` WHERE m.public_id = ?`, plan.ID)
	var links []lineageLink
	if len(plan.Links) > 0 {
		b.read(func(r rows) error {
			var l lineageLink
			err := r.Scan(&l.Kind, &l.Target)
			links = append(links, l)
			return err
		}, lineageOf(`l.memory_id = `+key), plan.ID, plan.Author)
	}
	var rootID []string
	if root.Valid {
		b.read(func(r rows) error {
			var id string
			err := r.Scan(&id)
			rootID = append(rootID, id)
			return err
		}, rootSelect, root.Int64, plan.Author)
	}
	if err := br.run(ctx, b, true); err != nil {
		return issuer.Memory{}, fmt.Errorf("store: publish: %w", err)
	}
	if m == nil {
		return issuer.Memory{}, errors.New("store: publish: the new memory was not read back")
	}
	return m.convert(plan.Author, links, rootID)
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
			if err := addActivity(ctx, tx, p.Key, service.CountRetrievals, 1); err != nil {
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
		return addActivity(ctx, tx, p.Key, service.CountConsultations, 1)
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
