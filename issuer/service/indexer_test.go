package service_test

import (
	"math"
	"testing"
	"time"

	"github.com/remnant/passportkit/issuer/service"
)

// TestIndexerPacing: after work that took d the indexer pauses so that
// working stays within its share of the time: d×(1−share)/share, nothing
// at a share of 1 or after no work.
func TestIndexerPacing(t *testing.T) {
	for _, c := range []struct {
		work  time.Duration
		share float64
		want  time.Duration
	}{
		{20 * time.Millisecond, 0.2, 80 * time.Millisecond},
		{20 * time.Millisecond, 0.5, 20 * time.Millisecond},
		{3 * time.Millisecond, 0.75, time.Millisecond},
		{20 * time.Millisecond, 1, 0},
		{0, 0.2, 0},
	} {
		if got := service.PauseAfter(c.work, c.share); got != c.want {
			t.Errorf("after %s at share %v: pause %s, want %s", c.work, c.share, got, c.want)
		}
	}
}

// TestIndexerShareDefault: a share that is no share of the time takes the
// default.
func TestIndexerShareDefault(t *testing.T) {
	d := &service.Discovery{}
	for _, share := range []float64{0, -1, 1.5, math.NaN(), math.Inf(1)} {
		if got := service.IndexerShare(d.NewIndexer(service.IndexerOptions{Share: share})); got != service.DefaultIndexShare {
			t.Errorf("share %v: got %v, want the default %v", share, got, service.DefaultIndexShare)
		}
	}
	if got := service.IndexerShare(d.NewIndexer(service.IndexerOptions{Share: 0.5})); got != 0.5 {
		t.Errorf("share 0.5: got %v", got)
	}
}
