package store_test

import (
	"context"
	"flag"
	"fmt"
	"testing"
	"time"

	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
)

// sweepMillion adds 1,000,000 memories to BenchmarkSweep's sizes: minutes
// of seeding and sweeping on each engine.
var sweepMillion = flag.Bool("sweep.million", false, "BenchmarkSweep also at 1,000,000 memories")

// BenchmarkSweep measures the storage sweep (SPEC.md §15.10) on the search
// benchmark's graph with knowledge, at 10,000 and 100,000 memories (-short:
// 10,000 only; -sweep.million adds 1,000,000): in the loop, a dry run to half of what is held (the whole
// plan: the budget's count, the eviction order with its guarantees, read
// until enough is planned), beside the baseline of one read of every
// memory body's length in the same loop; then once, the real sweep to that
// budget, in batches of 500.
func BenchmarkSweep(b *testing.B) {
	sizes := []int{10_000, 100_000}
	if testing.Short() {
		sizes = sizes[:1]
	}
	if *sweepMillion {
		sizes = append(sizes, 1_000_000)
	}
	for _, e := range storetest.Engines(b) {
		for _, n := range sizes {
			b.Run(fmt.Sprintf("%s/%d", e, n), func(b *testing.B) {
				db := storetest.Open(b, e, store.Options{Logger: storetest.Logger(b)})
				reader := seedSearchGraphN(b, db, n)
				seedKnowledge(b, db, reader)
				ctx := context.Background()
				held, err := db.SweepStorage(ctx, service.SweepOptions{Budget: 1 << 50, DryRun: true})
				if err != nil {
					b.Fatal(err)
				}
				budget := held.HeldBefore / 2
				x := db.UnsafeSQL()
				var tPlan, tBase time.Duration
				var plan service.SweepReport
				runs := 0
				b.ReportAllocs()
				for b.Loop() {
					runs++
					t0 := time.Now()
					var total int64
					if err := x.GetContext(ctx, &total, `SELECT COALESCE(SUM(LENGTH(content)), 0) FROM memories`); err != nil {
						b.Fatal(err)
					}
					tBase += time.Since(t0)
					t0 = time.Now()
					if plan, err = db.SweepStorage(ctx, service.SweepOptions{Budget: budget, DryRun: true}); err != nil {
						b.Fatal(err)
					}
					tPlan += time.Since(t0)
				}
				b.StopTimer()
				t0 := time.Now()
				done, err := db.SweepStorage(ctx, service.SweepOptions{Budget: budget})
				if err != nil {
					b.Fatal(err)
				}
				tSweep := time.Since(t0)
				if done.Memories != plan.Memories || done.Memories == 0 {
					b.Fatalf("planned %d bodies, evicted %d", plan.Memories, done.Memories)
				}
				per := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(runs) / 1000 }
				b.ReportMetric(per(tBase), "ms-read-lengths")
				b.ReportMetric(per(tPlan), "ms-plan")
				b.ReportMetric(float64(tPlan)/float64(tBase), "plan/read")
				b.ReportMetric(float64(tSweep.Milliseconds()), "ms-sweep")
				b.ReportMetric(float64(done.Memories), "evicted")
			})
		}
	}
}
