package mcpserver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/reputation"
)

func TestReportOutcomeTool(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		ctx := context.Background()
		authorKey, author := e.agent("author")
		evalKey, evaluator := e.agent("evaluator")
		app := storetest.Service(db)
		mem, err := app.Publish(ctx, author, issuer.Publication{Category: "sql", Domain: "sql", Title: "t", Content: "c", Confidence: 500,
			AppliesTo: issuer.AppliesTo{Skill: "sql tuning"}})
		if err != nil {
			t.Fatal(err)
		}
		cs := e.session(evalKey)
		var res issuer.OutcomeResult
		if te := call(t, cs, "report_outcome", map[string]any{"memoryId": mem.ID, "outcome": "success"}, &res); te == nil || te.Code != issuer.CodeConsumptionRequired {
			t.Fatalf("unconsumed: %+v", te)
		}
		if _, err := app.Retrieve(ctx, evaluator, mem.ID); err != nil {
			t.Fatal(err)
		}
		args := map[string]any{"memoryId": mem.ID, "outcome": "uncertain", "context": map[string]any{"environment": "staging"}}
		if te := call(t, cs, "report_outcome", args, &res); te != nil || res.Validation != nil || res.Outcome != evidence.OutcomeUncertain {
			t.Fatalf("uncertain: %+v %+v", te, res)
		}
		if te := call(t, cs, "report_outcome", map[string]any{"memoryId": mem.ID, "outcome": "failure", "idempotencyKey": "k"}, &res); te != nil {
			t.Fatal(te)
		}
		if res.Validation == nil || res.Validation.Type != reputation.UsedUnsuccessfully {
			t.Fatalf("failure: %+v", res)
		}
		// The same position over HTTP: one position per evaluator and memory.
		fb, _, err := app.SubmitFeedback(ctx, evaluator, mem.ID, issuer.Feedback{Type: reputation.UsedSuccessfully}, issuer.TransportHTTP)
		if err != nil || fb.Validation.ID != res.Validation.ID || fb.Validation.Revision != 2 {
			t.Fatalf("HTTP after MCP: %+v %v", fb, err)
		}
		// The author cannot report on its own memory.
		if te := call(t, e.session(authorKey), "report_outcome", map[string]any{"memoryId": mem.ID, "outcome": "success"}, &res); te == nil || te.Code != issuer.CodeSelfFeedback {
			t.Fatalf("self: %+v", te)
		}
		for name, bad := range map[string]map[string]any{
			"unknown outcome":  {"memoryId": mem.ID, "outcome": "great"},
			"long label":       {"memoryId": mem.ID, "outcome": "partial", "context": map[string]any{"domain": strings.Repeat("d", 201)}},
			"unknown member":   {"memoryId": mem.ID, "outcome": "partial", "weight": 5},
			"unknown context":  {"memoryId": mem.ID, "outcome": "partial", "context": map[string]any{"zone": "x"}},
			"wrong type":       {"memoryId": mem.ID, "outcome": 1},
			"bidi in a label":  {"memoryId": mem.ID, "outcome": "partial", "context": map[string]any{"workload": "a\u202eb"}},
			"malformed memory": {"memoryId": "mem_x", "outcome": "partial"},
		} {
			r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "report_outcome", Arguments: bad})
			if err == nil && !r.IsError {
				t.Errorf("%s was accepted", name)
			}
		}
	})
}
