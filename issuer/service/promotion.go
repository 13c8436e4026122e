package service

import (
	"cmp"
	"context"
	"slices"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/trustgraph"
)

// Bounds of promotion's reads (SPEC.md §15.11).
const (
	// KnowledgeRounds is how many links promotion follows from a memory:
	// to the digests covering it and along supersedes links.
	KnowledgeRounds = 3
	// MaxKnowledgeRelated bounds the memories outside a search's matches
	// that promotion reads.
	MaxKnowledgeRelated = 256
)

// promo is what promotion counts of one memory's signals in the reader's
// view: the independent groups with weight (the author's left out) that
// gave a live confirmation (with evidence, or a use), those whose live
// confirmation carries evidence, and whether a live asker's accept stands.
type promo struct {
	confirmers, evidenced map[string]bool
	accepted              bool
}

func (p *promo) confirm(group string, evidenced bool) {
	if p.confirmers == nil {
		p.confirmers, p.evidenced = map[string]bool{}, map[string]bool{}
	}
	p.confirmers[group] = true
	if evidenced {
		p.evidenced[group] = true
	}
}

// score orders the promotable versions of one lineage: independent
// confirmers, plus one for a standing accept.
func (p promo) score() int {
	n := len(p.confirmers)
	if p.accepted {
		n++
	}
	return n
}

// cmpBool orders false before true.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// knowledge is the reader's view of a set of memories with promotion
// applied: every memory's assessed result, keyed by memory, and the entry
// covering each covered memory.
type knowledge struct {
	results   map[int64]*rankedResult
	coveredBy map[int64]int64
}

// knowledgeView assesses cands, and the memories their lineages and
// covering digests reach, in the reader's view of trust, then promotes
// (SPEC.md §15.11) unless promotion is off.
func (s *Service) knowledgeView(ctx context.Context, trust readerScores, cands []SearchCandidate) (*knowledge, error) {
	keys := make([]int64, len(cands))
	for i, c := range cands {
		keys[i] = c.Key
	}
	var (
		links   []KnowledgeLink
		related []SearchCandidate
	)
	if !s.search.opts.NoKnowledge {
		var err error
		if links, related, err = s.store.KnowledgeLinks(ctx, keys, KnowledgeRounds, MaxKnowledgeRelated); err != nil {
			return nil, err
		}
	}
	return s.assessKnowledge(ctx, trust, cands, links, related)
}

// assessKnowledge assesses cands and related in the reader's view and,
// unless promotion is off, promotes along links.
func (s *Service) assessKnowledge(ctx context.Context, trust readerScores, cands []SearchCandidate, links []KnowledgeLink, related []SearchCandidate) (*knowledge, error) {
	all := append(slices.Clip(cands), related...)
	keys := make([]int64, len(all))
	for i, c := range all {
		keys[i] = c.Key
	}
	sig, err := s.store.SearchSignals(ctx, keys, trustgraph.DefaultDepth)
	if err != nil {
		return nil, err
	}
	view := newReaderView(s.search.opts.MinAuthorTrust, trust, sig, s.now())
	kv := &knowledge{results: map[int64]*rankedResult{}, coveredBy: map[int64]int64{}}
	for _, c := range all {
		r, err := view.assess(c)
		if err != nil {
			return nil, err
		}
		kv.results[c.Key] = &r
	}
	if !s.search.opts.NoKnowledge {
		kv.promote(links)
	}
	return kv, nil
}

// promote marks the knowledge entries and the memories they cover
// (SPEC.md §15.11). Digests are promoted first, then the memories no digest
// entry covers; each lineage (memories of one kind linked by supersedes)
// keeps one entry, its canonical version.
func (kv *knowledge) promote(links []KnowledgeLink) {
	refs := map[int64][]issuer.MemoryID{}
	covering := map[int64][]int64{}
	supersedes := map[int64][]int64{}
	for _, l := range links {
		switch l.Kind {
		case issuer.LinkRefs:
			refs[l.From] = append(refs[l.From], l.ToID)
			covering[l.To] = append(covering[l.To], l.From)
		case issuer.LinkSupersedes:
			from, to := kv.results[l.From], kv.results[l.To]
			if from != nil && to != nil && from.Kind == to.Kind {
				supersedes[l.From] = append(supersedes[l.From], l.To)
			}
		}
	}
	for k := range refs {
		slices.Sort(refs[k])
		refs[k] = slices.Compact(refs[k])
	}
	// A lineage's members reach one another along supersedes links in
	// either direction.
	neighbours := map[int64][]int64{}
	for from, tos := range supersedes {
		for _, to := range tos {
			neighbours[from] = append(neighbours[from], to)
			neighbours[to] = append(neighbours[to], from)
		}
	}
	lineage := func(k int64) []int64 {
		seen := map[int64]bool{k: true}
		out := []int64{k}
		for i := 0; i < len(out); i++ {
			for _, n := range neighbours[out[i]] {
				if !seen[n] {
					seen[n] = true
					out = append(out, n)
				}
			}
		}
		return out
	}
	// older reports whether a is reached from b along supersedes links:
	// b is a later version of a.
	older := func(a, b int64) bool {
		seen := map[int64]bool{b: true}
		stack := []int64{b}
		for len(stack) > 0 {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, m := range supersedes[n] {
				if m == a {
					return true
				}
				if !seen[m] {
					seen[m] = true
					stack = append(stack, m)
				}
			}
		}
		return false
	}
	better := func(a, b *rankedResult) int {
		return cmp.Or(
			cmp.Compare(b.promo.score(), a.promo.score()),
			b.CreatedAt.Compare(a.CreatedAt),
			cmp.Compare(a.ID, b.ID),
		)
	}
	// canonical returns the entry of k's lineage among the promotable:
	// the versions no promotable later version supersedes, the best
	// scored of them, then the newest; 0 when none is promotable.
	canonical := func(k int64, promotable func(int64) bool) int64 {
		var tops []int64
		members := lineage(k)
		for _, m := range members {
			if !promotable(m) {
				continue
			}
			later := false
			for _, n := range members {
				if n != m && promotable(n) && older(m, n) {
					later = true
					break
				}
			}
			if !later {
				tops = append(tops, m)
			}
		}
		if len(tops) == 0 {
			return 0
		}
		return slices.MinFunc(tops, func(a, b int64) int { return better(kv.results[a], kv.results[b]) })
	}
	entries := map[int64]bool{}
	markLineages := func(kind issuer.MemoryKind, promotable func(int64) bool) {
		done := map[int64]bool{}
		for k, r := range kv.results {
			if r.Kind != kind || done[k] {
				continue
			}
			e := canonical(k, promotable)
			for _, m := range lineage(k) {
				done[m] = true
				if _, covered := kv.coveredBy[m]; e != 0 && m != e && !covered {
					kv.coveredBy[m] = e
				}
			}
			if e != 0 {
				entries[e] = true
			}
		}
	}
	confirmed := func(r *rankedResult) bool {
		return r.Status == string(trustgraph.Confirmed) && !r.LowTrust
	}
	markLineages(issuer.KindDigest, func(k int64) bool {
		r := kv.results[k]
		return len(refs[k]) > 0 && confirmed(r) && (len(r.promo.confirmers) >= 2 || r.promo.accepted)
	})
	// A memory is covered by the best entry among its covering digests'
	// lineages.
	digestEntry := func(d int64) int64 {
		if entries[d] {
			return d
		}
		if e, ok := kv.coveredBy[d]; ok && entries[e] {
			return e
		}
		return 0
	}
	for m := range kv.results {
		if kv.results[m].Kind == issuer.KindDigest {
			continue
		}
		var best int64
		for _, d := range covering[m] {
			if e := digestEntry(d); e != 0 && (best == 0 || better(kv.results[e], kv.results[best]) < 0) {
				best = e
			}
		}
		if best != 0 {
			kv.coveredBy[m] = best
		}
	}
	markLineages("", func(k int64) bool {
		r := kv.results[k]
		if _, covered := kv.coveredBy[k]; covered {
			return false // a digest entry covers it
		}
		return confirmed(r) && (len(r.promo.evidenced) >= 2 || (r.promo.accepted && len(r.promo.confirmers) >= 1))
	})
	for k, r := range kv.results {
		if entries[k] {
			r.Knowledge = true
			r.Sources = refs[k]
			if r.Kind != issuer.KindDigest {
				r.Sources = []issuer.MemoryID{r.ID}
			}
		}
		if e, ok := kv.coveredBy[k]; ok && entries[e] {
			er := kv.results[e]
			r.CoveredBy = &issuer.KnowledgeRef{ID: er.ID, Title: er.Title, Kind: er.Kind, Status: er.Status}
		} else {
			delete(kv.coveredBy, k)
		}
	}
}

// coverOf returns the knowledge entry covering memory c in p's own view
// (SPEC.md §15.11), nil for none. A memory that no digest refs and no
// supersedes link touches costs one read.
func (s *Service) coverOf(ctx context.Context, p issuer.Principal, c SearchCandidate) (*issuer.KnowledgeRef, error) {
	if s.search.opts.NoKnowledge {
		return nil, nil
	}
	links, related, err := s.store.KnowledgeLinks(ctx, []int64{c.Key}, KnowledgeRounds, MaxKnowledgeRelated)
	if err != nil || len(links) == 0 {
		return nil, err
	}
	trust, _, err := s.readerTrust(ctx, p, nil)
	if err != nil {
		return nil, err
	}
	kv, err := s.assessKnowledge(ctx, trust, []SearchCandidate{c}, links, related)
	if err != nil {
		return nil, err
	}
	return kv.results[c.Key].CoveredBy, nil
}
