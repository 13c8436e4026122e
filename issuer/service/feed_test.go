package service_test

import (
	"context"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
)

// TestFeedWaitersEachGetTheirOwnPage parks many feed reads of several
// readers and filters at once, publishes through another service (as
// another replica would), wakes them with one MemoriesChanged, and checks
// that each read answers exactly what its reader reads alone: its own
// private memories, its own hidden authors, its own statuses and filters.
func TestFeedWaitersEachGetTheirOwnPage(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		app, other := storetest.Service(db), storetest.Service(db)
		author, stranger, trusting, wary := storetest.Agent(t, db, "author"), storetest.Agent(t, db, "stranger"), storetest.Agent(t, db, "trusting reader"), storetest.Agent(t, db, "wary reader")
		publish := func(p issuer.Principal, category, title, visibility string) issuer.MemoryID {
			pub, err := issuer.PublishRequest{Category: category, Title: title, Content: "text", Visibility: &visibility}.Normalize()
			if err != nil {
				t.Fatal(err)
			}
			m, err := other.Publish(ctx, p, pub)
			if err != nil {
				t.Fatal(err)
			}
			return m.ID
		}
		corroborate := func(p issuer.Principal, m issuer.MemoryID) {
			if _, err := other.Retrieve(ctx, p, m); err != nil {
				t.Fatal(err)
			}
			f, err := issuer.ParseFeedback([]byte(`{"type":"corroborate","reason":"reproduced"}`))
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := other.SubmitFeedback(ctx, p, m, f, issuer.TransportHTTP); err != nil {
				t.Fatal(err)
			}
		}
		// The trusting reader trusts the author, the wary one the
		// stranger; every agent is new, so no cold-start floor lifts an
		// author nobody trusts.
		corroborate(trusting, publish(author, "sql", "author's first", "public"))
		corroborate(wary, publish(stranger, "sql", "stranger's first", "public"))

		type reader struct {
			name string
			p    issuer.Principal
			q    issuer.FeedQuery
		}
		readers := []reader{
			{"trusting", trusting, issuer.FeedQuery{}},
			{"trusting confirmed", trusting, issuer.FeedQuery{MinStatus: issuer.StatusConfirmed}},
			{"trusting rust", trusting, issuer.FeedQuery{Domain: "rust"}},
			{"trusting one a page", trusting, issuer.FeedQuery{Limit: 1}},
			{"wary", wary, issuer.FeedQuery{}},
			{"author", author, issuer.FeedQuery{}},
		}
		for i := range readers {
			r := &readers[i]
			if r.q.Limit == 0 {
				r.q.Limit = issuer.DefaultFeedLimit
			}
			start, err := app.Feed(ctx, r.p, issuer.FeedQuery{Limit: issuer.MaxFeedLimit})
			if err != nil || start.More {
				t.Fatalf("%s: start %+v %v", r.name, start, err)
			}
			r.q.After = start.Cursor
		}

		const each = 25
		pages := make([][]issuer.FeedPage, len(readers))
		var wg sync.WaitGroup
		for i, r := range readers {
			pages[i] = make([]issuer.FeedPage, each)
			for j := range each {
				wg.Go(func() {
					q := r.q
					q.Wait = issuer.MaxFeedWait
					page, err := app.Feed(ctx, r.p, q)
					if err != nil {
						t.Errorf("%s %d: %v", r.name, j, err)
					}
					pages[i][j] = page
				})
			}
		}
		for deadline := time.Now().Add(time.Minute); app.FeedWaiters() < len(readers)*each; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%d of %d reads wait", app.FeedWaiters(), len(readers)*each)
			}
		}
		private := publish(author, "sql", "author's note", "private")
		confirmed := publish(author, "sql", "author's tip", "public")
		corroborate(trusting, confirmed)
		rust := publish(author, "rust", "author's rust tip", "public")
		strangers := publish(stranger, "sql", "stranger's tip", "public")
		app.MemoriesChanged()
		wg.Wait()

		// What each reader reads: shown memories (with the status in its
		// view) and the count hidden.
		type shown struct {
			id     issuer.MemoryID
			status string
		}
		want := map[string]struct {
			shown  []shown
			hidden int
			more   bool
		}{
			"trusting":            {[]shown{{confirmed, issuer.StatusConfirmed}, {rust, issuer.StatusUnverified}}, 1, false},
			"trusting confirmed":  {[]shown{{confirmed, issuer.StatusConfirmed}}, 1, false},
			"trusting rust":       {[]shown{{rust, issuer.StatusUnverified}}, 0, false},
			"trusting one a page": {[]shown{{confirmed, issuer.StatusConfirmed}}, 0, true},
			"wary":                {[]shown{{strangers, issuer.StatusUnverified}}, 2, false},
			// The trusting reader's corroboration weighs nothing in the
			// author's view: the author does not trust it.
			"author": {[]shown{{private, issuer.StatusUnverified}, {confirmed, issuer.StatusUnverified}, {rust, issuer.StatusUnverified}}, 1, false},
		}
		for i, r := range readers {
			alone, err := app.Feed(ctx, r.p, r.q)
			if err != nil {
				t.Fatal(err)
			}
			w := want[r.name]
			var got []shown
			for _, res := range alone.Results {
				got = append(got, shown{res.ID, res.Status})
			}
			if !reflect.DeepEqual(got, w.shown) || alone.HiddenLowTrust != w.hidden || alone.More != w.more {
				t.Errorf("%s alone: %+v, hidden %d, more %v; want %+v, hidden %d, more %v", r.name, got, alone.HiddenLowTrust, alone.More, w.shown, w.hidden, w.more)
			}
			for j, page := range pages[i] {
				if !reflect.DeepEqual(page.Results, alone.Results) || page.HiddenLowTrust != alone.HiddenLowTrust || page.More != alone.More {
					t.Fatalf("%s waiter %d got %+v; alone it reads %+v", r.name, j, page, alone)
				}
				// The cursor is the reader's, past the same memories.
				next, err := app.Feed(ctx, r.p, issuer.FeedQuery{After: page.Cursor, Domain: r.q.Domain, MinStatus: r.q.MinStatus, Limit: r.q.Limit})
				if err != nil {
					t.Fatalf("%s waiter %d: cursor: %v", r.name, j, err)
				}
				if after, err := app.Feed(ctx, r.p, issuer.FeedQuery{After: alone.Cursor, Domain: r.q.Domain, MinStatus: r.q.MinStatus, Limit: r.q.Limit}); err != nil ||
					!reflect.DeepEqual(next.Results, after.Results) || next.HiddenLowTrust != after.HiddenLowTrust {
					t.Fatalf("%s waiter %d: after its cursor %+v; after the solo cursor %+v %v", r.name, j, next, after, err)
				}
			}
		}
	})
}
