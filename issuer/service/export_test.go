package service

import (
	"context"
	"time"
)

// Propagate exposes the reader's propagation to the external tests.
func (s *Service) Propagate(ctx context.Context, seeds []int64) (map[int64]float64, error) {
	return s.propagate(ctx, seeds)
}

// PauseAfter and IndexerShare expose the indexer's pacing to the external
// tests.
func PauseAfter(d time.Duration, share float64) time.Duration { return pauseAfter(d, share) }

func IndexerShare(ix *Indexer) float64 { return ix.share }

// FeedWaiters exposes to the external tests how many feed reads are
// parked waiting for a publication.
func (s *Service) FeedWaiters() int { return int(s.feed.waiting.Load()) }
