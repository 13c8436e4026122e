package httpapi_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"net/url"
	"testing"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/httpapi"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
)

// TestReputationCursorsAreSealed: a journal's cursor continues only the
// journal, query and viewer it was returned for; a forged, altered or
// foreign one is 400 cursor_invalid, on both engines (SPEC.md §13.5).
func TestReputationCursorsAreSealed(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, httpapi.Config{})
		ctx := context.Background()
		principal := func(key issuer.APIKey) issuer.Principal {
			p, err := db.Authenticate(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
		viewerKey, _ := e.agent("viewer", issuer.ScopeSearch)
		otherKey, _ := e.agent("other viewer", issuer.ScopeSearch)
		authorKey, author := e.agent("author")
		secondKey, second := e.agent("second author")
		var evaluators []issuer.Principal
		for _, name := range []string{"e1", "e2", "e3"} {
			k, _ := e.agent(name)
			evaluators = append(evaluators, principal(k))
		}
		storetest.Journal(t, db, principal(authorKey), evaluators, "sql", "go")
		storetest.Journal(t, db, principal(secondKey), evaluators, "sql")

		path := func(id issuer.AgentID, query string) string {
			return "/api/agents/" + string(id) + "/reputation?" + query
		}
		page := func(key issuer.APIKey, id issuer.AgentID, query string) issuer.ReputationReport {
			t.Helper()
			var rep issuer.ReputationReport
			must(t, e.do(key, "GET", path(id, query), ""), 200).json(t, &rep)
			return rep
		}
		all := page(viewerKey, author, "limit=50")
		first := page(viewerKey, author, "limit=2")
		if len(all.Events) != 6 || !first.HasMore || first.NextCursor == "" {
			t.Fatalf("the journal: %d events; the first page %+v", len(all.Events), first)
		}
		cursor := first.NextCursor
		next := page(viewerKey, author, "limit=2&cursor="+cursor)
		if len(next.Events) != 2 || next.Events[0] != all.Events[2] || next.Events[1] != all.Events[3] {
			t.Fatalf("the next page %+v, want events 2 and 3 of %+v", next.Events, all.Events)
		}
		// The page size may change; the position holds.
		if rest := page(viewerKey, author, "limit=50&cursor="+cursor); len(rest.Events) != 4 || rest.HasMore || rest.Events[0] != all.Events[2] {
			t.Fatalf("the rest %+v", rest.Events)
		}

		// The internal key of the second newest event, in the form cursors
		// had: it named the position the next page of two starts after.
		var keys []int64
		if err := db.UnsafeSQL().Select(&keys, db.UnsafeSQL().Rebind(
			`SELECT e.id FROM reputation_events e JOIN agents a ON a.id = e.author_id WHERE a.public_id = ? ORDER BY e.id DESC`), author); err != nil {
			t.Fatal(err)
		}
		key := binary.BigEndian.AppendUint64(nil, uint64(keys[1]))
		rowID := base64.RawURLEncoding.EncodeToString(key)
		// The cursor that names that position does not show it.
		if b, err := base64.RawURLEncoding.DecodeString(cursor); err != nil || bytes.Contains(b, key) || bytes.Contains(b, key[4:]) {
			t.Fatalf("the cursor %q shows the internal key %d (%v)", cursor, keys[1], err)
		}

		cases := map[string]struct {
			key   issuer.APIKey
			agent issuer.AgentID
			query string
		}{
			"an internal row id":           {viewerKey, author, "cursor=" + rowID},
			"the first row id":             {viewerKey, author, "cursor=AAAAAAAAAAE"},
			"another agent's journal":      {viewerKey, second, "cursor=" + cursor},
			"an unknown agent's journal":   {viewerKey, "agt_" + "qqqqqqqqqqqqqqqqqqqqqqqqqq", "cursor=" + cursor},
			"another viewer":               {otherKey, author, "cursor=" + cursor},
			"another domain":               {viewerKey, author, "domain=sql&cursor=" + cursor},
			"of another domain, without":   {viewerKey, author, "cursor=" + page(viewerKey, author, "domain=sql&limit=1").NextCursor},
			"of another agent's journal":   {viewerKey, author, "cursor=" + page(viewerKey, second, "limit=1").NextCursor},
			"of another viewer, by viewer": {viewerKey, author, "cursor=" + page(otherKey, author, "limit=1").NextCursor},
			"empty":                        {viewerKey, author, "cursor="},
			"outside the alphabet":         {viewerKey, author, "cursor=" + url.QueryEscape(cursor[:10]+"+"+cursor[11:])},
		}
		for name, forged := range storetest.ForgedCursors(t, db, service.JournalPurpose, cursor) {
			cases[name] = struct {
				key   issuer.APIKey
				agent issuer.AgentID
				query string
			}{viewerKey, author, "cursor=" + url.QueryEscape(forged)}
		}
		for name, c := range cases {
			t.Run(name, func(t *testing.T) {
				wantProblem(t, e.do(c.key, "GET", path(c.agent, c.query), ""), 400, issuer.CodeCursorInvalid)
			})
		}
	})
}
