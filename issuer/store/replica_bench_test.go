package store_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
)

// BenchmarkReplica starts a primary and a streaming replica of it on this
// machine and measures:
//
//   - lag: how long after a publication commits on the primary its memory
//     is visible on the replica, beside the publication's own time, the
//     baseline of the same run;
//   - load-subject: passport assembly reads (LoadSubject of a subject at
//     the collection limits) by four concurrent clients, through the
//     replica and on the primary alone, in alternating rounds of the same
//     run; the ratio is replica/primary;
//   - search: searches of the lag's publications, measured the same way.
//
// Both servers share this machine's cores: the ratios show what routing a
// read through the replica costs, not the capacity a replica on a machine
// of its own adds.
func BenchmarkReplica(b *testing.B) {
	pair := storetest.StartReplicated(b)
	ctx := context.Background()
	replicated := pair.Open(store.Options{MaxOpenConns: 8})
	primary, err := store.Open(ctx, pair.PrimaryURL, store.Options{MaxOpenConns: 8, Logger: storetest.Logger(b)})
	if err != nil {
		b.Fatal(err)
	}
	defer primary.Close()
	id := seedAtLimits(b, primary)
	author := storetest.Principal(b, primary, "lag author")
	if err := pair.Sync(ctx); err != nil {
		b.Fatal(err)
	}

	b.Run("lag", func(b *testing.B) {
		app := svc(primary)
		var publish, lag []time.Duration
		for i := range b.N {
			t0 := time.Now()
			m, err := app.Publish(ctx, author, issuer.Publication{Category: "sql", Domain: "sql", Title: fmt.Sprint("Replication finding ", i),
				Content: "What was found about replication.", Confidence: 500})
			if err != nil {
				b.Fatal(err)
			}
			t1 := time.Now()
			for seen := false; !seen; {
				if err := pair.Replica().QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM memories WHERE public_id = $1)`, m.ID).Scan(&seen); err != nil {
					b.Fatal(err)
				}
			}
			publish, lag = append(publish, t1.Sub(t0)), append(lag, time.Since(t1))
		}
		slices.Sort(publish)
		slices.Sort(lag)
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
		b.ReportMetric(ms(publish[len(publish)/2]), "publish-ms-p50")
		b.ReportMetric(ms(lag[len(lag)/2]), "lag-ms-p50")
		b.ReportMetric(ms(lag[len(lag)*95/100]), "lag-ms-p95")
		b.ReportMetric(ms(lag[len(lag)-1]), "lag-ms-max")
		b.ReportMetric(float64(lag[len(lag)/2])/float64(publish[len(publish)/2]), "lag/publish")
	})
	if err := pair.Sync(ctx); err != nil {
		b.Fatal(err)
	}
	b.Run("load-subject", func(b *testing.B) {
		readRounds(b, primary, replicated, func(db *store.DB) error {
			_, err := db.LoadSubject(ctx, id, time.Now)
			return err
		})
		if kept, again := replicated.ReplicaSubjects(); again > 0 || kept == 0 {
			b.Fatalf("%d subjects kept from the replica, %d read again on the primary: the replica was not read alone", kept, again)
		}
	})
	b.Run("search", func(b *testing.B) {
		readRounds(b, primary, replicated, func(db *store.DB) error {
			_, _, err := db.SearchCandidates(ctx, author.Key, []string{"replication"}, issuer.SearchWindow)
			return err
		})
	})
}

// readRounds runs read b.N times by four concurrent clients on each of
// primary and replicated, in two alternating rounds each, and reports the
// reads per second of each and their ratio.
func readRounds(b *testing.B, primary, replicated *store.DB, read func(db *store.DB) error) {
	const clients = 4
	rate := map[*store.DB]float64{}
	for range 2 {
		for _, db := range []*store.DB{primary, replicated} {
			var wg sync.WaitGroup
			errs := make(chan error, clients)
			start := time.Now()
			for c := range clients {
				wg.Go(func() {
					for i := c; i < b.N; i += clients {
						if err := read(db); err != nil {
							errs <- err
							return
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			if err := <-errs; err != nil {
				b.Fatal(err)
			}
			rate[db] += float64(b.N) / time.Since(start).Seconds() / 2
		}
	}
	b.ReportMetric(rate[primary], "primary-reads/s")
	b.ReportMetric(rate[replicated], "replica-reads/s")
	b.ReportMetric(rate[replicated]/rate[primary], "replica/primary")
}
