package store_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/reputation"
)

// A private, an unlisted and a suspended agent each publish, retrieve,
// consult and validate a public author's memories. No answer to anyone
// else names them; each still sees itself. docs/reference.md's "What each viewer
// may see" is the rule tested here.
func TestHiddenAgentsAreNotNamedToOthers(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db)
		public, viewer := f.agent("public author"), f.agent("viewer")
		hidden := map[string]issuer.Principal{
			"private":   f.agentWith(service.NewAgent{Name: "private", Visibility: issuer.VisibilityPrivate}),
			"unlisted":  f.agentWith(service.NewAgent{Name: "unlisted", Visibility: issuer.VisibilityUnlisted}),
			"suspended": f.agent("suspended"),
		}
		pubMem := f.publish(public, "sql")
		// Everything each hidden agent does while it can act, and the
		// answers it got.
		type acts struct {
			own                   issuer.MemoryID
			direct, viaReceipt    any
			receipt               issuer.Receipt
			validations, ownFetch any
		}
		done := map[string]acts{}
		for name, h := range hidden {
			var a acts
			a.own = f.publish(h, "go")
			a.ownFetch = f.retrieve(h, a.own)
			a.direct = f.consumeAndValidate(h, pubMem, reputation.Corroborate)
			other := f.publish(public, "sql")
			r, err := svc(db).Consult(f.ctx, h, []issuer.MemoryID{other})
			if err != nil {
				t.Fatal(err)
			}
			a.receipt = r
			a.viaReceipt, _, err = svc(db).SubmitReceiptFeedback(f.ctx, h, r.ID, issuer.Feedback{Type: reputation.Useful}, issuer.TransportMCP)
			if err != nil {
				t.Fatal(err)
			}
			a.validations, err = db.Validations(f.ctx, h, pubMem)
			if err != nil {
				t.Fatal(err)
			}
			// The viewer validates the hidden agent's memory: the hidden
			// agent is the author of a journal entry's subject.
			f.consumeAndValidate(viewer, a.own, reputation.Useful)
			done[name] = a
		}
		if err := storetest.Admin(db).SetAgentStatus(f.ctx, hidden["suspended"].AgentID, issuer.AgentSuspended); err != nil {
			t.Fatal(err)
		}

		names := func(v any, id issuer.AgentID) bool {
			b, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			return strings.Contains(string(b), string(id))
		}
		report, err := db.Reputation(f.ctx, viewer, public.AgentID, issuer.ReputationQuery{Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		if len(report.Events) < 2*len(hidden) {
			t.Fatalf("report has %d events", len(report.Events))
		}
		anon, err := db.PublicProfile(f.ctx, public.AgentID)
		if err != nil {
			t.Fatal(err)
		}
		for name, h := range hidden {
			a := done[name]
			// Another agent's view.
			if names(report, h.AgentID) {
				t.Errorf("%s: the public author's report names it as a validator", name)
			}
			if names(anon, h.AgentID) {
				t.Errorf("%s: the public author's profile names it", name)
			}
			if _, err := db.PublicProfile(f.ctx, h.AgentID); issuer.ErrorCode(err) != issuer.CodeNotFound {
				t.Errorf("%s: public profile answered %v", name, err)
			}
			if _, err := db.Reputation(f.ctx, viewer, h.AgentID, issuer.ReputationQuery{Limit: 20}); issuer.ErrorCode(err) != issuer.CodeNotFound {
				t.Errorf("%s: its report answered %v to another agent", name, err)
			}
			m, err := svc(db).Retrieve(f.ctx, viewer, a.own)
			switch {
			case name == "suspended":
				// A suspended author's memories are not served at all.
				if issuer.ErrorCode(err) != issuer.CodeNotFound {
					t.Errorf("suspended author's memory: %v", err)
				}
			case err != nil:
				t.Fatal(err)
			case m.Author != "" || names(m, h.AgentID):
				t.Errorf("%s: its memory fetched by another agent names the author %q", name, m.Author)
			}
			sum, err := db.Validations(f.ctx, viewer, pubMem)
			if err != nil || names(sum, h.AgentID) {
				t.Errorf("%s: validations summary %v names it", name, err)
			}
			// What the agent itself was answered: its own id appears only
			// where it is the author of its own memory.
			for what, v := range map[string]any{"feedback result": a.direct, "receipt feedback result": a.viaReceipt, "receipt": a.receipt, "validations": a.validations} {
				if names(v, h.AgentID) {
					t.Errorf("%s: its %s names it", name, what)
				}
			}
			if name == "suspended" {
				continue
			}
			// Its own view.
			if a.ownFetch.(issuer.Memory).Author != h.AgentID {
				t.Errorf("%s: its own memory does not name it: %+v", name, a.ownFetch)
			}
			mine, err := db.Reputation(f.ctx, h, public.AgentID, issuer.ReputationQuery{Limit: 50})
			if err != nil || !names(mine, h.AgentID) {
				t.Errorf("%s: does not see itself as a validator in the report (%v)", name, err)
			}
			if _, err := db.Reputation(f.ctx, h, h.AgentID, issuer.ReputationQuery{Limit: 20}); err != nil {
				t.Errorf("%s: its own report: %v", name, err)
			}
			if me := f.profile(h); me.PublicID != h.AgentID || me.Stats.FeedbackGiven != 2 || me.Stats.MemoriesPublished != 1 {
				t.Errorf("%s: own profile %+v", name, me)
			}
		}
		// A public validator stays named.
		f.consumeAndValidate(viewer, pubMem, reputation.Useful)
		report, _ = db.Reputation(f.ctx, public, public.AgentID, issuer.ReputationQuery{Limit: 1})
		if report.Events[0].Validator != viewer.AgentID {
			t.Fatalf("a public validator is not named: %+v", report.Events[0])
		}
	})
}
