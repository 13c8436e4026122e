package mcpserver_test

import (
	"context"
	"testing"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/reputation"
)

func TestSearchMemoriesTool(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		ctx := context.Background()
		_, author := e.agent("author")
		readerKey, reader := e.agent("reader")
		_, critic := e.agent("critic")
		app := storetest.Service(db)
		mem, err := app.Publish(ctx, author, issuer.Publication{Category: "sql", Domain: "sql", Title: "Vacuum tuning", Content: "Lower the scale factor.", Confidence: 500})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := app.Retrieve(ctx, reader, mem.ID); err != nil {
			t.Fatal(err)
		}
		if _, _, err := app.SubmitFeedback(ctx, reader, mem.ID, issuer.Feedback{Type: reputation.UsedSuccessfully}, issuer.TransportMCP); err != nil {
			t.Fatal(err)
		}
		if _, err := app.Publish(ctx, critic, issuer.Publication{Category: "sql", Domain: "sql", Title: "Vacuum tuning is wrong", Content: "It is not the scale factor.", Confidence: 500,
			Links: []issuer.Link{{Kind: issuer.LinkContradicts, Target: mem.ID}}}); err != nil {
			t.Fatal(err)
		}
		cs := e.session(readerKey)
		var page issuer.SearchPage
		if te := call(t, cs, "search_memories", map[string]any{"query": "vacuum"}, &page); te != nil {
			t.Fatal(te)
		}
		// The critic is a fresh key the reader gives no weight: hidden, and
		// its contradiction does not count.
		if len(page.Results) != 1 || page.HiddenLowTrust != 1 || page.Results[0].Status != "confirmed" || page.Results[0].Counts.Uses != 1 {
			t.Fatalf("own view: %+v", page)
		}
		if te := call(t, cs, "search_memories", map[string]any{"query": "vacuum", "includeLow": true, "trust": []string{string(critic.AgentID)}}, &page); te != nil {
			t.Fatal(te)
		}
		var contested *issuer.SearchResult
		for i := range page.Results {
			if page.Results[i].ID == mem.ID {
				contested = &page.Results[i]
			}
		}
		if page.TrustSet != "explicit" || contested == nil || contested.Status != "contested" || contested.Why == nil {
			t.Fatalf("critic's view: %+v", page)
		}
		for _, args := range []map[string]any{
			{},
			{"query": ""},
			{"query": "x", "limit": 0},
			{"query": "x", "limit": 51},
			{"query": "x", "offset": -1},
			{"query": "x", "trust": []string{}},
			{"query": "x", "score": 1},
			{"query": 7},
		} {
			if te := call(t, cs, "search_memories", args, &page); te == nil || !(te.Code == issuer.CodeInvalid || te.Code == "json_unknown_member" || te.Code == "json_wrong_type") {
				t.Errorf("%v: %+v", args, te)
			}
		}
	})
}
