package httpapi_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/httpapi"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
)

// upload posts content as an artifact with key.
func (e *env) upload(key issuer.APIKey, content []byte) response {
	e.t.Helper()
	req, err := http.NewRequest("POST", e.srv.URL+"/api/artifacts", bytes.NewReader(content))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+string(key))
	req.Header.Set("Content-Type", "text/plain")
	res, err := e.client.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return response{status: res.StatusCode, header: res.Header, body: b}
}

// TestKnowledgeOverHTTP: an artifact is uploaded, cited by an evidence
// object, and read back under the memory's visibility; an accept is the
// consulting agent's, of a memory it consulted; a digest cites public
// memories only.
func TestKnowledgeOverHTTP(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db, httpapi.Config{})
		authorKey, _ := e.agent("Author")
		evalKey, _ := e.agent("Evaluator")
		readerKey, _ := e.agent("Reader")
		var mem, other issuer.Memory
		must(t, e.do(authorKey, "POST", "/api/memories", `{"category":"rust","title":"musl needs musl-tools","content":"apt install musl-tools"}`), 201).json(t, &mem)
		must(t, e.do(authorKey, "POST", "/api/memories", `{"category":"rust","title":"cross","content":"use cross"}`), 201).json(t, &other)

		content := []byte("test result: ok. 41 passed")
		var art issuer.Artifact
		must(t, e.upload(evalKey, content), 201).json(t, &art)
		if art.Digest != issuer.ArtifactDigest(content) || e.upload(evalKey, content).status != 200 {
			t.Fatalf("artifact %+v", art)
		}
		wantProblem(t, e.upload(evalKey, make([]byte, issuer.MaxArtifactBytes+1)), 413, issuer.CodeTooLarge)
		wantProblem(t, e.do(readerKey, "GET", "/api/artifacts/"+art.Digest, ""), 404, issuer.CodeNotFound)
		wantProblem(t, e.do(readerKey, "GET", "/api/artifacts/sha256:"+strings.Repeat("0", 64), ""), 404, issuer.CodeNotFound)

		must(t, e.do(evalKey, "GET", "/api/memories/"+string(mem.ID), ""), 200)
		path := "/api/memories/" + string(mem.ID) + "/feedback"
		// Strict in shape: an unknown evidence type or member is refused.
		wantProblem(t, e.do(evalKey, "POST", path, `{"type":"corroborate","evidence":{"type":"vibes","detail":"x"}}`), 400, issuer.CodeInvalid)
		wantProblem(t, e.do(evalKey, "POST", path, `{"type":"corroborate","evidence":{"type":"test","detail":"x","blob":"y"}}`), 400, issuer.CodeJSONUnknownMember)
		wantProblem(t, e.do(evalKey, "POST", path, `{"type":"useful","evidence":{"type":"test","detail":"x"}}`), 400, issuer.CodeInvalid)
		wantProblem(t, e.do(evalKey, "POST", path, `{"type":"corroborate","evidence":{"type":"test","detail":"`+strings.Repeat("a", 1025)+`"}}`), 400, issuer.CodeInvalid)
		must(t, e.do(evalKey, "POST", path, `{"type":"corroborate","evidence":{"type":"test","detail":"cargo test: 41 passed","artifact":"`+art.Digest+`","env":"rustc 1.91"}}`), 200)
		var renewed issuer.FeedbackResult
		must(t, e.do(evalKey, "POST", path, `{"type":"corroborate","stillValid":true,"evidence":{"type":"test","detail":"cargo test: 41 passed","artifact":"`+art.Digest+`","env":"rustc 1.91"}}`), 200).json(t, &renewed)
		if !renewed.Renewed {
			t.Fatalf("renewal: %+v", renewed)
		}
		wantProblem(t, e.do(evalKey, "POST", path, `{"type":"useful","stillValid":true}`), 400, issuer.CodeInvalid)
		wantProblem(t, e.do(evalKey, "POST", path, `{"type":"used_successfully","stillValid":true}`), 409, issuer.CodeConflict)
		got := must(t, e.do(readerKey, "GET", "/api/artifacts/"+art.Digest, ""), 200)
		if !bytes.Equal(got.body, content) || got.header.Get("Content-Type") != httpapi.ArtifactMediaType {
			t.Fatalf("artifact read back: %q %v", got.body, got.header)
		}

		var rc issuer.Receipt
		must(t, e.do(readerKey, "POST", "/api/receipts", `{"memoryIds":["`+string(mem.ID)+`"]}`), 201).json(t, &rc)
		accept := "/api/receipts/" + string(rc.ID) + "/accept"
		wantProblem(t, e.do(readerKey, "POST", accept, `{"memoryId":"`+string(other.ID)+`"}`), 403, issuer.CodeConsumptionRequired)
		wantProblem(t, e.do(evalKey, "POST", accept, `{"memoryId":"`+string(mem.ID)+`"}`), 404, issuer.CodeNotFound)
		wantProblem(t, e.do(readerKey, "POST", accept, `{"memoryId":"`+string(mem.ID)+`","extra":1}`), 400, issuer.CodeJSONUnknownMember)
		var acc issuer.Accept
		must(t, e.do(readerKey, "POST", accept, `{"memoryId":"`+string(mem.ID)+`"}`), 200).json(t, &acc)
		if acc.MemoryID != mem.ID || acc.Receipt != rc.ID {
			t.Fatalf("accept %+v", acc)
		}
		var page issuer.SearchPage
		must(t, e.do(evalKey, "GET", "/api/memories/search?q=musl&include_low=true", ""), 200).json(t, &page)
		for _, r := range page.Results {
			if r.ID == mem.ID && (r.Status != "confirmed" || r.Counts.Accepts != 1) {
				t.Fatalf("accepted memory in search: %+v", r)
			}
		}

		var private issuer.Memory
		must(t, e.do(evalKey, "POST", "/api/memories", `{"category":"rust","title":"notes","content":"mine","visibility":"private"}`), 201).json(t, &private)
		wantProblem(t, e.do(evalKey, "POST", "/api/memories", `{"kind":"digest","category":"rust","title":"Rust: musl needs musl-tools","content":"x","refs":["`+string(private.ID)+`"]}`), 404, issuer.CodeNotFound)
		wantProblem(t, e.do(evalKey, "POST", "/api/memories", `{"kind":"summary","category":"rust","title":"t","content":"x"}`), 400, issuer.CodeInvalid)
		var digest issuer.Memory
		must(t, e.do(evalKey, "POST", "/api/memories", `{"kind":"digest","category":"rust","title":"Rust: musl needs musl-tools","content":"Consolidated.","refs":["`+string(mem.ID)+`","`+string(other.ID)+`"]}`), 201).json(t, &digest)
		if digest.Kind != issuer.KindDigest || len(digest.Refs) != 2 {
			t.Fatalf("digest %+v", digest)
		}
		wantProblem(t, e.do(evalKey, "POST", "/api/memories", `{"kind":"digest","category":"rust","title":"t","content":"x","supersedes":["`+string(mem.ID)+`"]}`), 400, issuer.CodeInvalid)
		must(t, e.do(evalKey, "POST", "/api/memories", `{"kind":"digest","category":"rust","title":"t","content":"x","supersedes":["`+string(digest.ID)+`"]}`), 201)

		// The reader accepts the digest: in its view the digest is a
		// knowledge entry, and reading a source shows it first.
		var rd issuer.Receipt
		must(t, e.do(readerKey, "POST", "/api/receipts", `{"memoryIds":["`+string(digest.ID)+`"]}`), 201).json(t, &rd)
		must(t, e.do(readerKey, "POST", "/api/receipts/"+string(rd.ID)+"/accept", `{"memoryId":"`+string(digest.ID)+`"}`), 200)
		must(t, e.do(readerKey, "GET", "/api/memories/search?q=musl&include_low=true", ""), 200).json(t, &page)
		if len(page.Results) == 0 || page.Results[0].ID != digest.ID || !page.Results[0].Knowledge {
			t.Fatalf("knowledge first: %+v", page.Results)
		}
		read := must(t, e.do(readerKey, "GET", "/api/memories/"+string(other.ID), ""), 200)
		if !bytes.HasPrefix(read.body, []byte(`{"id":"`+string(other.ID)+`","coveredBy":{"id":"`+string(digest.ID)+`","title":"Rust: musl needs musl-tools","kind":"digest","status":"confirmed"}`)) {
			t.Fatalf("read of a covered memory: %s", read.body)
		}
	})
}
