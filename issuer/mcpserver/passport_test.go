package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/internal/mcpwire/mcpwiretest"
	"github.com/remnant/passportkit/internal/problem"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/mcpserver"
	"github.com/remnant/passportkit/issuer/service"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/reputation"
	"github.com/remnant/passportkit/verifier"
)

// owned creates an agent owned by a new operator of its own.
func (e *env) owned(name string, vis issuer.Visibility) (issuer.APIKey, issuer.Principal) {
	e.t.Helper()
	ctx := context.Background()
	op, err := storetest.Admin(e.db).CreateOperator(ctx, name+" Ltd")
	if err != nil {
		e.t.Fatal(err)
	}
	a, err := storetest.Admin(e.db).CreateAgent(ctx, service.NewAgent{Name: name, Operator: op, Visibility: vis})
	if err != nil {
		e.t.Fatal(err)
	}
	p, err := e.db.Authenticate(ctx, a.Key)
	if err != nil {
		e.t.Fatal(err)
	}
	return a.Key, p
}

// subject records, through the service, an agent with memories that
// agents of two other operators used, reported on and corroborated, and
// extra memories nobody used yet.
func (e *env) subject(name string, extra int) issuer.AgentID {
	e.t.Helper()
	ctx := context.Background()
	svc := storetest.Service(e.db)
	_, author := e.owned(name, issuer.VisibilityPublic)
	var mems []issuer.MemoryID
	for i, skill := range []string{"PostgreSQL indexing", "SQLite", "PostgreSQL indexing"} {
		m, err := svc.Publish(ctx, author, issuer.Publication{Category: "Databases", Domain: "databases", Title: fmt.Sprintf("Index note %d", i),
			Content: "Build the index concurrently.", Visibility: issuer.MemoryPublic, Confidence: 700,
			AppliesTo: issuer.AppliesTo{Skill: skill, Context: evidence.Context{Version: "17"}}})
		if err != nil {
			e.t.Fatal(err)
		}
		mems = append(mems, m.ID)
	}
	for r, outcome := range []evidence.Outcome{evidence.OutcomeSuccess, evidence.OutcomeFailure} {
		_, user := e.owned(fmt.Sprintf("%s user %d", name, r), issuer.VisibilityPublic)
		for _, m := range mems {
			if _, err := svc.Retrieve(ctx, user, m); err != nil {
				e.t.Fatal(err)
			}
			if _, _, err := svc.ReportOutcome(ctx, user, m, issuer.OutcomeReport{Outcome: outcome, Context: evidence.Context{Environment: "prod"}}, issuer.TransportMCP); err != nil {
				e.t.Fatal(err)
			}
		}
		if _, _, err := svc.SubmitFeedback(ctx, user, mems[1], issuer.Feedback{Type: reputation.Corroborate}, issuer.TransportMCP); err != nil {
			e.t.Fatal(err)
		}
	}
	for i := range extra {
		if _, err := svc.Publish(ctx, author, issuer.Publication{Category: "Databases", Domain: "databases",
			Title: fmt.Sprintf("Vacuum note %d", i), Content: "Vacuum after bulk deletes.", Visibility: issuer.MemoryPublic,
			AppliesTo: issuer.AppliesTo{Skill: "PostgreSQL vacuum", Context: evidence.Context{Version: "17"}}}); err != nil {
			e.t.Fatal(err)
		}
	}
	return author.AgentID
}

// get returns the body of a GET that must answer 200.
func get(t *testing.T, url string) []byte {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, res.StatusCode, b)
	}
	return b
}

// problemAt returns the problem details a GET answers.
func problemAt(t *testing.T, url string) problem.Details {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var p problem.Details
	if err := json.NewDecoder(res.Body).Decode(&p); err != nil || res.StatusCode != p.Status || p.Status < 400 {
		t.Fatalf("GET %s: %d, %+v, %v", url, res.StatusCode, p, err)
	}
	return p
}

func text(res *mcp.CallToolResult) string { return res.Content[0].(*mcp.TextContent).Text }

// verdict reads a verify_passport result, which must not be a tool error.
func verdict(t *testing.T, res *mcp.CallToolResult) verifier.Result {
	t.Helper()
	if res.IsError {
		t.Fatalf("verify_passport failed: %s", text(res))
	}
	var v verifier.Result
	if err := json.Unmarshal([]byte(text(res)), &v); err != nil {
		t.Fatalf("verify_passport: %v: %s", err, text(res))
	}
	return v
}

// refusal reads a tool error: problem details of the shared vocabulary.
func refusal(t *testing.T, res *mcp.CallToolResult) problem.Details {
	t.Helper()
	if !res.IsError {
		t.Fatalf("accepted: %.300s", text(res))
	}
	var p problem.Details
	if err := json.Unmarshal([]byte(text(res)), &p); err != nil || p.Type != problem.TypeURI(p.Code) || p.Detail == "" {
		t.Fatalf("tool error %q is not problem details", text(res))
	}
	return p
}

// check returns the named check of a result.
func check(t *testing.T, v verifier.Result, name verifier.CheckName) verifier.Check {
	t.Helper()
	i := slices.IndexFunc(v.Checks, func(c verifier.Check) bool { return c.Name == name })
	if i < 0 {
		t.Fatalf("no %s check in %+v", name, v.Checks)
	}
	return v.Checks[i]
}

// TestPassportToolsThroughTheSDKClient drives get_agent_passport and
// verify_passport through the SDK's own client over streamable HTTP, on a
// loopback server built as serve builds it.
func TestPassportToolsThroughTheSDKClient(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		ctx := context.Background()
		subject := e.subject("Indexer", 0)
		key, caller := e.owned("Caller", issuer.VisibilityPublic)
		cs := e.session(key)

		if got := cs.InitializeResult().Instructions; got != mcpserver.Instructions || !strings.Contains(got, "not endorsement") {
			t.Fatalf("instructions %q", got)
		}
		list, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		schemas := map[string]any{}
		for _, tl := range list.Tools {
			schemas[tl.Name] = tl.InputSchema
		}
		var schema struct {
			Properties map[string]struct {
				Type []string `json:"type"`
			} `json:"properties"`
			Required []string `json:"required"`
		}
		sb, _ := json.Marshal(schemas["verify_passport"])
		if err := json.Unmarshal(sb, &schema); err != nil || !slices.Equal(schema.Properties["bundle"].Type, []string{"string", "object"}) ||
			!slices.Equal(schema.Properties["presentation"].Type, []string{"string", "object"}) ||
			len(schema.Required) != 0 || schemas["get_agent_passport"] == nil {
			t.Fatalf("verify_passport schema %s (%v); get_agent_passport %v", sb, err, schemas["get_agent_passport"])
		}

		// The bundle is the one the HTTP route serves, byte for byte.
		res := mcpwiretest.CallTool(t, cs, "get_agent_passport", map[string]any{"publicId": subject})
		if res.IsError {
			t.Fatalf("get_agent_passport: %s", text(res))
		}
		bundle := []byte(text(res))
		httpBundle := get(t, e.srv.URL+"/api/public/agents/"+string(subject)+"/passport")
		if !bytes.Equal(bundle, httpBundle) {
			t.Fatalf("the tool's bundle differs from the HTTP route's:\n%.200s\n%.200s", bundle, httpBundle)
		}
		if err := passport.CheckCanonical(bundle); err != nil {
			t.Fatalf("the bundle text is not canonical: %v", err)
		}
		sc, _ := json.Marshal(res.StructuredContent)
		var structured struct {
			BundleVersion string `json:"bundleVersion"`
		}
		if err := json.Unmarshal(sc, &structured); err != nil || structured.BundleVersion != "1.0" {
			t.Fatalf("structured content %.200s", sc)
		}

		// Verified: the same result, byte for byte, as the verifier gives
		// with the trust file /.well-known serves.
		at := time.Now().UTC().Truncate(time.Second).Format(time.RFC3339)
		res = mcpwiretest.CallTool(t, cs, "verify_passport", map[string]any{"bundle": string(bundle), "subject": subject, "at": at})
		v := verdict(t, res)
		if !v.Verified || v.Reason != passport.ReasonOK || v.Subject != string(subject) || len(v.Checks) != len(verifier.CheckNames()) {
			t.Fatalf("verify_passport: %s", text(res))
		}
		// Every check passes but status, which is not_checked: the
		// passport names the issuer's status list, and verify_passport
		// takes no list token.
		for _, c := range v.Checks {
			if (!c.OK || c.Reason != passport.ReasonOK) && (c.Name != verifier.CheckStatus || c.Reason != passport.ReasonNotChecked) {
				t.Fatalf("check %+v", c)
			}
		}
		trust, err := verifier.ParseTrust(get(t, e.srv.URL+"/.well-known/passport-trust.json"))
		if err != nil {
			t.Fatal(err)
		}
		local, err := verifier.New(trust)
		if err != nil {
			t.Fatal(err)
		}
		atTime, _ := time.Parse(time.RFC3339, at)
		want, err := local.Verify(ctx, bundle, verifier.ForSubject(string(subject)).At(atTime))
		if err != nil {
			t.Fatal(err)
		}
		var wantJSON bytes.Buffer
		enc := json.NewEncoder(&wantJSON)
		enc.SetEscapeHTML(false)
		enc.Encode(want)
		if text(res) != strings.TrimSuffix(wantJSON.String(), "\n") {
			t.Fatalf("verify_passport answered\n%.300s\nthe verifier\n%.300s", text(res), wantJSON.String())
		}

		// The bundle as an object verifies as well.
		if v := verdict(t, mcpwiretest.CallTool(t, cs, "verify_passport", map[string]any{"bundle": json.RawMessage(bundle), "subject": subject})); !v.Verified {
			t.Fatalf("the bundle as an object: %+v", v)
		}

		// An object is verified in its canonical form, whatever order and
		// whitespace the client's encoder gives its members; a string is
		// verified as it is.
		var members map[string]json.RawMessage
		if err := json.Unmarshal(bundle, &members); err != nil {
			t.Fatal(err)
		}
		var loose bytes.Buffer
		loose.WriteString("{\n")
		for i, name := range []string{"snapshot", "evidence", "credential", "bundleVersion"} {
			if i > 0 {
				loose.WriteString(",\n")
			}
			fmt.Fprintf(&loose, "  %q : ", name)
			json.Indent(&loose, members[name], "  ", "  ")
		}
		loose.WriteString("\n}")
		isErr, out, _ := rawCall(t, e, key, "verify_passport", `{"anySubject":true,"bundle":`+loose.String()+`}`)
		if isErr || !strings.Contains(out, `"verified":true`) {
			t.Fatalf("a loosely written bundle object: %.300s", out)
		}
		looseText, _ := json.Marshal(loose.String())
		isErr, out, _ = rawCall(t, e, key, "verify_passport", `{"anySubject":true,"bundle":`+string(looseText)+`}`)
		if isErr || !strings.Contains(out, `"reason":"json_not_canonical"`) {
			t.Fatalf("the same bytes as a string: %.300s", out)
		}

		// An object without a canonical form is verified as written: the
		// verdict says what is wrong with it.
		isErr, out, _ = rawCall(t, e, key, "verify_passport", `{"anySubject":true,"bundle":{"bundleVersion":"1.0","x":1e16}}`)
		if isErr || !strings.HasPrefix(out, `{"verified":false,"reason":"bundle_malformed"`) || !strings.Contains(out, `"detail":"32 bytes"`) {
			t.Fatalf("an object without a canonical form: %.300s", out)
		}

		// Any subject: verified, with the subject check not_required.
		v = verdict(t, mcpwiretest.CallTool(t, cs, "verify_passport", map[string]any{"bundle": string(bundle), "anySubject": true}))
		if c := check(t, v, verifier.CheckSubject); !v.Verified || c.OK || c.Reason != passport.ReasonNotRequired {
			t.Fatalf("any subject: verified %v, subject check %+v", v.Verified, c)
		}

		// Invalid verdicts are results, not tool errors.
		tampered := bytes.Replace(bundle, []byte(`"https://issuer.test"`), []byte(`"https://issuer.evil"`), -1)
		if bytes.Equal(tampered, bundle) {
			t.Fatal("nothing to tamper with")
		}
		v = verdict(t, mcpwiretest.CallTool(t, cs, "verify_passport", map[string]any{"bundle": string(tampered), "subject": subject}))
		if v.Verified || v.Reason != passport.ReasonSnapshotMismatch || v.Passport != nil || check(t, v, verifier.CheckSubject).Reason != passport.ReasonNotReached {
			t.Fatalf("tampered: %+v", v)
		}
		v = verdict(t, mcpwiretest.CallTool(t, cs, "verify_passport", map[string]any{"bundle": string(bundle), "subject": caller.AgentID}))
		if v.Verified || v.Reason != passport.ReasonSubjectMismatch || check(t, v, verifier.CheckSubject).Reason != passport.ReasonSubjectMismatch {
			t.Fatalf("another subject: %+v", v)
		}
		v = verdict(t, mcpwiretest.CallTool(t, cs, "verify_passport", map[string]any{"bundle": string(bundle), "subject": subject, "at": "2099-01-01T00:00:00Z"}))
		if v.Verified || v.Reason != passport.ReasonExpired {
			t.Fatalf("in 2099: %+v", v)
		}
		v = verdict(t, mcpwiretest.CallTool(t, cs, "verify_passport", map[string]any{"bundle": "{}", "anySubject": true}))
		if v.Verified || v.Reason != passport.ReasonBundleMalformed {
			t.Fatalf("an empty bundle: %+v", v)
		}

		// Over 512 KiB: refused with the size, before any check runs.
		big := string(bundle) + strings.Repeat(" ", passport.MaxBundleSize+1-len(bundle))
		p := refusal(t, mcpwiretest.CallTool(t, cs, "verify_passport", map[string]any{"bundle": big, "subject": subject}))
		if p.Code != issuer.CodeTooLarge || p.Status != 413 || !strings.Contains(p.Detail, fmt.Sprint(passport.MaxBundleSize+1)) {
			t.Fatalf("over 512 KiB: %+v", p)
		}

		// Malformed requests are tool errors with problem details.
		for _, c := range []struct {
			name string
			args map[string]any
			code issuer.Code
		}{
			{"no subject choice", map[string]any{"bundle": string(bundle)}, issuer.CodeInvalid},
			{"anySubject false", map[string]any{"bundle": string(bundle), "anySubject": false}, issuer.CodeInvalid},
			{"both choices", map[string]any{"bundle": string(bundle), "subject": subject, "anySubject": true}, issuer.CodeInvalid},
			{"subject not an agent id", map[string]any{"bundle": string(bundle), "subject": "bob"}, issuer.CodeInvalid},
			{"at not RFC 3339", map[string]any{"bundle": string(bundle), "subject": subject, "at": "yesterday"}, issuer.CodeInvalid},
			{"no bundle", map[string]any{"subject": subject}, issuer.CodeInvalid},
			{"bundle a number", map[string]any{"bundle": 7, "subject": subject}, issuer.CodeJSONWrongType},
			{"bundle an array", map[string]any{"bundle": []any{}, "subject": subject}, issuer.CodeJSONWrongType},
			{"unknown member", map[string]any{"bundle": string(bundle), "subject": subject, "skew": "1h"}, issuer.CodeJSONUnknownMember},
		} {
			if p := refusal(t, mcpwiretest.CallTool(t, cs, "verify_passport", c.args)); p.Code != c.code {
				t.Errorf("%s: %+v, want %s", c.name, p, c.code)
			}
		}
	})
}

// prolific is how many memories make a bundle disclosing every record
// pass 512 KiB.
const prolific = 600

// TestGetAgentPassportRefusals: an agent without a public profile is
// not_found whatever the reason, with the same detail as an unknown one;
// a bundle over 512 KiB is the problem the HTTP route answers.
func TestGetAgentPassportRefusals(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		ctx := context.Background()
		key, _ := e.owned("Caller", issuer.VisibilityPublic)
		cs := e.session(key)

		_, private := e.owned("Private", issuer.VisibilityPrivate)
		_, unlisted := e.owned("Unlisted", issuer.VisibilityUnlisted)
		_, suspended := e.owned("Suspended", issuer.VisibilityPublic)
		if err := storetest.Admin(db).SetAgentStatus(ctx, suspended.AgentID, issuer.AgentSuspended); err != nil {
			t.Fatal(err)
		}
		unknown, err := issuer.NewAgentID(bytes.NewReader(bytes.Repeat([]byte{7}, 64)))
		if err != nil {
			t.Fatal(err)
		}
		var details []string
		for _, id := range []issuer.AgentID{unknown, private.AgentID, unlisted.AgentID, suspended.AgentID} {
			p := refusal(t, mcpwiretest.CallTool(t, cs, "get_agent_passport", map[string]any{"publicId": id, "disclose": "none"}))
			if p.Code != issuer.CodeNotFound || p.Status != 404 {
				t.Fatalf("%s: %+v", id, p)
			}
			details = append(details, strings.ReplaceAll(p.Detail, string(id), "ID"))
		}
		if len(slices.Compact(slices.Clone(details))) != 1 {
			t.Fatalf("the refusals tell agents apart: %q", details)
		}
		if p := refusal(t, mcpwiretest.CallTool(t, cs, "get_agent_passport", map[string]any{"publicId": "agt_nope"})); p.Code != issuer.CodeInvalid {
			t.Fatalf("a malformed id: %+v", p)
		}
		if p := refusal(t, mcpwiretest.CallTool(t, cs, "get_agent_passport", map[string]any{"publicId": unknown, "disclose": "everything"})); p.Code != issuer.CodeInvalid {
			t.Fatalf("an unknown disclosure: %+v", p)
		}

		// An agent with enough published memories that disclosing every
		// record passes 512 KiB.
		subject := e.subject("Prolific", prolific)
		res := mcpwiretest.CallTool(t, cs, "get_agent_passport", map[string]any{"publicId": subject, "disclose": "all"})
		p := refusal(t, res)
		httpProblem := problemAt(t, e.srv.URL+"/api/public/agents/"+string(subject)+"/passport?disclose=all")
		p.Instance, httpProblem.Instance = "", ""
		if p.Code != issuer.CodeTooLarge || p != httpProblem || !strings.Contains(p.Detail, "bytes") {
			t.Fatalf("disclose all: tool %+v, HTTP %+v", p, httpProblem)
		}
		if res := mcpwiretest.CallTool(t, cs, "get_agent_passport", map[string]any{"publicId": subject}); res.IsError {
			t.Fatalf("previews: %s", text(res))
		}
	})
}

// TestVerifyPassportPresentation: an agent registers a holder key, gets its
// passport and presents it; verify_passport checks the presentation with
// the audience and nonce of the party it is presented to, and refuses the
// arguments a presentation needs, or a bundle must not have, before
// verifying anything.
func TestVerifyPassportPresentation(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		key, holder := e.owned("Holder", issuer.VisibilityPublic)
		cs := e.session(key)
		var nonce issuer.HolderKeyNonce
		if te := call(t, cs, "holder_key_nonce", map[string]any{}, &nonce); te != nil {
			t.Fatal(te)
		}
		hk := storetest.NewHolderKey(t, passport.ES256)
		var keys issuer.HolderKeys
		if te := call(t, cs, "set_holder_keys", keysArgs([]issuer.HolderKeyProof{hk.Proved(t, nonce.Nonce, holder.AgentID)}), &keys); te != nil {
			t.Fatal(te)
		}
		res := mcpwiretest.CallTool(t, cs, "get_agent_passport", map[string]any{"publicId": holder.AgentID, "disclose": "none"})
		if res.IsError {
			t.Fatalf("get_agent_passport: %s", text(res))
		}
		bundle := []byte(text(res))
		const aud = "https://rp.example"
		pres, err := passport.Present(bundle, hk.PrivateKey, aud, "n-1", time.Now())
		if err != nil {
			t.Fatal(err)
		}

		v := verdict(t, mcpwiretest.CallTool(t, cs, "verify_passport", map[string]any{"presentation": string(pres), "aud": aud, "nonce": "n-1", "subject": holder.AgentID}))
		if !v.Verified || v.HolderKey != hk.Public().KeyID() || len(v.Checks) != len(verifier.PresentationCheckNames()) {
			t.Fatalf("the presentation: %+v", v)
		}
		if v := verdict(t, mcpwiretest.CallTool(t, cs, "verify_passport", map[string]any{"presentation": json.RawMessage(pres), "aud": aud, "nonce": "n-1", "maxAge": 60, "anySubject": true})); !v.Verified {
			t.Fatalf("the presentation as an object: %+v", v)
		}
		v = verdict(t, mcpwiretest.CallTool(t, cs, "verify_passport", map[string]any{"presentation": string(pres), "aud": aud, "nonce": "n-0", "anySubject": true}))
		if v.Verified || v.Reason != passport.ReasonKBNonceMismatch || v.HolderKey != "" || v.Passport != nil {
			t.Fatalf("a replayed nonce: %+v", v)
		}
		v = verdict(t, mcpwiretest.CallTool(t, cs, "verify_passport", map[string]any{"presentation": string(pres), "aud": "https://other.example", "nonce": "n-1", "anySubject": true}))
		if v.Verified || v.Reason != passport.ReasonKBAudienceMismatch {
			t.Fatalf("another audience: %+v", v)
		}
		// The bundle alone still verifies as a bundle: what the issuer said,
		// not who presents it.
		if v := verdict(t, mcpwiretest.CallTool(t, cs, "verify_passport", map[string]any{"bundle": string(bundle), "anySubject": true})); !v.Verified || v.HolderKey != "" {
			t.Fatalf("the bundle: %+v", v)
		}

		big := string(pres) + strings.Repeat(" ", passport.MaxPresentationSize+1-len(pres))
		p := refusal(t, mcpwiretest.CallTool(t, cs, "verify_passport", map[string]any{"presentation": big, "aud": aud, "nonce": "n-1", "anySubject": true}))
		if p.Code != issuer.CodeTooLarge || p.Status != 413 || !strings.Contains(p.Detail, fmt.Sprint(passport.MaxPresentationSize+1)) {
			t.Fatalf("over 520 KiB: %+v", p)
		}
		for _, c := range []struct {
			name string
			args map[string]any
			code issuer.Code
		}{
			{"no aud", map[string]any{"presentation": string(pres), "nonce": "n-1", "anySubject": true}, issuer.CodeInvalid},
			{"no nonce", map[string]any{"presentation": string(pres), "aud": aud, "anySubject": true}, issuer.CodeInvalid},
			{"empty nonce", map[string]any{"presentation": string(pres), "aud": aud, "nonce": "", "anySubject": true}, issuer.CodeInvalid},
			{"maxAge negative", map[string]any{"presentation": string(pres), "aud": aud, "nonce": "n-1", "maxAge": -1, "anySubject": true}, issuer.CodeInvalid},
			{"maxAge over a day", map[string]any{"presentation": string(pres), "aud": aud, "nonce": "n-1", "maxAge": 86401, "anySubject": true}, issuer.CodeInvalid},
			{"aud with a bundle", map[string]any{"bundle": string(bundle), "aud": aud, "anySubject": true}, issuer.CodeInvalid},
			{"both", map[string]any{"bundle": string(bundle), "presentation": string(pres), "aud": aud, "nonce": "n-1", "anySubject": true}, issuer.CodeInvalid},
			{"presentation a number", map[string]any{"presentation": 7, "aud": aud, "nonce": "n-1", "anySubject": true}, issuer.CodeJSONWrongType},
			{"no subject choice", map[string]any{"presentation": string(pres), "aud": aud, "nonce": "n-1"}, issuer.CodeInvalid},
		} {
			if p := refusal(t, mcpwiretest.CallTool(t, cs, "verify_passport", c.args)); p.Code != c.code {
				t.Errorf("%s: %+v, want %s", c.name, p, c.code)
			}
		}
	})
}
