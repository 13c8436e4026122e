package service

import (
	"container/list"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/trustgraph"
)

// searchState is the service's search configuration and its cache of
// readers' trust.
type searchState struct {
	opts  SearchOptions
	cache *trustCache
}

func newSearchState(opts SearchOptions) *searchState {
	if opts.FanOut <= 0 {
		opts.FanOut = DefaultFanOut
	}
	if opts.CacheSize <= 0 {
		opts.CacheSize = DefaultTrustCacheSize
	}
	if opts.CacheTTL <= 0 {
		opts.CacheTTL = DefaultTrustCacheTTL
	}
	return &searchState{opts: opts, cache: newTrustCache(opts.CacheSize, opts.CacheTTL)}
}

// readerScores is a reader's propagated trust by agent key, and whether
// its graph carries weight: whether the propagation gives a positive score
// to an agent other than the reader. While it does not, every agent's
// weight gets its cold-start floor (SPEC.md §15.4).
type readerScores struct {
	trust   map[int64]float64
	carries bool
}

// weight is an agent first seen at since: its propagated trust plus its
// floor (SPEC.md §15.4) at now.
func (r readerScores) weight(agent int64, since, now time.Time) float64 {
	w := r.trust[agent]
	if f, err := trustgraph.ReaderFloor(now.Sub(since).Hours()/24, trustgraph.DefaultFloorCap, r.carries); err == nil {
		w += f
	}
	return w
}

// readerTrust returns the reader's propagated trust by agent key, from
// p's own trust set (p and the authors p validated positively) or from the
// explicit trust set, with the explicit IDs that name no listed agent.
// The trust is cached per trust set for the cache's TTL.
func (s *Service) readerTrust(ctx context.Context, p issuer.Principal, explicit []issuer.AgentID) (readerScores, []issuer.AgentID, error) {
	var (
		key     string
		seeds   []int64
		unknown []issuer.AgentID
	)
	if len(explicit) == 0 {
		key = "own:" + strconv.FormatInt(p.Key, 10)
	} else {
		found, err := s.store.ResolveTrustSet(ctx, explicit)
		if err != nil {
			return readerScores{}, nil, err
		}
		for _, id := range explicit {
			if k, ok := found[id]; ok {
				seeds = append(seeds, k)
			} else {
				unknown = append(unknown, id)
			}
		}
		if len(seeds) == 0 {
			return readerScores{}, nil, issuer.Errorf(issuer.CodeInvalid, "trust names no listed agent: a trust set is the agents whose judgement you trust directly")
		}
		slices.Sort(seeds)
		parts := make([]string, len(seeds))
		for i, k := range seeds {
			parts[i] = strconv.FormatInt(k, 10)
		}
		key = "set:" + strings.Join(parts, ",")
	}
	now := s.now()
	if t, ok := s.search.cache.get(key, now); ok {
		return scoresOf(t, p.Key), unknown, nil
	}
	if len(explicit) == 0 {
		direct, err := s.store.TrustSeeds(ctx, p.Key, MaxOwnTrustSeeds)
		if err != nil {
			return readerScores{}, nil, err
		}
		seeds = append([]int64{p.Key}, direct...)
	}
	trust, err := s.propagate(ctx, seeds)
	if err != nil {
		return readerScores{}, nil, err
	}
	s.search.cache.put(key, trust, now)
	return scoresOf(trust, p.Key), unknown, nil
}

// scoresOf is reader's view of trust: whether it carries weight is
// whether an agent other than reader has a positive score.
func scoresOf(trust map[int64]float64, reader int64) readerScores {
	for k, t := range trust {
		if k != reader && t > 0 {
			return readerScores{trust: trust, carries: true}
		}
	}
	return readerScores{trust: trust}
}

// propagate reads seeds' neighbourhood and propagates trust from them
// (SPEC.md §15.2, at the default damping and depth). The out-weight the
// fan-out cap left unread goes to a node that passes nothing on, so the
// cap never gives a node more trust than the whole graph would.
func (s *Service) propagate(ctx context.Context, seeds []int64) (map[int64]float64, error) {
	edges, err := s.store.TrustNeighbourhood(ctx, seeds, trustgraph.DefaultDepth, s.search.opts.FanOut)
	if err != nil {
		return nil, err
	}
	read := map[int64]int64{}
	total := map[int64]int64{}
	ge := make([]trustgraph.Edge, 0, len(edges)+8)
	for _, e := range edges {
		ge = append(ge, trustgraph.Edge{Source: agentNode(e.Source), Target: agentNode(e.Target), Weight: float64(e.Weight)})
		read[e.Source] += e.Weight
		total[e.Source] = e.Total
	}
	for src, t := range total {
		if rest := t - read[src]; rest > 0 {
			ge = append(ge, trustgraph.Edge{Source: agentNode(src), Target: restNode, Weight: float64(rest)})
		}
	}
	g, err := trustgraph.NewGraph(ge)
	if err != nil {
		return nil, fmt.Errorf("service: trust graph: %w", err)
	}
	ids := make([]string, len(seeds))
	for i, k := range seeds {
		ids[i] = agentNode(k)
	}
	res, err := trustgraph.Propagate(g, ids, trustgraph.PropagateOptions{})
	if err != nil {
		return nil, fmt.Errorf("service: propagate: %w", err)
	}
	out := make(map[int64]float64, len(res.Scores))
	for _, sc := range res.Scores {
		if k, err := strconv.ParseInt(sc.ID, 10, 64); err == nil {
			out[k] = sc.Score
		}
	}
	return out, nil
}

// trustCache is a bounded LRU of readers' propagated trust, each entry
// reused for ttl after it was computed. Entries are never mutated after
// they are stored.
type trustCache struct {
	mu    sync.Mutex
	size  int
	ttl   time.Duration
	order *list.List // front: most recently used
	items map[string]*list.Element
}

type trustEntry struct {
	key   string
	trust map[int64]float64
	at    time.Time
}

func newTrustCache(size int, ttl time.Duration) *trustCache {
	return &trustCache{size: size, ttl: ttl, order: list.New(), items: map[string]*list.Element{}}
}

func (c *trustCache) get(key string, now time.Time) (map[int64]float64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[key]
	if !ok {
		return nil, false
	}
	e := el.Value.(*trustEntry)
	if now.Sub(e.at) >= c.ttl || now.Before(e.at) {
		c.order.Remove(el)
		delete(c.items, key)
		return nil, false
	}
	c.order.MoveToFront(el)
	return e.trust, true
}

func (c *trustCache) put(key string, trust map[int64]float64, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[key]; ok {
		el.Value = &trustEntry{key: key, trust: trust, at: now}
		c.order.MoveToFront(el)
		return
	}
	c.items[key] = c.order.PushFront(&trustEntry{key: key, trust: trust, at: now})
	for c.order.Len() > c.size {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.items, last.Value.(*trustEntry).key)
	}
}

// len returns the number of cached readers.
func (c *trustCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
