package service

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"time"

	"github.com/remnant/passportkit/issuer"
)

// PublicationQuery names what a publication reads: the memories its
// lineage links name.
type PublicationQuery struct {
	Targets []issuer.MemoryID
}

// PublicationState is what a store read for a [PublicationQuery].
type PublicationState struct {
	// Targets holds the named memories that exist, by public ID.
	Targets map[issuer.MemoryID]LinkTarget
}

// LinkTarget is a memory a publication links to, with what its
// eligibility needs.
type LinkTarget struct {
	MemoryRecord
	// VersionRoot is the key of the memory's version root; 0 for a first
	// version.
	VersionRoot int64
}

// PublicationPlan is everything a publication writes, decided by the
// service.
type PublicationPlan struct {
	Now    time.Time
	ID     issuer.MemoryID
	Author int64
	// Memory is the publication as recorded, its visibility set; its
	// confidence is also the memory's baseline.
	Memory issuer.Publication
	// ContentHash is "sha256:" and the hex SHA-256 of the content.
	ContentHash string
	// VersionRoot is the key of the new memory's version root; 0 for none.
	VersionRoot int64
	// Links are the lineage links in the publication's order.
	Links     []LinkWrite
	Revisions []RevisionWrite
	Activity  []ActivityWrite
	Audit     *AuditWrite
}

// LinkWrite is one lineage link of a new memory.
type LinkWrite struct {
	Kind   issuer.LinkKind
	Target int64
}

// Publish records a new memory by p (publish scope). Its domain is the
// normalised category; its numeric confidence starts at the author's
// stated confidence, which stays its baseline. Lineage links are recorded
// as given and grant nothing; each target must be a memory p may link to
// (see [LinkTarget]), else the publication is refused as not_found, so
// that a private memory's existence is not revealed. The memory is read
// back as p sees it, in the same transaction.
func (s *Service) Publish(ctx context.Context, p issuer.Principal, pub issuer.Publication) (issuer.Memory, error) {
	if err := p.Require(issuer.ScopePublish); err != nil {
		return issuer.Memory{}, err
	}
	// Drawn once, so that a retried transaction records the same memory.
	id, err := issuer.NewMemoryID(s.rand)
	if err != nil {
		return issuer.Memory{}, err
	}
	q := PublicationQuery{}
	for _, l := range pub.Links {
		q.Targets = append(q.Targets, l.Target)
	}
	var out issuer.Memory
	err = s.store.InTx(ctx, func(ctx context.Context, ex Executor) error {
		st, err := ex.LoadPublication(ctx, q)
		if err != nil {
			return err
		}
		plan, err := planPublication(st, p, pub, id, s.timestamp(), s.rand)
		if err != nil {
			return err
		}
		out, err = ex.WritePublication(ctx, plan)
		return err
	})
	if err == nil {
		s.MemoriesChanged()
	}
	return out, err
}

// planPublication decides a publication's writes: every link target must
// be linkable; the version root is that of the first supersedes target
// (or that target, when it is a first version), none for a memory that
// supersedes nothing; the author's revision is bumped, and so is every
// author the new memory contradicts; the publication is audited, and a
// public memory counts as published.
func planPublication(st *PublicationState, p issuer.Principal, pub issuer.Publication, id issuer.MemoryID, now time.Time, rand io.Reader) (*PublicationPlan, error) {
	if pub.Visibility == "" {
		pub.Visibility = issuer.MemoryPublic
	}
	hash := sha256.Sum256([]byte(pub.Content))
	plan := &PublicationPlan{Now: now, ID: id, Author: p.Key, Memory: pub, ContentHash: "sha256:" + hex.EncodeToString(hash[:])}
	var related []Relation
	for _, l := range pub.Links {
		t, ok := st.Targets[l.Target]
		if !ok || !t.linkable(p.Key, l.Kind) {
			return nil, issuer.Errorf(issuer.CodeNotFound, "%s target %s not found", l.Kind, l.Target)
		}
		if pub.Kind == issuer.KindDigest && l.Kind == issuer.LinkSupersedes && t.Kind != issuer.KindDigest {
			return nil, issuer.Errorf(issuer.CodeInvalid, "a digest supersedes only an older digest; %s is not a digest", l.Target)
		}
		if l.Kind == issuer.LinkSupersedes && plan.VersionRoot == 0 {
			plan.VersionRoot = cmp.Or(t.VersionRoot, t.Key)
		}
		plan.Links = append(plan.Links, LinkWrite{Kind: l.Kind, Target: t.Key})
		related = append(related, Relation{Author: t.Author, Kind: RelatedLinkedFrom, Link: l.Kind})
	}
	var err error
	if plan.Revisions, err = newRevisions(rand, staleSubjects(p.Key, related, false)); err != nil {
		return nil, err
	}
	plan.Audit = &AuditWrite{Actor: string(p.AgentID), Action: "memory.published", Subject: string(id),
		Detail: map[string]any{"domain": pub.Domain, "visibility": pub.Visibility}}
	if pub.Kind == issuer.KindDigest {
		plan.Audit.Detail["kind"] = pub.Kind
	}
	if pub.Visibility == issuer.MemoryPublic {
		plan.Activity = []ActivityWrite{{Agent: p.Key, Counter: CountPublished, N: 1}}
	}
	return plan, nil
}

// linkable reports whether author may link to t with kind: any visible
// memory; and, except for a contradiction or a citation (refs, which every
// reader must be able to follow), the author's own active private memories
// (research ancestors, for de-duplication only).
func (t LinkTarget) linkable(author int64, kind issuer.LinkKind) bool {
	return t.visible() || kind != issuer.LinkContradicts && kind != issuer.LinkRefs && t.readableBy(author)
}
