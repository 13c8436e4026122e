package httpapi_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/httpapi"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
)

// BenchmarkFeedbackHTTP measures validation submissions over HTTP on
// loopback, through the whole stack (authentication, rate limits, decoding,
// the service, the store), with 8 and 32 clients. Each client is an
// evaluator with its own API key, alternating the type of its position on
// each memory of 16 authors, so that every submission replaces a position.
// It reports submissions per second, the 99th-percentile latency, and as a
// baseline from the same run the rate of one-row durable writes from the
// same number of clients, with the ratio between the two.
func BenchmarkFeedbackHTTP(b *testing.B) {
	for _, engine := range storetest.Engines(b) {
		for _, clients := range []int{8, 32} {
			b.Run(fmt.Sprintf("%s/clients=%d", engine, clients), func(b *testing.B) {
				benchFeedbackHTTP(b, engine, clients)
			})
		}
	}
}

func benchFeedbackHTTP(b *testing.B, engine store.Engine, clients int) {
	ctx := context.Background()
	db := storetest.Open(b, engine, store.Options{MaxOpenConns: 32, Logger: storetest.Logger(b)})
	app := storetest.Service(db)
	srv := httptest.NewServer(httpapi.New(app, storetest.Logger(b), httpapi.Config{RatePerSecond: 1e6, Burst: 1e6}))
	defer srv.Close()
	tr := &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}

	var memories []issuer.MemoryID
	for i := range 16 {
		a, err := storetest.Admin(db).CreateAgent(ctx, service.NewAgent{Name: fmt.Sprint("author ", i)})
		if err != nil {
			b.Fatal(err)
		}
		p, err := app.Authenticate(ctx, a.Key)
		if err != nil {
			b.Fatal(err)
		}
		for range 8 {
			m, err := app.Publish(ctx, p, issuer.Publication{Category: "bench", Domain: "bench", Title: "t", Content: "c", Confidence: 500})
			if err != nil {
				b.Fatal(err)
			}
			memories = append(memories, m.ID)
		}
	}
	keys := make([]issuer.APIKey, clients)
	for i := range keys {
		a, err := storetest.Admin(db).CreateAgent(ctx, service.NewAgent{Name: fmt.Sprint("evaluator ", i)})
		if err != nil {
			b.Fatal(err)
		}
		keys[i] = a.Key
	}
	if _, err := db.UnsafeSQL().Exec(`INSERT INTO retrievals (agent_id, memory_id, created_at)
		SELECT a.id, m.id, m.created_at FROM agents a CROSS JOIN memories m WHERE a.name LIKE 'evaluator %'`); err != nil {
		b.Fatal(err)
	}

	submit := func(key issuer.APIKey, n int) (time.Duration, error) {
		m := memories[n%len(memories)]
		typ := "corroborate"
		if (n/len(memories))%2 == 1 {
			typ = "contradict"
		}
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/api/memories/"+string(m)+"/feedback", strings.NewReader(`{"type":"`+typ+`"}`))
		if err != nil {
			return 0, err
		}
		req.Header.Set("Authorization", "Bearer "+string(key))
		req.Header.Set("Content-Type", "application/json")
		start := time.Now()
		res, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			return 0, fmt.Errorf("status %d", res.StatusCode)
		}
		return time.Since(start), nil
	}

	var next atomic.Int64
	latencies := make([][]time.Duration, clients)
	var failed atomic.Value
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for c := range clients {
		wg.Go(func() {
			n := c * len(memories) / clients
			for next.Add(1) <= int64(b.N) {
				d, err := submit(keys[c], n)
				if err != nil {
					failed.Store(err)
					return
				}
				latencies[c] = append(latencies[c], d)
				n++
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if err, ok := failed.Load().(error); ok {
		b.Fatal(err)
	}
	all := slices.Concat(latencies...)
	slices.Sort(all)
	rate := float64(b.N) / elapsed.Seconds()
	floor := storetest.CommitFloor(b, db, clients, b.N)
	b.ReportMetric(rate, "submissions/s")
	b.ReportMetric(float64(all[len(all)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(floor, "floor-tx/s")
	b.ReportMetric(rate/floor, "of-floor")
}
