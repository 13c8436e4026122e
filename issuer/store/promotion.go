package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
)

var _ service.KnowledgeStore = (*DB)(nil)

// visibleEnds is the condition that both ends of link l are visible to
// every reader: public and active memories of active authors.
const visibleEnds = `s.status = 'active' AND s.visibility = 'public' AND sa.status = 'active'
	AND t.status = 'active' AND t.visibility = 'public' AND ta.status = 'active'`

// knowledgeLinksQuery reads the refs of digests and the supersedes links
// touching a set of memories, one branch per indexed direction.
const knowledgeLinksQuery = `SELECT l.memory_id, l.target_id, l.kind, s.public_id AS from_id, t.public_id AS to_id
	FROM memory_links l
	JOIN memories s ON s.id = l.memory_id JOIN agents sa ON sa.id = s.author_id
	JOIN memories t ON t.id = l.target_id JOIN agents ta ON ta.id = t.author_id
	WHERE l.target_id IN (?) AND (l.kind = 'supersedes' OR (l.kind = 'refs' AND s.kind = 'digest')) AND ` + visibleEnds + `
	UNION
	SELECT l.memory_id, l.target_id, l.kind, s.public_id AS from_id, t.public_id AS to_id
	FROM memory_links l
	JOIN memories s ON s.id = l.memory_id JOIN agents sa ON sa.id = s.author_id
	JOIN memories t ON t.id = l.target_id JOIN agents ta ON ta.id = t.author_id
	WHERE l.memory_id IN (?) AND (l.kind = 'supersedes' OR (l.kind = 'refs' AND s.kind = 'digest')) AND ` + visibleEnds

// KnowledgeLinks reads the lineages and covering digests of memories
// (SPEC.md §15.11): each round reads the links touching the memories the
// last round reached; a refs target is never followed.
func (db *DB) KnowledgeLinks(ctx context.Context, memories []int64, rounds, max int) ([]service.KnowledgeLink, []service.SearchCandidate, error) {
	known := map[int64]bool{}
	for _, m := range memories {
		known[m] = true
	}
	type linkKey struct {
		from, to int64
		kind     issuer.LinkKind
	}
	seen := map[linkKey]bool{}
	var links []service.KnowledgeLink
	var related []int64
	frontier := memories
	for round := 0; round < rounds && len(frontier) > 0; round++ {
		query, args, err := sqlx.In(knowledgeLinksQuery, frontier, frontier)
		if err != nil {
			return nil, nil, err
		}
		var rows []struct {
			From   int64           `db:"memory_id"`
			To     int64           `db:"target_id"`
			Kind   issuer.LinkKind `db:"kind"`
			FromID issuer.MemoryID `db:"from_id"`
			ToID   issuer.MemoryID `db:"to_id"`
		}
		if err := sel(ctx, db.x, &rows, query, args...); err != nil {
			return nil, nil, fmt.Errorf("store: knowledge links: %w", err)
		}
		var next []int64
		for _, r := range rows {
			k := linkKey{r.From, r.To, r.Kind}
			if seen[k] {
				continue
			}
			seen[k] = true
			links = append(links, service.KnowledgeLink{From: r.From, To: r.To, FromID: r.FromID, ToID: r.ToID, Kind: r.Kind})
			// A covering digest and both ends of a supersedes link join
			// the view; the sources a digest refs do not.
			reach := []int64{r.From}
			if r.Kind == issuer.LinkSupersedes {
				reach = append(reach, r.To)
			}
			for _, m := range reach {
				if !known[m] && len(related) < max {
					known[m] = true
					related = append(related, m)
					next = append(next, m)
				}
			}
		}
		frontier = next
	}
	if len(related) == 0 {
		return links, nil, nil
	}
	query, args, err := sqlx.In(`SELECT m.id, m.public_id, m.author_id, a.public_id AS author_public_id,
		m.title, m.category, m.domain, m.created_at, m.kind
		FROM memories m JOIN agents a ON a.id = m.author_id WHERE m.id IN (?)`, related)
	if err != nil {
		return nil, nil, err
	}
	var rows []struct {
		Key       int64           `db:"id"`
		ID        issuer.MemoryID `db:"public_id"`
		Author    int64           `db:"author_id"`
		AuthorID  issuer.AgentID  `db:"author_public_id"`
		Title     string          `db:"title"`
		Category  string          `db:"category"`
		Domain    string          `db:"domain"`
		CreatedAt time.Time       `db:"created_at"`
		Kind      string          `db:"kind"`
	}
	if err := sel(ctx, db.x, &rows, query, args...); err != nil {
		return nil, nil, fmt.Errorf("store: knowledge memories: %w", err)
	}
	out := make([]service.SearchCandidate, len(rows))
	for i, r := range rows {
		// Related memories are public and of active authors; an author
		// whose profile is private is not named (SearchCandidates' rule).
		out[i] = service.SearchCandidate{Key: r.Key, ID: r.ID, Author: r.Author, Title: r.Title,
			Category: r.Category, Domain: r.Domain, CreatedAt: r.CreatedAt.UTC()}
		if r.Kind == string(issuer.KindDigest) {
			out[i].Kind = issuer.KindDigest
		}
	}
	slices.SortFunc(out, func(a, b service.SearchCandidate) int { return cmp.Compare(a.Key, b.Key) })
	return links, out, nil
}
