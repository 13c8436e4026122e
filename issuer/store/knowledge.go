package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
)

// artifactReadable is the condition, on an artifact a, that an agent (the
// three parameters) may read it: the agent uploaded it, or a current
// position on a memory the agent may read cites it.
const artifactReadable = `EXISTS (SELECT 1 FROM artifact_uploads u WHERE u.digest = a.digest AND u.agent_id = ?)
	OR EXISTS (SELECT 1 FROM feedback f JOIN memories m ON m.id = f.memory_id JOIN agents au ON au.id = m.author_id
		WHERE f.evidence_artifact = a.digest AND m.status = 'active' AND au.status = 'active'
		AND (m.visibility = 'public' OR m.author_id = ?))`

// PutArtifact implements service.ArtifactStore.
func (db *DB) PutArtifact(ctx context.Context, uploader int64, digest string, content []byte, now time.Time) (issuer.Artifact, error) {
	out := issuer.Artifact{Digest: digest, Size: len(content)}
	err := db.inTx(ctx, func(tx *sqlx.Tx) error {
		// An artifact whose body was evicted (SPEC.md §15.10) is stored
		// again by its next upload.
		res, err := exec(ctx, tx, `INSERT INTO artifacts (digest, size, content, created_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (digest) DO UPDATE SET content = excluded.content, evicted_at = NULL
			WHERE artifacts.evicted_at IS NOT NULL`, digest, len(content), content, now)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		out.Created = n == 1
		if _, err := exec(ctx, tx, `INSERT INTO artifact_uploads (digest, agent_id, created_at) VALUES (?, ?, ?)
			ON CONFLICT (digest, agent_id) DO NOTHING`, digest, uploader, now); err != nil {
			return err
		}
		return get(ctx, tx, &out.CreatedAt, `SELECT created_at FROM artifacts WHERE digest = ?`, digest)
	})
	if err != nil {
		return issuer.Artifact{}, fmt.Errorf("store: put artifact: %w", err)
	}
	out.CreatedAt = out.CreatedAt.UTC()
	return out, nil
}

// ReadArtifact implements service.ArtifactStore.
func (db *DB) ReadArtifact(ctx context.Context, viewer int64, digest string) ([]byte, issuer.Artifact, error) {
	var row struct {
		Content   []byte    `db:"content"`
		Size      int       `db:"size"`
		CreatedAt time.Time `db:"created_at"`
	}
	err := get(ctx, db.x, &row, `SELECT a.content, a.size, a.created_at FROM artifacts a WHERE a.digest = ? AND a.evicted_at IS NULL AND (`+artifactReadable+`)`,
		digest, viewer, viewer)
	if err != nil {
		return nil, issuer.Artifact{}, notFound(err, "artifact %s not found", digest)
	}
	return row.Content, issuer.Artifact{Digest: digest, Size: row.Size, CreatedAt: row.CreatedAt.UTC()}, nil
}

func (e executor) LoadAccept(ctx context.Context, q service.AcceptQuery) (*service.AcceptState, error) {
	st := &service.AcceptState{}
	b := []stmt{
		{
			query: `SELECT id, agent_id FROM receipts WHERE public_id = ?` + e.br.rowLock(),
			args:  []any{q.Receipt},
			scan:  func(r rows) error { return r.Scan(&st.ReceiptKey, &st.ReceiptAgent) },
		},
		{
			query: memoryEligibilitySelect + ` WHERE m.public_id = ?`,
			args:  []any{q.Agent, q.Agent, q.Memory},
			scan: func(r rows) error {
				var t service.Target
				if err := r.Scan(append(targetDest(&t), &t.Consumed, &t.SameOwner)...); err != nil {
					return err
				}
				st.Target = &t
				return nil
			},
		},
		{
			query: `SELECT COUNT(*) FROM receipt_memories rm JOIN receipts r ON r.id = rm.receipt_id
				JOIN memories m ON m.id = rm.memory_id WHERE r.public_id = ? AND m.public_id = ?`,
			args: []any{q.Receipt, q.Memory},
			scan: func(r rows) error {
				var n int64
				err := r.Scan(&n)
				st.InReceipt = n > 0
				return err
			},
		},
		{
			query: `SELECT ca.memory_id, m.public_id, m.author_id FROM consultation_accepts ca
				JOIN receipts r ON r.id = ca.receipt_id JOIN memories m ON m.id = ca.memory_id WHERE r.public_id = ?`,
			args: []any{q.Receipt},
			scan: func(r rows) error {
				p := &service.PriorAccept{}
				if err := r.Scan(&p.Memory, &p.PublicID, &p.Author); err != nil {
					return err
				}
				st.Prior = p
				return nil
			},
		},
	}
	if err := e.br.run(ctx, b, false); err != nil {
		return nil, fmt.Errorf("store: read accept: %w", err)
	}
	return st, nil
}

func (e executor) WriteAccept(ctx context.Context, plan *service.AcceptPlan) error {
	var b batch
	now := plan.Now
	if p := plan.Prior; p != nil {
		b.add(`UPDATE trust_edges SET weight = CASE WHEN weight > ? THEN weight - ? ELSE 0 END WHERE source_id = ? AND target_id = ?`,
			service.AcceptTrustWeight, service.AcceptTrustWeight, plan.Agent, p.Author)
		b.add(`DELETE FROM trust_edges WHERE source_id = ? AND target_id = ? AND weight = 0`, plan.Agent, p.Author)
		b.add(`UPDATE consultation_accepts SET memory_id = ?, updated_at = ? WHERE receipt_id = ?`, plan.Memory, now, plan.Receipt)
	} else {
		b.add(`INSERT INTO consultation_accepts (receipt_id, agent_id, memory_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`,
			plan.Receipt, plan.Agent, plan.Memory, now, now)
	}
	b.add(`INSERT INTO trust_edges (source_id, target_id, weight) VALUES (?, ?, ?)
		ON CONFLICT (source_id, target_id) DO UPDATE SET weight = trust_edges.weight + excluded.weight`,
		plan.Agent, plan.Author, service.AcceptTrustWeight)
	if err := b.audit(plan.Audit, now); err != nil {
		return err
	}
	if err := e.br.run(ctx, b, true); err != nil {
		return fmt.Errorf("store: write accept: %w", err)
	}
	return nil
}
