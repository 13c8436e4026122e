package httpapi_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/httpapi"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
)

// feedIDs returns the IDs of a feed page's results, in order.
func feedIDs(p issuer.FeedPage) []issuer.MemoryID {
	var out []issuer.MemoryID
	for _, r := range p.Results {
		out = append(out, r.ID)
	}
	return out
}

// TestMemoryFeedOverHTTP: the feed shows a reader the memories it may
// read, oldest first, with statuses in its view; a waiting reader gets a
// memory published meanwhile over loopback; private memories and authors
// the reader's trust does not reach never appear; cursors are sealed for
// their reader; browse counts what the feed shows.
func TestMemoryFeedOverHTTP(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, httpapi.Config{})
		readerKey, _ := e.agent("reader")
		otherKey, _ := e.agent("other reader")
		authorKey, _ := e.agent("author")
		strangerKey, _ := e.agent("stranger")
		var m1, s1, p1 issuer.Memory
		must(t, e.do(authorKey, "POST", "/api/memories", `{"category":"SQL","title":"Vacuum tuning","content":"Lower the scale factor.","appliesTo":{"skill":"PostgreSQL tuning"}}`), 201).json(t, &m1)
		must(t, e.do(readerKey, "GET", "/api/memories/"+string(m1.ID), ""), 200)
		must(t, e.do(readerKey, "POST", "/api/memories/"+string(m1.ID)+"/feedback", `{"type":"corroborate","reason":"reproduced"}`), 200)
		must(t, e.do(strangerKey, "POST", "/api/memories", `{"category":"sql","title":"Drop the indexes","content":"Faster writes."}`), 201).json(t, &s1)
		must(t, e.do(authorKey, "POST", "/api/memories", `{"category":"sql","title":"Private note","content":"Mine.","visibility":"private"}`), 201).json(t, &p1)

		var first issuer.FeedPage
		must(t, e.do(readerKey, "GET", "/api/memories/feed?wait=0", ""), 200).json(t, &first)
		if ids := feedIDs(first); len(ids) != 1 || ids[0] != m1.ID || first.Results[0].Status != issuer.StatusConfirmed || first.HiddenLowTrust != 1 || first.More {
			t.Fatalf("first page %+v", first)
		}

		// A waiting reader gets the public memory published while it
		// waits, not the private one published before it.
		type answer struct {
			status int
			page   issuer.FeedPage
			err    error
		}
		got := make(chan answer, 1)
		go func() {
			req, err := http.NewRequest("GET", e.srv.URL+"/api/memories/feed?wait=30&after="+url.QueryEscape(first.Cursor), nil)
			if err != nil {
				got <- answer{err: err}
				return
			}
			req.Header.Set("Authorization", "Bearer "+string(readerKey))
			res, err := e.srv.Client().Do(req)
			if err != nil {
				got <- answer{err: err}
				return
			}
			defer res.Body.Close()
			var a answer
			a.status = res.StatusCode
			b, _ := io.ReadAll(res.Body)
			a.err = json.Unmarshal(b, &a.page)
			got <- a
		}()
		var p2, m2 issuer.Memory
		must(t, e.do(authorKey, "POST", "/api/memories", `{"category":"sql","title":"Second private","content":"Mine too.","visibility":"private"}`), 201).json(t, &p2)
		must(t, e.do(authorKey, "POST", "/api/memories", `{"category":"sql","title":"Autovacuum workers","content":"Raise them on big hosts."}`), 201).json(t, &m2)
		a := <-got
		// An empty answer is the 30-second wait running out: the
		// publication did not wake the reader.
		if a.err != nil || a.status != 200 || len(a.page.Results) != 1 || a.page.Results[0].ID != m2.ID || a.page.Results[0].Status != issuer.StatusUnverified {
			t.Fatalf("waiting reader: %+v", a)
		}

		// Filters: the least status and the category (normalised).
		var confirmed issuer.FeedPage
		must(t, e.do(readerKey, "GET", "/api/memories/feed?wait=0&minStatus=confirmed&category=Sql", ""), 200).json(t, &confirmed)
		if ids := feedIDs(confirmed); len(ids) != 1 || ids[0] != m1.ID {
			t.Fatalf("confirmed %+v", confirmed)
		}
		var none issuer.FeedPage
		must(t, e.do(readerKey, "GET", "/api/memories/feed?wait=0&category=rust", ""), 200).json(t, &none)
		if len(none.Results) != 0 || none.Cursor == "" {
			t.Fatalf("rust %+v", none)
		}
		// One memory a page: the cursor reads on, More says there is more.
		var one issuer.FeedPage
		must(t, e.do(readerKey, "GET", "/api/memories/feed?wait=0&limit=1", ""), 200).json(t, &one)
		if ids := feedIDs(one); len(ids) != 1 || ids[0] != m1.ID || !one.More {
			t.Fatalf("limit 1 %+v", one)
		}
		// The author sees its own private memories; others never do.
		var own issuer.FeedPage
		must(t, e.do(authorKey, "GET", "/api/memories/feed?wait=0", ""), 200).json(t, &own)
		for _, r := range own.Results {
			if r.ID == s1.ID {
				t.Fatalf("the author's feed shows the stranger: %+v", own)
			}
		}

		// A cursor is its reader's: another's, an altered one or junk is
		// refused.
		wantProblem(t, e.do(otherKey, "GET", "/api/memories/feed?wait=0&after="+url.QueryEscape(first.Cursor), ""), 400, issuer.CodeCursorInvalid)
		wantProblem(t, e.do(readerKey, "GET", "/api/memories/feed?wait=0&after=AAAA"+first.Cursor[4:], ""), 400, issuer.CodeCursorInvalid)
		for _, q := range []string{"wait=31", "wait=-1", "limit=0", "limit=51", "minStatus=great", "category=%20", "after=%21", "since=1", "wait=1&wait=2"} {
			r := e.do(readerKey, "GET", "/api/memories/feed?"+q, "")
			if r.status != 400 {
				t.Fatalf("%s: %d %s", q, r.status, r.body)
			}
		}

		var m issuer.BrowseMap
		must(t, e.do(readerKey, "GET", "/api/memories/browse", ""), 200).json(t, &m)
		want := issuer.BrowseGroup{Label: "sql", Entries: 2, Confirmed: 1}
		if len(m.Domains) != 1 || m.Domains[0] != want || len(m.Skills) != 1 || m.Skills[0].Label != "PostgreSQL tuning" || m.HiddenLowTrust != 1 {
			t.Fatalf("browse %+v", m)
		}
		wantProblem(t, e.do(readerKey, "GET", "/api/memories/browse?x=1", ""), 400, issuer.CodeInvalid)
	})
}

// statuses records the status of every answered feed read.
type statuses struct {
	mu   sync.Mutex
	seen []int
}

func (o *statuses) ObserveRequest(method, route string, status int, elapsed time.Duration, written int64) {
	if route != "/api/memories/feed" {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.seen = append(o.seen, status)
}

func (o *statuses) last() []int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.seen)
}

// TestFeedClientGoneIsNoFault: a reader that hangs up while its feed read
// waits is recorded as 499, not as a server fault (5xx).
func TestFeedClientGoneIsNoFault(t *testing.T) {
	db := storetest.Open(t, store.SQLite, store.Options{})
	obs := &statuses{}
	e := newEnv(t, db, httpapi.Config{Observer: obs})
	key, _ := e.agent("reader")
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", e.srv.URL+"/api/memories/feed?wait=30", nil)
	req.Header.Set("Authorization", "Bearer "+string(key))
	done := make(chan error, 1)
	go func() {
		res, err := e.srv.Client().Do(req)
		if err == nil {
			res.Body.Close()
		}
		done <- err
	}()
	// Cancel once the read is waiting: the server has answered nothing
	// yet, so the request is still open.
	time.Sleep(200 * time.Millisecond)
	cancel()
	if err := <-done; err == nil {
		t.Fatal("the read was answered before its client went away")
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if seen := obs.last(); len(seen) > 0 {
			if len(seen) != 1 || seen[0] != httpapi.StatusClientClosed {
				t.Fatalf("a read whose client went away was recorded as %v", seen)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no answer recorded: %v", obs.last())
		}
	}
}
