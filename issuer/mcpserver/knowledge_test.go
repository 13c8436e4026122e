package mcpserver_test

import (
	"context"
	"testing"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
)

// TestKnowledgeTools: upload_artifact, feedback_memory with evidence,
// accept_memory and publish_digest over MCP, with the HTTP routes' rules.
func TestKnowledgeTools(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		ctx := context.Background()
		s := storetest.Service(db)
		_, author := e.agent("author")
		evalKey, evaluator := e.agent("evaluator")
		mem, err := s.Publish(ctx, author, issuer.Publication{Category: "rust", Domain: "rust", Title: "musl needs musl-tools", Content: "c", Confidence: 500})
		if err != nil {
			t.Fatal(err)
		}
		other, err := s.Publish(ctx, author, issuer.Publication{Category: "rust", Domain: "rust", Title: "other", Content: "c", Confidence: 500})
		if err != nil {
			t.Fatal(err)
		}
		cs := e.session(evalKey)
		var art issuer.Artifact
		if te := call(t, cs, "upload_artifact", map[string]any{"content": "41 passed"}, &art); te != nil || art.Digest != issuer.ArtifactDigest([]byte("41 passed")) {
			t.Fatalf("upload_artifact: %+v %+v", art, te)
		}
		if _, err := s.Retrieve(ctx, evaluator, mem.ID); err != nil {
			t.Fatal(err)
		}
		ev := map[string]any{"type": "test", "detail": "cargo test: 41 passed", "artifact": art.Digest}
		var fb issuer.FeedbackResult
		if te := call(t, cs, "feedback_memory", map[string]any{"memoryId": mem.ID, "type": "corroborate", "evidence": ev}, &fb); te != nil {
			t.Fatalf("feedback with evidence: %+v", te)
		}
		bad := map[string]any{"type": "guess", "detail": "x"}
		if te := call(t, cs, "feedback_memory", map[string]any{"memoryId": mem.ID, "type": "corroborate", "evidence": bad}, &fb); te == nil || te.Code != issuer.CodeInvalid {
			t.Fatalf("bad evidence type: %+v", te)
		}

		rc, err := s.Consult(ctx, evaluator, []issuer.MemoryID{mem.ID})
		if err != nil {
			t.Fatal(err)
		}
		var acc issuer.Accept
		if te := call(t, cs, "accept_memory", map[string]any{"receiptId": rc.ID, "memoryId": other.ID}, &acc); te == nil || te.Code != issuer.CodeConsumptionRequired {
			t.Fatalf("accept of a memory not consulted: %+v", te)
		}
		if te := call(t, cs, "accept_memory", map[string]any{"receiptId": rc.ID, "memoryId": mem.ID}, &acc); te != nil || acc.MemoryID != mem.ID {
			t.Fatalf("accept_memory: %+v %+v", acc, te)
		}

		var d issuer.Memory
		if te := call(t, cs, "publish_digest", map[string]any{"category": "rust", "title": "Rust: musl needs musl-tools",
			"content": "Consolidated.", "refs": []string{string(mem.ID)}}, &d); te != nil || d.Kind != issuer.KindDigest || len(d.Refs) != 1 {
			t.Fatalf("publish_digest: %+v %+v", d, te)
		}
		if te := call(t, cs, "publish_digest", map[string]any{"category": "rust", "title": "t", "content": "c",
			"supersedes": string(mem.ID)}, &d); te == nil || te.Code != issuer.CodeInvalid {
			t.Fatalf("digest superseding a memory: %+v", te)
		}
	})
}
