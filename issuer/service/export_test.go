package service

import "context"

// Propagate exposes the reader's propagation to the external tests.
func (s *Service) Propagate(ctx context.Context, seeds []int64) (map[int64]float64, error) {
	return s.propagate(ctx, seeds)
}
