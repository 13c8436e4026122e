package service

import (
	"cmp"
	"context"
	"encoding/binary"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/remnant/passportkit/internal/seal"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/trustgraph"
)

// FeedStore is what the memory feed and browsing need of a store beyond
// search. issuer/store implements it for both engines.
type FeedStore interface {
	// FeedCandidates returns the at most max memories viewer may read
	// whose key is above after, in domain unless it is "", in key order,
	// and whether more follow.
	FeedCandidates(ctx context.Context, viewer, after int64, domain string, max int) ([]SearchCandidate, bool, error)
	// BrowseCandidates returns the at most max newest memories viewer
	// may read, each with the skill it applies to, and whether more are
	// readable.
	BrowseCandidates(ctx context.Context, viewer int64, max int) ([]BrowseCandidate, bool, error)
}

// BrowseCandidate is a memory a browse map counts, with the skill its
// appliesTo names ("" for none).
type BrowseCandidate struct {
	SearchCandidate
	Skill string
}

// FeedPurpose is the purpose feed cursors are sealed for.
const FeedPurpose = "memory-feed"

// feedCursorVersion is the first byte of a feed cursor's payload.
const feedCursorVersion = 1

// feedNotifier wakes the feed's waiting readers when memories may have
// been published: one channel, closed and replaced at each wake, that
// every waiter selects on. A waiter costs a goroutine parked on it and
// nothing else while idle.
type feedNotifier struct {
	mu sync.Mutex
	ch chan struct{}
	// gen counts the wakes: ch is the channel of wake gen.
	gen uint64
	// waiting counts the reads parked on ch.
	waiting atomic.Int64
	// reads shares one read among the readers that ask the same
	// question in the same generation (see [Service.sharedFeedPage]).
	reads flights[feedReadKey, feedRead]
}

func newFeedNotifier() *feedNotifier { return &feedNotifier{ch: make(chan struct{})} }

// wait returns the channel the next wake closes, and its generation.
func (n *feedNotifier) wait() (<-chan struct{}, uint64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.ch, n.gen
}

// wake wakes every waiter.
func (n *feedNotifier) wake() {
	n.mu.Lock()
	defer n.mu.Unlock()
	close(n.ch)
	n.ch = make(chan struct{})
	n.gen++
}

// feedReadKey is what determines a feed page: the notifier's generation
// when the read was asked for, the reader (what it may read and its trust
// view), the position and the filters.
type feedReadKey struct {
	gen       uint64
	reader    int64
	after     int64
	domain    string
	minStatus string
	limit     int
}

// feedRead is one page of the feed and the key of the last memory read.
type feedRead struct {
	page issuer.FeedPage
	last int64
}

// MemoriesChanged wakes the feed's waiting readers, so that each reads
// again: the service calls it after every publication it records;
// cmd/passport-issuer also calls it at every change another process
// announces (store.DB.ListenRevisions on PostgreSQL).
func (s *Service) MemoriesChanged() { s.feed.wake() }

// Feed reads the memory feed for p (search scope, SPEC.md §15.9): the
// memories p may read published after q.After, oldest first, with their
// status in p's view, authors p's trust does not reach left out as search
// leaves them out, and q's status and category filters applied. When none
// is shown it waits up to q.Wait for a publication, then reads again; the
// page's cursor is past every memory read, shown or not.
func (s *Service) Feed(ctx context.Context, p issuer.Principal, q issuer.FeedQuery) (issuer.FeedPage, error) {
	if err := p.Require(issuer.ScopeSearch); err != nil {
		return issuer.FeedPage{Results: []issuer.SearchResult{}}, err
	}
	after, err := openFeedCursor(s.cursors, p.Key, q.After)
	if err != nil {
		return issuer.FeedPage{Results: []issuer.SearchResult{}}, err
	}
	var expired <-chan time.Time
	if q.Wait > 0 {
		wait := q.Wait
		if s.feedWaitCap > 0 {
			wait = min(wait, s.feedWaitCap)
		}
		t := time.NewTimer(wait)
		defer t.Stop()
		expired = t.C
	}
	for {
		// Taken before reading, so that a publication committed during
		// the read still wakes this reader.
		woken, gen := s.feed.wait()
		page, last, err := s.sharedFeedPage(ctx, p, q, after, gen)
		if err != nil || len(page.Results) > 0 || page.More || expired == nil {
			return page, err
		}
		after = last
		s.feed.waiting.Add(1)
		select {
		case <-woken:
			s.feed.waiting.Add(-1)
		case <-expired:
			s.feed.waiting.Add(-1)
			return page, nil
		case <-ctx.Done():
			s.feed.waiting.Add(-1)
			return page, ctx.Err()
		}
	}
}

// sharedFeedPage is [Service.feedPage], read once for every read that
// asks the same question (the same reader, position and filters) while
// the notifier is at generation gen, as the readers one wake wakes do.
// Each gets what it would read alone: a read started in generation gen
// began after gen's wake, and a publication it may have missed wakes gen
// (or a later generation, after gen's channel is closed), so every reader
// that shares it is woken again. The read outlives a reader that gives up.
func (s *Service) sharedFeedPage(ctx context.Context, p issuer.Principal, q issuer.FeedQuery, after int64, gen uint64) (issuer.FeedPage, int64, error) {
	key := feedReadKey{gen: gen, reader: p.Key, after: after, domain: q.Domain, minStatus: q.MinStatus, limit: q.Limit}
	f, _ := s.feed.reads.start(key, func() (feedRead, error) {
		page, last, err := s.feedPage(context.WithoutCancel(ctx), p, q, after)
		return feedRead{page: page, last: last}, err
	})
	r, err := f.wait(ctx)
	if err != nil {
		return issuer.FeedPage{Results: []issuer.SearchResult{}}, after, err
	}
	r.page.Results = slices.Clone(r.page.Results)
	return r.page, r.last, nil
}

// feedPage reads one page of the feed after the key after, and returns it
// with the key of the last memory read.
func (s *Service) feedPage(ctx context.Context, p issuer.Principal, q issuer.FeedQuery, after int64) (issuer.FeedPage, int64, error) {
	page := issuer.FeedPage{Results: []issuer.SearchResult{}, Cursor: sealFeedCursor(s.cursors, p.Key, after)}
	cands, more, err := s.store.FeedCandidates(ctx, p.Key, after, q.Domain, q.Limit)
	if err != nil || len(cands) == 0 {
		return page, after, err
	}
	page.More = more
	last := cands[len(cands)-1].Key
	page.Cursor = sealFeedCursor(s.cursors, p.Key, last)
	view, err := s.viewOf(ctx, p, cands)
	if err != nil {
		return page, after, err
	}
	for _, c := range cands {
		r, err := view.assess(c)
		if err != nil {
			return page, after, err
		}
		if r.LowTrust {
			page.HiddenLowTrust++
			continue
		}
		if q.Admits(r.Status) {
			page.Results = append(page.Results, r.SearchResult)
		}
	}
	return page, last, nil
}

// viewOf returns p's reader view (its own trust set) over cands.
func (s *Service) viewOf(ctx context.Context, p issuer.Principal, cands []SearchCandidate) (*readerView, error) {
	trust, _, err := s.readerTrust(ctx, p, nil)
	if err != nil {
		return nil, err
	}
	keys := make([]int64, len(cands))
	for i, c := range cands {
		keys[i] = c.Key
	}
	sig, err := s.store.SearchSignals(ctx, keys, trustgraph.DefaultDepth)
	if err != nil {
		return nil, err
	}
	return newReaderView(s.search.opts.MinAuthorTrust, trust, sig, s.now()), nil
}

// Browse maps, for p (search scope, SPEC.md §15.9), the newest
// [issuer.BrowseWindow] memories p may read by category, domain and skill,
// each label with its counts of entries, confirmed and contested in p's
// view; authors p's trust does not reach are left out as search leaves
// them out. Each list is ordered by entries, most first, then label, and
// holds at most [issuer.MaxBrowseGroups] labels.
func (s *Service) Browse(ctx context.Context, p issuer.Principal) (issuer.BrowseMap, error) {
	out := issuer.BrowseMap{Categories: []issuer.BrowseGroup{}, Domains: []issuer.BrowseGroup{}, Skills: []issuer.BrowseGroup{}}
	if err := p.Require(issuer.ScopeSearch); err != nil {
		return out, err
	}
	cands, full, err := s.store.BrowseCandidates(ctx, p.Key, issuer.BrowseWindow)
	if err != nil {
		return out, err
	}
	out.WindowFull = full
	plain := make([]SearchCandidate, len(cands))
	for i, c := range cands {
		plain[i] = c.SearchCandidate
	}
	view, err := s.viewOf(ctx, p, plain)
	if err != nil {
		return out, err
	}
	cats, doms, skills := map[string]*issuer.BrowseGroup{}, map[string]*issuer.BrowseGroup{}, map[string]*issuer.BrowseGroup{}
	count := func(m map[string]*issuer.BrowseGroup, label, status string) {
		if label == "" {
			return
		}
		g := m[label]
		if g == nil {
			g = &issuer.BrowseGroup{Label: label}
			m[label] = g
		}
		g.Entries++
		switch status {
		case issuer.StatusConfirmed:
			g.Confirmed++
		case issuer.StatusContested:
			g.Contested++
		}
	}
	for _, c := range cands {
		r, err := view.assess(c.SearchCandidate)
		if err != nil {
			return out, err
		}
		if r.LowTrust {
			out.HiddenLowTrust++
			continue
		}
		count(cats, c.Category, r.Status)
		count(doms, c.Domain, r.Status)
		count(skills, c.Skill, r.Status)
	}
	out.Categories, out.Domains, out.Skills = browseList(cats), browseList(doms), browseList(skills)
	return out, nil
}

// browseList orders a map's groups by entries, most first, then label,
// and keeps the first [issuer.MaxBrowseGroups].
func browseList(m map[string]*issuer.BrowseGroup) []issuer.BrowseGroup {
	out := make([]issuer.BrowseGroup, 0, len(m))
	for _, g := range m {
		out = append(out, *g)
	}
	slices.SortFunc(out, func(a, b issuer.BrowseGroup) int {
		return cmp.Or(cmp.Compare(b.Entries, a.Entries), cmp.Compare(a.Label, b.Label))
	})
	return out[:min(len(out), issuer.MaxBrowseGroups)]
}

// sealFeedCursor returns the cursor after the memory key last in reader's
// feed: a version byte, the reader's key and the memory key (8 bytes each,
// big-endian), in a hidden token, for the keys are internal.
func sealFeedCursor(sl *seal.Sealer, reader, last int64) string {
	b := make([]byte, 0, 17)
	b = append(b, feedCursorVersion)
	b = binary.BigEndian.AppendUint64(b, uint64(reader))
	b = binary.BigEndian.AppendUint64(b, uint64(last))
	return sl.SealHidden(FeedPurpose, b)
}

// openFeedCursor returns the memory key a cursor sealed for reader
// follows; "" is the start (0). Anything else is cursor_invalid.
func openFeedCursor(sl *seal.Sealer, reader int64, token string) (int64, error) {
	if token == "" {
		return 0, nil
	}
	b, err := sl.OpenHidden(FeedPurpose, token)
	if err == nil && len(b) == 17 && b[0] == feedCursorVersion && int64(binary.BigEndian.Uint64(b[1:9])) == reader {
		if key := int64(binary.BigEndian.Uint64(b[9:])); key >= 0 {
			return key, nil
		}
	}
	return 0, issuer.Errorf(issuer.CodeCursorInvalid,
		"after is not a cursor this service returned for this feed: pass back the cursor of a feed page read with the same API key")
}
