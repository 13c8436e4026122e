package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
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
	Kind           string        `db:"kind"`
	Evicted        bool          `db:"evicted"`
}

// memoryColumns and memoryFrom read a memoryRow.
const (
	memoryColumns = `m.id, m.public_id, m.author_id, a.public_id AS author_public_id, a.status AS author_status,
	a.visibility AS author_visibility, m.category, m.domain, m.title, m.content, m.applies_claim, m.visibility, m.content_hash,
	m.status, m.confidence, m.validation_summary_json, m.evidence_at, m.created_at, m.version_root_id, m.kind,
	m.evicted_at IS NOT NULL AS evicted`
	memoryFrom = `FROM memories m JOIN agents a ON a.id = m.author_id`
)

const memorySelect = `SELECT ` + memoryColumns + ` ` + memoryFrom

// dest returns the scan destinations of memoryColumns.
func (m *memoryRow) dest() []any {
	return []any{&m.Key, &m.PublicID, &m.AuthorKey, &m.Author, &m.AuthorStatus, &m.AuthorVis, &m.Category, &m.Domain,
		&m.Title, &m.Content, &m.AppliesTo, &m.Visibility, &m.ContentHash, &m.Status, &m.Confidence, &m.Summary,
		&m.EvidenceAt, &m.CreatedAt, &m.VersionRootKey, &m.Kind, &m.Evicted}
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
// always sees itself. See docs/reference.md, "What each viewer may see".
func (m *memoryRow) authorShownTo(viewer int64) bool {
	return viewer == m.AuthorKey ||
		(m.AuthorStatus == string(issuer.AgentActive) && m.AuthorVis == string(issuer.VisibilityPublic))
}

// linkVersionRoot is the kind lineageSelect gives the version root.
const linkVersionRoot = "versionRoot"

// convert returns the row in the full retrieval form as viewer sees it,
// with the lineage links and version root that viewer may read (as
// lineageSelect reads them): the author is omitted unless
// authorShownTo(viewer).
func (m *memoryRow) convert(viewer int64, links []lineageLink) (issuer.Memory, error) {
	out := issuer.Memory{
		ID:          issuer.MemoryID(m.PublicID),
		Category:    m.Category,
		Domain:      m.Domain,
		Title:       m.Title,
		Content:     m.Content,
		Evicted:     m.Evicted,
		Visibility:  issuer.MemoryVisibility(m.Visibility),
		ContentHash: m.ContentHash,
		Status:      issuer.MemoryStatus(m.Status),
		Confidence:  reputation.Milli(m.Confidence),
		CreatedAt:   m.CreatedAt.UTC(),
	}
	if m.Kind == string(issuer.KindDigest) {
		out.Kind = issuer.KindDigest
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
		case issuer.LinkRefs:
			out.Refs = append(out.Refs, id)
		case linkVersionRoot:
			out.VersionRoot = id
		}
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

// lineageLink is one lineage link of a memory, or its version root.
type lineageLink struct {
	Kind, Target string
}

// lineageSelect reads, in one statement, the lineage links (in order) and
// the version root of a memory that a viewer may read; its parameters are
// the memory's public ID and the viewer's key, twice.
const lineageSelect = `SELECT l.kind, t.public_id, l.position FROM memory_links l
		JOIN memories t ON t.id = l.target_id JOIN agents ta ON ta.id = t.author_id
		WHERE l.memory_id = (SELECT id FROM memories WHERE public_id = ?) AND ` + readableTarget + `
	UNION ALL SELECT '` + linkVersionRoot + `', t.public_id, 0 FROM memories t JOIN agents ta ON ta.id = t.author_id
		WHERE t.id = (SELECT version_root_id FROM memories WHERE public_id = ?) AND ` + readableTarget + `
	ORDER BY 1, 3`

// readMemory appends to b the statements that read the memory mem as
// viewer reads it: its row and, withLineage, its lineage and version
// root. The function it returns converts what they read; a nil row when
// the memory does not exist.
func readMemory(b *batch, mem issuer.MemoryID, viewer int64, withLineage bool) func() (*memoryRow, issuer.Memory, error) {
	var m *memoryRow
	b.read(func(r rows) error {
		m = &memoryRow{}
		return r.Scan(m.dest()...)
	}, memorySelect+` WHERE m.public_id = ?`, mem)
	var links []lineageLink
	if withLineage {
		b.read(func(r rows) error {
			var l lineageLink
			var position int
			err := r.Scan(&l.Kind, &l.Target, &position)
			links = append(links, l)
			return err
		}, lineageSelect, mem, viewer, mem, viewer)
	}
	return func() (*memoryRow, issuer.Memory, error) {
		if m == nil {
			return nil, issuer.Memory{}, nil
		}
		out, err := m.convert(viewer, links)
		return m, out, err
	}
}

// record is what the service's rules of access need of the row.
func (m *memoryRow) record() *service.MemoryRecord {
	return &service.MemoryRecord{Key: m.Key, Author: m.AuthorKey, AuthorStatus: issuer.AgentStatus(m.AuthorStatus),
		Status: issuer.MemoryStatus(m.Status), Visibility: issuer.MemoryVisibility(m.Visibility)}
}

// readRecords appends to b the statement that reads the memories ids
// names that exist, each with its public ID and version root.
func readRecords(b *batch, ids []issuer.MemoryID, each func(id issuer.MemoryID, rec service.MemoryRecord, root int64)) {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	b.read(func(r rows) error {
		var id issuer.MemoryID
		var m service.MemoryRecord
		var root sql.NullInt64
		if err := r.Scan(&id, &m.Key, &m.Author, &m.AuthorStatus, &m.Status, &m.Visibility, &root, &m.Kind); err != nil {
			return err
		}
		each(id, m, root.Int64)
		return nil
	}, `SELECT m.public_id, m.id, m.author_id, a.status, m.status, m.visibility, m.version_root_id, m.kind
		FROM memories m JOIN agents a ON a.id = m.author_id WHERE m.public_id IN (`+placeholders(len(ids))+`)`, args...)
}

// loadPublication reads the memories q's links name, in one statement.
func loadPublication(ctx context.Context, br batchRunner, q service.PublicationQuery) (*service.PublicationState, error) {
	st := &service.PublicationState{Targets: map[issuer.MemoryID]service.LinkTarget{}}
	if len(q.Targets) == 0 {
		return st, nil
	}
	var b batch
	readRecords(&b, q.Targets, func(id issuer.MemoryID, rec service.MemoryRecord, root int64) {
		st.Targets[id] = service.LinkTarget{MemoryRecord: rec, VersionRoot: root}
	})
	if err := br.run(ctx, b, false); err != nil {
		return nil, fmt.Errorf("store: read link targets: %w", err)
	}
	return st, nil
}

// writePublication writes plan in one batch that then reads the new
// memory back as its author sees it. The new memory's key is found by its
// public ID.
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
		created_at, updated_at, kind) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'active', ?, ?, ?, ?)`,
		plan.ID, plan.Author, pub.Category, pub.Domain, pub.Title, pub.Content, plan.ContentHash,
		string(applies), string(pub.Visibility), int64(pub.Confidence), int64(pub.Confidence), root, now, now,
		string(cmp.Or(pub.Kind, issuer.KindMemory)))
	if len(plan.Links) > 0 {
		args := make([]any, 0, 4*len(plan.Links))
		for i, l := range plan.Links {
			args = append(args, plan.ID, string(l.Kind), l.Target, i)
		}
		b.insertRows("memory_links", "memory_id, kind, target_id, position", "((SELECT id FROM memories WHERE public_id = ?), ?, ?, ?)", len(plan.Links), args)
	}
	b.revisions(plan.Revisions, now)
	if err := b.audit(plan.Audit, now); err != nil {
		return issuer.Memory{}, err
	}
	if err := b.activity(plan.Activity); err != nil {
		return issuer.Memory{}, err
	}
	read := readMemory(&b, plan.ID, plan.Author, len(plan.Links) > 0 || root.Valid)
	if err := br.run(ctx, b, true); err != nil {
		return issuer.Memory{}, fmt.Errorf("store: publish: %w", err)
	}
	m, out, err := read()
	if err == nil && m == nil {
		err = errors.New("store: publish: the new memory was not read back")
	}
	return out, err
}

// loadRetrieval reads the memory mem, and its lineage as reader may read
// it, in one batch.
func loadRetrieval(ctx context.Context, br batchRunner, mem issuer.MemoryID, reader int64) (*service.RetrievalState, error) {
	var b batch
	read := readMemory(&b, mem, reader, true)
	if err := br.run(ctx, b, false); err != nil {
		return nil, fmt.Errorf("store: read memory: %w", err)
	}
	m, out, err := read()
	if err != nil || m == nil {
		return &service.RetrievalState{}, err
	}
	return &service.RetrievalState{Memory: m.record(), Read: out}, nil
}

// writeRetrieval writes plan in one batch.
func writeRetrieval(ctx context.Context, br batchRunner, plan *service.RetrievalPlan) error {
	var b batch
	b.add(`INSERT INTO retrievals (agent_id, memory_id, created_at) VALUES (?, ?, ?)`, plan.Agent, plan.Memory, plan.Now)
	if err := b.activity(plan.Activity); err != nil {
		return err
	}
	if err := br.run(ctx, b, true); err != nil {
		return fmt.Errorf("store: record retrieval: %w", err)
	}
	return nil
}

// loadConsultation reads the memories mems names, in one statement.
func loadConsultation(ctx context.Context, br batchRunner, mems []issuer.MemoryID) (*service.ConsultationState, error) {
	st := &service.ConsultationState{Memories: map[issuer.MemoryID]service.MemoryRecord{}}
	var b batch
	readRecords(&b, mems, func(id issuer.MemoryID, rec service.MemoryRecord, _ int64) { st.Memories[id] = rec })
	if err := br.run(ctx, b, false); err != nil {
		return nil, fmt.Errorf("store: read consulted memories: %w", err)
	}
	return st, nil
}

// writeConsultation writes plan in one batch, a fixed number of statements
// whatever the number of memories: the receipt, then its memories and
// their retrievals, each finding the receipt by its public ID.
func writeConsultation(ctx context.Context, br batchRunner, plan *service.ConsultationPlan) error {
	const receipt = `(SELECT id FROM receipts WHERE public_id = ?)`
	var b batch
	b.add(`INSERT INTO receipts (public_id, agent_id, created_at) VALUES (?, ?, ?)`, plan.Receipt, plan.Agent, plan.Now)
	n := len(plan.Memories)
	rm, rt := make([]any, 0, 3*n), make([]any, 0, 4*n)
	for i, m := range plan.Memories {
		rm = append(rm, plan.Receipt, m, i)
		rt = append(rt, plan.Agent, m, plan.Receipt, plan.Now)
	}
	b.insertRows("receipt_memories", "receipt_id, memory_id, position", "("+receipt+", ?, ?)", n, rm)
	b.insertRows("retrievals", "agent_id, memory_id, receipt_id, created_at", "(?, ?, "+receipt+", ?)", n, rt)
	if err := b.activity(plan.Activity); err != nil {
		return err
	}
	if err := br.run(ctx, b, true); err != nil {
		return fmt.Errorf("store: record consultation: %w", err)
	}
	return nil
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
