package issuing

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestDated: dated compares instants and decides as the UTC year does,
// at the bounds, in other zones and at random instants.
func TestDated(t *testing.T) {
	byYear := func(t time.Time) bool { y := t.UTC().Year(); return y >= 1970 && y <= 9999 }
	east := time.FixedZone("east", 5*3600)
	times := []time.Time{
		firstDated, firstDated.Add(-time.Nanosecond), afterDated, afterDated.Add(-time.Nanosecond),
		time.Date(1970, 1, 1, 3, 0, 0, 0, east), time.Date(1970, 1, 1, 6, 0, 0, 0, east), {},
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 10_000 {
		times = append(times, time.Unix(r.Int64N(400_000_000_000)-100_000_000_000, r.Int64N(1e9)).In(east))
	}
	for _, tm := range times {
		if dated(tm) != byYear(tm) {
			t.Fatalf("dated(%v) = %v; the UTC year says %v", tm, dated(tm), byYear(tm))
		}
	}
}
