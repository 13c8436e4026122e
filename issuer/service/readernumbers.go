package service

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/remnant/passportkit/issuer"
)

// ReaderAgent is an agent as the reader's numbers name it.
type ReaderAgent struct {
	Key   int64
	ID    issuer.AgentID
	Since time.Time
}

// ReaderNumbersStore is what the reader's numbers need of a store beyond
// search. issuer/store implements it for both engines.
type ReaderNumbersStore interface {
	// ReaderAgents returns the agents named by key or by public ID,
	// whatever their status or visibility.
	ReaderAgents(ctx context.Context, keys []int64, ids []issuer.AgentID) ([]ReaderAgent, error)
}

// ReaderWeight is an author's weight in one reader's view, in numbers: what
// the reader's labels are computed from (SPEC.md §15.9). It is for the
// operator's eyes; agents see labels and counts only.
type ReaderWeight struct {
	Author issuer.AgentID
	// Trust is the author's propagated trust from the reader's own trust
	// set; Floor its floor (SPEC.md §15.4: the cold-start floor while the
	// reader's graph carries no weight, else 0); Weight their sum.
	Trust, Floor, Weight float64
	// Shown reports that search and the feed show the author's memories
	// to the reader: its weight is above the threshold.
	Shown bool
}

// MaxReaderWeights bounds the authors [Service.ReaderNumbers] lists.
const MaxReaderWeights = 50

// ReaderNumbers returns the reader-local numbers of reader's view (its own
// trust set, as search computes it): author's weight when author is not
// "", else the at most [MaxReaderWeights] authors its trust reaches,
// heaviest first, then by ID. An unknown reader or author is not_found.
func (s *Service) ReaderNumbers(ctx context.Context, reader, author issuer.AgentID) ([]ReaderWeight, error) {
	ids := []issuer.AgentID{reader}
	if author != "" {
		ids = append(ids, author)
	}
	named, err := s.store.ReaderAgents(ctx, nil, ids)
	if err != nil {
		return nil, err
	}
	byID := map[issuer.AgentID]ReaderAgent{}
	for _, a := range named {
		byID[a.ID] = a
	}
	for _, id := range ids {
		if _, ok := byID[id]; !ok {
			return nil, issuer.Errorf(issuer.CodeNotFound, "agent %s not found", id)
		}
	}
	trust, _, err := s.readerTrust(ctx, issuer.Principal{Key: byID[reader].Key, AgentID: reader}, nil)
	if err != nil {
		return nil, err
	}
	agents := []ReaderAgent{byID[author]}
	if author == "" {
		keys := make([]int64, 0, len(trust.trust))
		for k := range trust.trust {
			keys = append(keys, k)
		}
		if agents, err = s.store.ReaderAgents(ctx, keys, nil); err != nil {
			return nil, err
		}
	}
	now := s.now()
	out := make([]ReaderWeight, 0, len(agents))
	for _, a := range agents {
		w := ReaderWeight{Author: a.ID, Trust: trust.trust[a.Key], Weight: trust.weight(a.Key, a.Since, now)}
		w.Floor = w.Weight - w.Trust
		w.Shown = w.Weight > s.search.opts.MinAuthorTrust
		out = append(out, w)
	}
	slices.SortFunc(out, func(a, b ReaderWeight) int {
		return cmp.Or(cmp.Compare(b.Weight, a.Weight), cmp.Compare(a.Author, b.Author))
	})
	return out[:min(len(out), MaxReaderWeights)], nil
}
