package mcpserver_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/remnant/passportkit/internal/problem"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/issuer/store"
	"github.com/remnant/passportkit/issuer/store/storetest"
)

// rawCall posts one tools/call with arguments written as raw JSON bytes,
// as a hostile client would, and returns the tool result.
func rawCall(t *testing.T, e *env, key issuer.APIKey, tool, args string) (isError bool, text string, structured json.RawMessage) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
	req, _ := http.NewRequest("POST", e.srv.URL+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+string(key))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode == http.StatusBadRequest && strings.HasPrefix(res.Header.Get("Content-Type"), "application/problem+json") {
		// The frame itself was refused before any tool saw it (JSON
		// outside I-JSON anywhere in the message): the same problem
		// details, as the transport's answer.
		var p problem.Details
		if err := json.Unmarshal(b, &p); err != nil {
			t.Fatalf("%s %s: %v", tool, args, err)
		}
		pb, _ := json.Marshal(p)
		return true, string(pb), pb
	}
	var msg struct {
		Result *struct {
			IsError           bool `json:"isError"`
			Content           []struct{ Text string }
			StructuredContent json.RawMessage `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &msg); err != nil || msg.Result == nil || len(msg.Result.Content) == 0 {
		t.Fatalf("%s %s: status %d, answer %s", tool, args, res.StatusCode, b)
	}
	return msg.Result.IsError, msg.Result.Content[0].Text, msg.Result.StructuredContent
}

// TestHostileToolArguments calls every tool with malformed, wrongly typed
// and wrongly encoded arguments: each is refused through the decoder of the
// HTTP API, as a tool error carrying the problem details of the shared
// vocabulary, and no message names a Go field or type.
func TestHostileToolArguments(t *testing.T) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		key, _ := e.agent("agent")
		_, other := e.agent("other")
		mem := `"mem_aaaaaaaaaaaaaaaaaaaaaaaaaa"`
		agent := `"` + string(other.AgentID) + `"`
		// find_agents refuses an unknown member as its route refuses an
		// unknown query parameter: most likely a context dimension the
		// trust model does not define.
		tools := []struct {
			tool, valid, wrongType string
			unknown                issuer.Code
		}{
			{"feedback_memory", `{"memoryId":` + mem + `,"type":"useful"}`, `{"memoryId":7,"type":"useful"}`, issuer.CodeJSONUnknownMember},
			{"get_memory_validations", `{"memoryId":` + mem + `}`, `{"memoryId":[` + mem + `]}`, issuer.CodeJSONUnknownMember},
			{"get_agent_profile", `{}`, `[]`, issuer.CodeJSONUnknownMember},
			{"get_agent_reputation", `{"publicId":` + agent + `}`, `{"publicId":` + agent + `,"limit":1e308}`, issuer.CodeJSONUnknownMember},
			{"get_agent_passport", `{"publicId":` + agent + `}`, `{"publicId":` + agent + `,"disclose":["all"]}`, issuer.CodeJSONUnknownMember},
			{"verify_passport", `{"bundle":"{}","anySubject":true}`, `{"bundle":"{}","anySubject":"yes"}`, issuer.CodeJSONUnknownMember},
			{"find_agents", `{"skill":"PostgreSQL indexing"}`, `{"skill":"PostgreSQL indexing","limit":"5"}`, issuer.CodeUnknownDimension},
			{"holder_key_nonce", `{}`, `[]`, issuer.CodeJSONUnknownMember},
			{"set_holder_keys", `{"keys":[]}`, `{"keys":{}}`, issuer.CodeJSONUnknownMember},
		}
		for _, tt := range tools {
			t.Run(tt.tool, func(t *testing.T) {
				open := tt.valid[:len(tt.valid)-1]
				sep := ","
				if open == "{" {
					sep = ""
				}
				cases := []struct {
					name string
					args string
					code issuer.Code
				}{
					{"wrong type", tt.wrongType, issuer.CodeJSONWrongType},
					{"unknown member", open + sep + `"weight":1}`, tt.unknown},
					{"case variant", open + sep + `"Limit":1}`, tt.unknown},
					{"case-variant duplicate", open + sep + `"x":1,"X":2}`, issuer.CodeJSONDuplicateKey},
					{"lone surrogate", open + sep + `"x":"\udc00"}`, issuer.CodeJSONLoneSurrogate},
					{"huge integer", open + sep + `"x":123456789012345678901234}`, issuer.CodeJSONNumberRange},
					{"too deep", `{"x":[[[[[[[[[[1]]]]]]]]]]}`, issuer.CodeJSONTooDeep},
				}
				for _, c := range cases {
					t.Run(c.name, func(t *testing.T) {
						isErr, text, structured := rawCall(t, e, key, tt.tool, c.args)
						if !isErr {
							t.Fatalf("accepted %s: %s", c.args, text)
						}
						var p problem.Details
						if err := json.Unmarshal([]byte(text), &p); err != nil {
							t.Fatalf("tool error %q is not problem details", text)
						}
						if p.Code != c.code || p.Type != problem.TypeURI(c.code) || p.Status != 400 || p.Title == "" || p.Detail == "" {
							t.Fatalf("tool error %+v, want %s", p, c.code)
						}
						if string(structured) != text {
							t.Fatalf("structured %s differs from text %s", structured, text)
						}
						for _, leak := range []string{"Input", "*int", "int64", "float64", "struct", "Go "} {
							if strings.Contains(p.Detail, leak) {
								t.Fatalf("detail %q shows Go names", p.Detail)
							}
						}
					})
				}
			})
		}
		// The probe: limit 1e308 named a Go struct field and type.
		_, text, _ := rawCall(t, e, key, "get_agent_reputation", `{"publicId":`+agent+`,"limit":1e308}`)
		if !strings.Contains(text, "limit must be an integer") {
			t.Fatalf("limit 1e308: %s", text)
		}
	})
}
