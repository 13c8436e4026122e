package service_test

import (
	"context"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
)

// cpuTime returns the process's user and system CPU time.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkFeedWaiters parks 1,000 feed reads on one service, on each
// engine (PostgreSQL when its URL is set), measures the process's CPU time
// over a quiet second while they wait, then publishes one memory and
// measures how long each read takes to answer with it. It reports, and
// asserts nothing about, both: idle-cpu-ms/s, and the median and slowest
// delivery.
func BenchmarkFeedWaiters(b *testing.B) {
	for _, engine := range storetest.Engines(b) {
		b.Run(string(engine), func(b *testing.B) { benchmarkFeedWaiters(b, engine) })
	}
}

func benchmarkFeedWaiters(b *testing.B, engine store.Engine) {
	const waiters = 1000
	ctx := context.Background()
	db := storetest.Open(b, engine, store.Options{})
	app := service.New(db, service.Options{Cursors: storetest.Sealer(b, db)})
	p := storetest.Agent(b, db, "reader")
	publish := func(title string) {
		pub, err := issuer.PublishRequest{Category: "sql", Title: title, Content: "text"}.Normalize()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := app.Publish(ctx, p, pub); err != nil {
			b.Fatal(err)
		}
	}
	publish("first")
	for b.Loop() {
		start, err := app.Feed(ctx, p, issuer.FeedQuery{Limit: 20})
		if err != nil {
			b.Fatal(err)
		}
		var wg sync.WaitGroup
		delivered := make([]time.Time, waiters)
		for i := range waiters {
			wg.Go(func() {
				page, err := app.Feed(ctx, p, issuer.FeedQuery{After: start.Cursor, Wait: issuer.MaxFeedWait, Limit: 20})
				if err != nil || len(page.Results) != 1 {
					b.Errorf("waiter %d: %+v %v", i, page, err)
				}
				delivered[i] = time.Now()
			})
		}
		for app.FeedWaiters() < waiters {
			time.Sleep(10 * time.Millisecond)
		}
		before := cpuTime(b)
		time.Sleep(time.Second)
		idle := cpuTime(b) - before
		t0 := time.Now()
		publish("news")
		wg.Wait()
		lat := make([]time.Duration, waiters)
		for i, d := range delivered {
			lat[i] = d.Sub(t0)
		}
		slices.Sort(lat)
		b.ReportMetric(float64(idle.Microseconds())/1000, "idle-cpu-ms/s")
		b.ReportMetric(float64(lat[waiters/2].Microseconds())/1000, "p50-delivery-ms")
		b.ReportMetric(float64(lat[waiters-1].Microseconds())/1000, "max-delivery-ms")
	}
}
