package httpapi_test

import (
	"context"
	"strings"
	"testing"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/httpapi"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/reputation"
)

func TestRecordsOverHTTP(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, httpapi.Config{})
		ctx := context.Background()
		op, err := storetest.Admin(db).CreateOperator(ctx, "Acme")
		if err != nil {
			t.Fatal(err)
		}
		author, authorID := e.agent("Author")
		sib, err := storetest.Admin(db).CreateAgent(ctx, service.NewAgent{Name: "Sibling", Operator: op})
		if err != nil {
			t.Fatal(err)
		}
		if err := storetest.Admin(db).BindOwner(ctx, op, authorID); err != nil {
			t.Fatal(err)
		}
		reviewer, _ := e.agent("Reviewer")
		stranger, _ := e.agent("Stranger")
		reader, _ := e.agent("Reader", issuer.ScopeSearch)

		var anc, m issuer.Memory
		must(t, e.do(author, "POST", "/api/memories", `{"category":"sql","title":"notes","content":"private notes","visibility":"private"}`), 201).json(t, &anc)
		must(t, e.do(author, "POST", "/api/memories", `{"category":"sql","title":"t","content":"c",
			"appliesTo":{"skill":"sql tuning","domain":"finance","environment":"prod"},
			"derivedFrom":["`+string(anc.ID)+`"]}`), 201).json(t, &m)
		if m.AppliesTo.Skill != "sql tuning" || m.AppliesTo.Environment != "prod" || len(m.DerivedFrom) != 1 || !strings.HasPrefix(m.ContentHash, "sha256:") {
			t.Fatalf("published %+v", m)
		}
		var seen issuer.Memory
		must(t, e.do(reviewer, "GET", "/api/memories/"+string(m.ID), ""), 200).json(t, &seen)
		if len(seen.DerivedFrom) != 0 || strings.Contains(string(e.do(reviewer, "GET", "/api/memories/"+string(m.ID), "").body), string(anc.ID)) {
			t.Fatal("a reader sees the private ancestor")
		}
		wantProblem(t, e.do(reviewer, "GET", "/api/memories/"+string(anc.ID), ""), 404, issuer.CodeNotFound)
		wantProblem(t, e.do(stranger, "POST", "/api/memories", `{"category":"sql","title":"t","content":"c","extends":["`+string(anc.ID)+`"]}`), 404, issuer.CodeNotFound)
		wantProblem(t, e.do(author, "POST", "/api/memories", `{"category":"sql","title":"t","content":"c","appliesTo":{"skill":"`+strings.Repeat("s", 201)+`"}}`), 400, issuer.CodeInvalid)

		path := "/api/memories/" + string(m.ID) + "/outcomes"
		wantProblem(t, e.do(stranger, "POST", path, `{"outcome":"success"}`), 403, issuer.CodeConsumptionRequired)
		wantProblem(t, e.do(author, "POST", path, `{"outcome":"success"}`), 403, issuer.CodeSelfFeedback)
		must(t, e.do(sib.Key, "GET", "/api/memories/"+string(m.ID), ""), 200)
		wantProblem(t, e.do(sib.Key, "POST", path, `{"outcome":"success"}`), 403, issuer.CodeSameOwner)
		wantProblem(t, e.do(reader, "POST", path, `{"outcome":"success"}`), 403, issuer.CodeInsufficientScope)
		wantProblem(t, e.do(reviewer, "POST", path, `{"outcome":"great"}`), 400, issuer.CodeInvalid)
		wantProblem(t, e.do(reviewer, "POST", path, `{"outcome":"partial","context":{"zone":"x"}}`), 400, issuer.CodeJSONUnknownMember)
		wantProblem(t, e.do(reviewer, "POST", "/api/memories/mem_nope/outcomes", `{"outcome":"partial"}`), 404, issuer.CodeNotFound)

		var res issuer.OutcomeResult
		must(t, e.do(reviewer, "POST", path, `{"outcome":"partial","context":{"workload":"batch"}}`), 200).json(t, &res)
		if res.Validation != nil || res.Outcome != evidence.OutcomePartial {
			t.Fatalf("partial: %+v", res)
		}
		r := must(t, e.do(reviewer, "POST", path, `{"outcome":"success","idempotencyKey":"o-1"}`), 200)
		r.json(t, &res)
		if res.Validation == nil || res.Validation.Type != reputation.UsedSuccessfully {
			t.Fatalf("success: %+v", res)
		}
		again := must(t, e.do(reviewer, "POST", path, `{"outcome":"success","idempotencyKey":"o-1"}`), 200)
		if again.header.Get("Idempotent-Replayed") != "true" || string(again.body) != string(r.body) {
			t.Fatalf("replay: %s %v", again.body, again.header)
		}
		wantProblem(t, e.do(reviewer, "POST", path, `{"outcome":"failure","idempotencyKey":"o-1"}`), 409, issuer.CodeIdempotencyConflict)

		var caps issuer.Capabilities
		must(t, e.do(author, "PUT", "/api/agents/me/capabilities", `{"capabilities":["sql tuning","reporting"]}`), 200).json(t, &caps)
		if strings.Join(caps.Capabilities, ",") != "sql tuning,reporting" {
			t.Fatalf("capabilities %v", caps)
		}
		wantProblem(t, e.do(author, "PUT", "/api/agents/me/capabilities", `{"capabilities":["`+strings.Repeat("c", 201)+`"]}`), 400, issuer.CodeInvalid)
		wantProblem(t, e.do(author, "PUT", "/api/agents/me/capabilities", `{"capabilities":["a\u0007b"]}`), 400, issuer.CodeInvalid)
		wantProblem(t, e.do(author, "PUT", "/api/agents/me/capabilities", `{}`), 400, issuer.CodeInvalid)
		wantProblem(t, e.do(reader, "PUT", "/api/agents/me/capabilities", `{"capabilities":[]}`), 403, issuer.CodeInsufficientScope)
		wantProblem(t, e.do(author, "POST", "/api/agents/me/capabilities", `{"capabilities":[]}`), 405, issuer.CodeMethodNotAllowed)
	})
}
