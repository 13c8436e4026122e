package httpapi_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/httpapi"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
)

func TestSearchOverHTTP(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, httpapi.Config{})
		readerKey, _ := e.agent("reader")
		authorKey, authorID := e.agent("author")
		res := e.do(authorKey, "POST", "/api/memories", `{"category":"sql","title":"Vacuum tuning","content":"Lower the scale factor on hot tables.","confidence":0.5}`)
		if res.status != http.StatusCreated {
			t.Fatalf("publish: %d %s", res.status, res.body)
		}
		var mem issuer.Memory
		res.json(t, &mem)
		if r := e.do(readerKey, "GET", "/api/memories/"+string(mem.ID), ""); r.status != http.StatusOK {
			t.Fatalf("retrieve: %d %s", r.status, r.body)
		}
		if r := e.do(readerKey, "POST", "/api/memories/"+string(mem.ID)+"/feedback", `{"type":"corroborate","reason":"reproduced"}`); r.status != http.StatusOK {
			t.Fatalf("feedback: %d %s", r.status, r.body)
		}
		var page issuer.SearchPage
		r := e.do(readerKey, "GET", "/api/memories/search?q="+url.QueryEscape("vacuum tuning")+"&limit=5", "")
		if r.status != http.StatusOK {
			t.Fatalf("search: %d %s", r.status, r.body)
		}
		r.json(t, &page)
		if len(page.Results) != 1 || page.Results[0].ID != mem.ID || page.Results[0].Status != "confirmed" || page.Results[0].Author != authorID {
			t.Fatalf("page %s", r.body)
		}
		// Labels and counts only: no trust or reputation number.
		for _, word := range []string{"score", "weight", "trust\":0", "reputation"} {
			if strings.Contains(string(r.body), word) {
				t.Fatalf("the page carries %q: %s", word, r.body)
			}
		}

		bad := []struct{ query, code string }{
			{"", "invalid_request"},
			{"q=", "invalid_request"},
			{"q=%21%21", "invalid_request"},
			{"q=x&limit=0", "invalid_request"},
			{"q=x&limit=51", "invalid_request"},
			{"q=x&offset=195&limit=10", "invalid_request"},
			{"q=x&include_low=yes", "invalid_request"},
			{"q=x&q=y", "invalid_request"},
			{"q=x&sort=score", "invalid_request"},
			{"q=x&trust=agt_nope", "invalid_request"},
			{"q=" + strings.Repeat("a", issuer.MaxSearchQuery+1), "invalid_request"},
		}
		for _, b := range bad {
			r := e.do(readerKey, "GET", "/api/memories/search?"+b.query, "")
			if r.status != http.StatusBadRequest || !strings.Contains(r.header.Get("Content-Type"), "problem+json") || !strings.Contains(string(r.body), b.code) {
				t.Errorf("%q: %d %s %s", b.query, r.status, r.header.Get("Content-Type"), r.body)
			}
		}
		if r := e.do("", "GET", "/api/memories/search?q=x", ""); r.status != http.StatusUnauthorized {
			t.Fatalf("anonymous search: %d", r.status)
		}
		noSearch, _ := e.agent("publisher", issuer.ScopePublish)
		if r := e.do(noSearch, "GET", "/api/memories/search?q=x", ""); r.status != http.StatusForbidden {
			t.Fatalf("search without the scope: %d %s", r.status, r.body)
		}
	})
}
