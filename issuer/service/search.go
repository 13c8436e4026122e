package service

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/reputation"
	"github.com/remnant/passportkit/trustgraph"
)

// SearchStore is what memory search needs of a store: the reader's trust
// neighbourhood and the matches with the signals on them. issuer/store
// implements it for both engines.
type SearchStore interface {
	// TrustSeeds returns the authors agent trusts directly: the targets of
	// its trust edges (its current eligible positive positions), heaviest
	// first, at most max.
	TrustSeeds(ctx context.Context, agent int64, max int) ([]int64, error)
	// ResolveTrustSet maps the IDs of listed agents (active and public)
	// to their keys; other IDs, unlisted, private and suspended agents'
	// among them, are missing from the map.
	ResolveTrustSet(ctx context.Context, ids []issuer.AgentID) (map[issuer.AgentID]int64, error)
	// TrustNeighbourhood reads, in one depth-capped recursive query, the
	// trust edges reader-local propagation of the given depth needs from
	// seeds: the out-edges of every node fewer than depth hops from a
	// seed, at most fanOut per node (heaviest first, then by target key),
	// each with its source's whole out-weight.
	TrustNeighbourhood(ctx context.Context, seeds []int64, depth, fanOut int) ([]TrustEdge, error)
	// SearchCandidates returns the at most max memories viewer may read
	// that hold every term, most relevant first, and whether more matched.
	SearchCandidates(ctx context.Context, viewer int64, terms []string, max int) ([]SearchCandidate, bool, error)
	// SearchSignals reads the positions on memories and on the memories
	// contradicting them, transitively up to depth links, with the facts
	// of every agent they name.
	SearchSignals(ctx context.Context, memories []int64, depth int) (*SearchSignals, error)
}

// TrustEdge is one edge of the trust graph: Source's summed effective
// weight (thousandths) of its positive positions on Target's memories.
// Total is Source's whole positive out-weight, of which the fan-out cap
// may have left some edges unread.
type TrustEdge struct {
	Source, Target int64
	Weight, Total  int64
}

// SearchCandidate is a memory matching a search.
type SearchCandidate struct {
	Key    int64
	ID     issuer.MemoryID
	Author int64
	// AuthorID is the author's public ID, "" when the viewer may not see it.
	AuthorID issuer.AgentID
	Title    string
	Category string
	Domain   string
	// Kind is KindDigest for a digest, "" otherwise.
	Kind      issuer.MemoryKind
	CreatedAt time.Time
	// Evicted reports an evicted body (SPEC.md §15.10).
	Evicted bool
	// Relevance is the engine's full-text relevance: higher is better,
	// comparable only within one search.
	Relevance float64
}

// SearchSignals are the signals on a set of memories.
type SearchSignals struct {
	Positions []SignalPosition
	// Contradictions are the visible memories that declare they
	// contradict another memory of the set.
	Contradictions []ContradictionLink
	// Accepts are the standing accepts of the memories.
	Accepts []SignalAccept
	// Citations are the authors of visible memories citing the memories
	// (derivedFrom, extends or refs).
	Citations []SignalCitation
	Agents    map[int64]AgentFacts
}

// SignalAccept is a consulting agent's standing accept of a memory.
type SignalAccept struct {
	Memory, Agent int64
	UpdatedAt     time.Time
}

// SignalCitation says that a visible memory by Author cites Memory.
type SignalCitation struct {
	Memory, Author int64
}

// SignalPosition is an evaluator's current eligible position on a memory.
type SignalPosition struct {
	Memory    int64
	ID        issuer.ValidationID
	Evaluator int64
	Type      reputation.Type
	CreatedAt time.Time
	UpdatedAt time.Time
	// Evidence is the type of the position's evidence object, "" for none;
	// TextEvidence reports a non-empty reason (free-text evidence).
	Evidence     issuer.EvidenceType
	TextEvidence bool
	// Renewals are the position's counted renewals (stillValid), oldest
	// first.
	Renewals []time.Time
}

// evidenced reports whether the position carries evidence: an object or
// free text (SPEC.md §15.8).
func (p SignalPosition) evidenced() bool { return p.Evidence != "" || p.TextEvidence }

// ContradictionLink says memory Attacker, by Author, contradicts Target.
type ContradictionLink struct {
	Attacker, Target, Author int64
}

// AgentFacts are what search needs of an agent: when it was first seen and
// its current operator (0 for none).
type AgentFacts struct {
	Since    time.Time
	Operator int64
}

// SearchOptions configure memory search. The zero value is ready to use.
type SearchOptions struct {
	// MinAuthorTrust is the reader-trust threshold: an author whose weight
	// in the reader's view (propagated trust plus the floor of §15.4) is
	// not above it is left out unless include_low. Zero hides exactly the
	// authors the reader gives no weight.
	MinAuthorTrust float64
	// FanOut caps the out-edges read per node of the neighbourhood;
	// DefaultFanOut when zero.
	FanOut int
	// CacheSize bounds the readers whose trust is cached;
	// DefaultTrustCacheSize when zero.
	CacheSize int
	// CacheTTL is how long a reader's trust is reused; DefaultTrustCacheTTL
	// when zero.
	CacheTTL time.Duration
	// NoKnowledge turns promotion off (SPEC.md §15.11): no knowledge
	// entries, no coverage, and the order of §15.7 alone. It is the
	// baseline of the search benchmark.
	NoKnowledge bool
}

// Defaults of [SearchOptions].
const (
	DefaultFanOut         = 32
	DefaultTrustCacheSize = 1024
	DefaultTrustCacheTTL  = 30 * time.Second
	// MaxOwnTrustSeeds bounds the directly trusted authors an agent's own
	// trust set takes (heaviest first).
	MaxOwnTrustSeeds = 256
	// RelevanceBands is how many bands of comparable relevance a search
	// ranks in (SPEC.md §15.7).
	RelevanceBands = 4
)

// restNode names, in the propagation graph, the out-weight the fan-out cap
// left unread; it is never an agent key.
const restNode = "rest"

// SearchMemories searches memories for p (search scope) and ranks them in
// p's view (SPEC.md §15.7): by band of comparable relevance, then
// confirmed before unverified and stale before contested, then by
// relevance. Authors p's trust does not reach are left out unless
// q.IncludeLow.
func (s *Service) SearchMemories(ctx context.Context, p issuer.Principal, q issuer.SearchQuery) (issuer.SearchPage, error) {
	page := issuer.SearchPage{Results: []issuer.SearchResult{}}
	if err := p.Require(issuer.ScopeSearch); err != nil {
		return page, err
	}
	trust, unknown, err := s.readerTrust(ctx, p, q.TrustSet)
	if err != nil {
		return page, err
	}
	page.TrustSet, page.UnknownTrustSet = "own", unknown
	if len(q.TrustSet) > 0 {
		page.TrustSet = "explicit"
	}
	cands, full, err := s.store.SearchCandidates(ctx, p.Key, q.Terms, issuer.SearchWindow)
	if err != nil {
		return page, err
	}
	page.WindowFull = full
	if len(cands) == 0 {
		return page, nil
	}
	kv, err := s.knowledgeView(ctx, trust, cands)
	if err != nil {
		return page, err
	}
	ranked := make([]rankedResult, 0, len(cands))
	index := map[int64]int{}
	for _, c := range cands {
		r := kv.results[c.Key]
		if r.LowTrust && !q.IncludeLow {
			page.HiddenLowTrust++
			continue
		}
		index[c.Key] = len(ranked)
		ranked = append(ranked, *r)
	}
	for i := range ranked {
		if e, ok := kv.coveredBy[ranked[i].key]; ok {
			if j, ok := index[e]; ok {
				ranked[i].cover = j
			}
		}
	}
	rankResults(ranked)
	end := min(q.Offset+q.Limit, len(ranked))
	for _, r := range ranked[min(q.Offset, end):end] {
		page.Results = append(page.Results, r.SearchResult)
	}
	if end < len(ranked) {
		page.NextOffset = &end
	}
	return page, nil
}

// rankedResult is a result with what ranks it.
type rankedResult struct {
	issuer.SearchResult
	relevance float64
	band      int
	// key and author are the memory's and its author's keys; promo what
	// promotion counts of its signals; cover the index, among the
	// results ranked, of the entry covering it (-1 for none).
	key, author int64
	promo       promo
	cover       int
}

// statusRank orders statuses: confirmed rises, contested sinks, the rest
// stays in the middle.
func statusRank(s string) int {
	switch trustgraph.Status(s) {
	case trustgraph.Confirmed:
		return 0
	case trustgraph.Contested:
		return 2
	}
	return 1
}

// rankResults sorts results by band of comparable relevance, knowledge
// entries first, status, relevance, newest first, then ID. A band is a
// quarter of the best relevance shown: band = ⌊4·(1 − r/r_max)⌋, at most
// 3; a memory whose covering entry is shown takes the entry's band when it
// is worse, so that it follows the entry (SPEC.md §15.11).
func rankResults(rs []rankedResult) {
	best := 0.0
	for _, r := range rs {
		best = max(best, r.relevance)
	}
	for i := range rs {
		rs[i].band = RelevanceBands - 1
		if best > 0 {
			rs[i].band = min(int(math.Floor(RelevanceBands*(1-rs[i].relevance/best))), RelevanceBands-1)
		}
	}
	for i := range rs {
		if c := rs[i].cover; c >= 0 && c < len(rs) {
			rs[i].band = max(rs[i].band, rs[c].band)
		}
	}
	slices.SortStableFunc(rs, func(a, b rankedResult) int {
		return cmp.Or(
			cmp.Compare(a.band, b.band),
			-cmpBool(a.Knowledge, b.Knowledge),
			cmp.Compare(statusRank(a.Status), statusRank(b.Status)),
			cmp.Compare(b.relevance, a.relevance),
			b.CreatedAt.Compare(a.CreatedAt),
			cmp.Compare(a.ID, b.ID),
		)
	})
}

// readerView assesses memories in one reader's view.
type readerView struct {
	minTrust float64
	trust    readerScores
	sig      *SearchSignals
	now      time.Time
	groups   map[string]string
	// on holds the positions by memory; attackers the contradicting
	// memories by target.
	on        map[int64][]SignalPosition
	attackers map[int64][]ContradictionLink
	accepts   map[int64][]SignalAccept
	citations map[int64][]SignalCitation
}

func newReaderView(minTrust float64, trust readerScores, sig *SearchSignals, now time.Time) *readerView {
	v := &readerView{minTrust: minTrust, trust: trust, sig: sig, now: now, on: map[int64][]SignalPosition{}, attackers: map[int64][]ContradictionLink{}}
	for _, p := range sig.Positions {
		v.on[p.Memory] = append(v.on[p.Memory], p)
	}
	for _, l := range sig.Contradictions {
		v.attackers[l.Target] = append(v.attackers[l.Target], l)
	}
	v.accepts, v.citations = map[int64][]SignalAccept{}, map[int64][]SignalCitation{}
	for _, a := range sig.Accepts {
		v.accepts[a.Memory] = append(v.accepts[a.Memory], a)
	}
	for _, c := range sig.Citations {
		v.citations[c.Memory] = append(v.citations[c.Memory], c)
	}
	keys := make([]trustgraph.Key, 0, len(sig.Agents))
	for k, f := range sig.Agents {
		key := trustgraph.Key{ID: agentNode(k)}
		if f.Operator != 0 {
			key.Owner = "op" + strconv.FormatInt(f.Operator, 10)
		}
		keys = append(keys, key)
	}
	v.groups = trustgraph.Groups(keys)
	return v
}

func agentNode(k int64) string { return strconv.FormatInt(k, 10) }

// days returns the days from t to the view's now.
func (v *readerView) days(t time.Time) float64 { return v.now.Sub(t).Hours() / 24 }

// day returns t as a fractional day number since the Unix epoch.
func day(t time.Time) float64 { return float64(t.UnixMilli()) / 86_400_000 }

// weight is an agent's weight in the reader's view: its propagated trust
// plus, while the reader's graph carries no weight, its cold-start floor
// (SPEC.md §15.4, §15.7).
func (v *readerView) weight(agent int64) float64 {
	if f, ok := v.sig.Agents[agent]; ok {
		return v.trust.weight(agent, f.Since, v.now)
	}
	return v.trust.trust[agent]
}

func (v *readerView) group(agent int64) string {
	if g, ok := v.groups[agentNode(agent)]; ok {
		return g
	}
	return agentNode(agent)
}

// assess returns a candidate's result: its status, why and counts.
func (v *readerView) assess(c SearchCandidate) (rankedResult, error) {
	r := rankedResult{relevance: c.Relevance, key: c.Key, author: c.Author, cover: -1, SearchResult: issuer.SearchResult{
		ID: c.ID, Author: c.AuthorID, Title: c.Title, Category: c.Category, Domain: c.Domain, CreatedAt: c.CreatedAt, Kind: c.Kind, Evicted: c.Evicted,
	}}
	r.LowTrust = !(v.weight(c.Author) > v.minTrust) // NaN-safe: not above is low
	lab, err := trustgraph.Grounded(v.arguments(c), trustgraph.GroundedOptions{})
	if err != nil {
		return r, fmt.Errorf("service: contradictions of %s: %w", c.ID, err)
	}
	if lab.Contested {
		r.Why = &issuer.SearchWhy{Code: lab.Why.Code, Text: lab.Why.Text}
	}
	author := agentNode(c.Author)
	var confs []trustgraph.Confirmation
	var confirm, use, useful, contra, accept, cite []trustgraph.Signal
	for _, p := range v.on[c.Key] {
		sg := trustgraph.Signal{Key: agentNode(p.Evaluator), Weight: v.weight(p.Evaluator)}
		switch p.Type {
		case reputation.Corroborate, reputation.UsedSuccessfully:
			if p.Type == reputation.Corroborate {
				confirm = append(confirm, sg)
			} else {
				use = append(use, sg)
			}
			if v.group(p.Evaluator) == v.group(c.Author) {
				continue // no self-confirmation
			}
			if p.Type == reputation.Corroborate && !p.evidenced() {
				continue // a bare confirmation is only a vote (SPEC.md §15.8)
			}
			// The position's clock is the later of its last change and
			// its last counted renewal (SPEC.md §15.7, §15.8).
			var renewals []float64
			for _, r := range p.Renewals {
				renewals = append(renewals, day(r))
			}
			clock := max(trustgraph.Clock(day(p.CreatedAt), renewals, day(v.now)), day(p.UpdatedAt))
			decay := trustgraph.Decay(trustgraph.Confirm, day(v.now)-clock)
			confs = append(confs, trustgraph.Confirmation{Weight: sg.Weight, Decay: decay})
			if sg.Weight > 0 && decay >= trustgraph.LiveFactor {
				r.promo.confirm(v.group(p.Evaluator), p.evidenced())
			}
		case reputation.Useful:
			useful = append(useful, sg)
		case reputation.Contradict:
			contra = append(contra, sg)
		}
	}
	for _, l := range v.attackers[c.Key] {
		contra = append(contra, trustgraph.Signal{Key: agentNode(l.Author), Weight: v.weight(l.Author)})
	}
	for _, a := range v.accepts[c.Key] {
		accept = append(accept, trustgraph.Signal{Key: agentNode(a.Agent), Weight: v.weight(a.Agent)})
		if v.group(a.Agent) == v.group(c.Author) {
			continue // an accept by the author's group counts zero
		}
		decay := trustgraph.Decay(trustgraph.Accept, v.days(a.UpdatedAt))
		confs = append(confs, trustgraph.Confirmation{Accept: true, Decay: decay})
		r.promo.accepted = r.promo.accepted || decay >= trustgraph.LiveFactor
	}
	for _, l := range v.citations[c.Key] {
		cite = append(cite, trustgraph.Signal{Key: agentNode(l.Author), Weight: v.weight(l.Author)})
	}
	r.Status = string(trustgraph.PostStatus(lab.Contested, confs))
	r.Counts = issuer.SearchCounts{
		Confirmations:  trustgraph.Count(author, confirm, v.groups).Groups,
		Uses:           trustgraph.Count(author, use, v.groups).Groups,
		Useful:         trustgraph.Count(author, useful, v.groups).Groups,
		Contradictions: trustgraph.Count(author, contra, v.groups).Groups,
		Accepts:        trustgraph.Count(author, accept, v.groups).Groups,
		Citations:      trustgraph.Count(author, cite, v.groups).Groups,
	}
	return r, nil
}

// arguments builds a candidate's argument graph (SPEC.md §15.7): the
// memory, the contradict positions on it and the visible memories that
// contradict it, and so on transitively, each weighted by its author's
// weight in the reader's view. It follows contradictions one level past the
// depth cap, so that a capped argument is seen as capped.
func (v *readerView) arguments(c SearchCandidate) trustgraph.ArgumentGraph {
	root := "m" + agentNode(c.Key)
	g := trustgraph.ArgumentGraph{Root: root, Arguments: []trustgraph.Argument{{ID: root, Author: agentNode(c.Author), Weight: v.weight(c.Author)}}}
	seen := map[string]bool{root: true}
	frontier := []int64{c.Key}
	for depth := 0; depth <= trustgraph.DefaultDepth && len(frontier) > 0; depth++ {
		var next []int64
		for _, target := range frontier {
			to := "m" + agentNode(target)
			for _, p := range v.on[target] {
				if p.Type != reputation.Contradict || !p.evidenced() {
					continue // a bare contradiction is only a vote (SPEC.md §15.8)
				}
				id := "v" + string(p.ID)
				if !seen[id] {
					seen[id] = true
					g.Arguments = append(g.Arguments, trustgraph.Argument{ID: id, Author: agentNode(p.Evaluator), Weight: v.weight(p.Evaluator)})
				}
				g.Attacks = append(g.Attacks, trustgraph.Attack{From: id, To: to})
			}
			for _, l := range v.attackers[target] {
				id := "m" + agentNode(l.Attacker)
				if !seen[id] {
					seen[id] = true
					g.Arguments = append(g.Arguments, trustgraph.Argument{ID: id, Author: agentNode(l.Author), Weight: v.weight(l.Author)})
					next = append(next, l.Attacker)
				}
				g.Attacks = append(g.Attacks, trustgraph.Attack{From: id, To: to})
			}
		}
		frontier = next
	}
	return g
}

// KnowledgeStore is what promotion (SPEC.md §15.11) needs of a store beyond
// search: the links that make lineages and coverage. issuer/store
// implements it for both engines.
type KnowledgeStore interface {
	// KnowledgeLinks reads, from memories, the refs of visible digests
	// (either end in the set) and the supersedes links between visible
	// memories, following supersedes links and covering digests up to
	// rounds hops and at most max related memories. It returns the links
	// and the memories they reach outside the set (Relevance 0); a refs
	// target outside the set is named in the link, not returned.
	KnowledgeLinks(ctx context.Context, memories []int64, rounds, max int) ([]KnowledgeLink, []SearchCandidate, error)
}

// KnowledgeLink is a refs link from a digest or a supersedes link between
// two visible memories.
type KnowledgeLink struct {
	From, To     int64
	FromID, ToID issuer.MemoryID
	Kind         issuer.LinkKind
}
