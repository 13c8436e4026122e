package mcpserver

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/internal/mcpwire"
	"github.com/remnant/passportkit/issuer"
	"github.com/remnant/passportkit/passport"
)

// FuzzVerifyArguments reads arbitrary arguments of verify_passport as the
// tool does: a refusal is always a caller's error with its code, never an
// internal one; an accepted bundle is at most passport.MaxBundleSize bytes
// and a presentation passport.MaxPresentationSize, the latter only with
// an audience and a nonce; and one given as a string is verified as
// exactly its bytes.
func FuzzVerifyArguments(f *testing.F) {
	for _, s := range []string{
		`{"bundle":"{}","anySubject":true}`,
		`{"bundle":{"b":[1,2.5e3],"a":"\u00e9"},"subject":"agt_aaaaaaaaaaaaaaaaaaaaaaaaaa","at":"2026-01-02T03:04:05Z"}`,
		`{"bundle":{"a":1e400},"anySubject":true}`, `{"bundle":{"a":1,"a":2},"anySubject":true}`,
		`{"bundle":null,"anySubject":true}`, `{"bundle":7}`, `{"bundle":"x","subject":"agt_x","anySubject":true}`,
		`{"bundle":"x","at":"yesterday","anySubject":true}`, `{"Bundle":"x","bundle":"y"}`, `{}`, `[]`,
		`{"presentation":"{}","aud":"https://rp.example","nonce":"n","maxAge":60,"anySubject":true}`,
		`{"presentation":{"bundle":{}},"aud":"a","anySubject":true}`, `{"bundle":"{}","nonce":"n","anySubject":true}`,
		`{"bundle":"{}","presentation":"{}","aud":"a","nonce":"n","anySubject":true}`, `{"presentation":"x","aud":"a","nonce":"n","maxAge":-1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		caller := callerError(t, args)
		var in VerifyInput
		if err := issuer.Decode(args, MaxVerifyMessage, &in); err != nil {
			caller(err)
			return
		}
		if _, err := verifyPolicy(in); err != nil {
			caller(err)
		}
		pp, err := presentationPolicy(in)
		if err != nil {
			caller(err)
			return
		}
		b, err := verifiedInput(in)
		if err != nil {
			caller(err)
			return
		}
		raw, limit := in.Bundle, passport.MaxBundleSize
		if pp != nil {
			raw, limit = in.Presentation, passport.MaxPresentationSize
		}
		if len(b) > limit || len(in.Bundle) > 0 && len(in.Presentation) > 0 {
			t.Fatalf("%q: an input of %d bytes was accepted", args, len(b))
		}
		if raw[0] == '"' {
			var s string
			if err := json.Unmarshal(raw, &s); err != nil || s != string(b) {
				t.Fatalf("%q: the string %q gave the input %q", args, s, b)
			}
		}
	})
}

// FuzzTrustToolArguments reads arbitrary arguments of get_skill_trust,
// get_skill_evidence and assess_trust as the tools do: a refusal is always
// a caller's error with its code; accepted arguments are within the
// bounds of the route that answers the same read.
func FuzzTrustToolArguments(f *testing.F) {
	for _, s := range []string{
		`{"publicId":"agt_aaaaaaaaaaaaaaaaaaaaaaaaaa","skill":"PostgreSQL indexing","context":{"workload":"oltp"},"limit":3,"cursor":"AbC-_9"}`,
		`{"publicId":"agt_x","skill":" ","context":{"colour":"red"},"limit":0,"offset":1001}`,
		`{"skill":"x","offset":0,"cursor":""}`, `{"skill":"x","context":{"Workload":"a","workload":"b"}}`,
		`{"skill":"x","limit":2.5}`, `{"skill":"x","context":null,"limit":null}`, `{"skill":"x","context":{"version":"\u200b"}}`,
		`{"agents":["agt_aaaaaaaaaaaaaaaaaaaaaaaaaa"],"skills":["a","A"],"context":{"domain":"db"}}`, `{}`, `[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		caller := callerError(t, args)
		var ev EvidenceInput
		if err := issuer.Decode(args, MaxMessage, &ev); err != nil {
			caller(err)
		} else if q, err := issuer.NewEvidenceQuery(ev.Skill, ev.Context, ev.Limit, ev.Offset, ev.Cursor); err != nil {
			caller(err)
		} else if q.Skill == "" || q.Limit < 1 || q.Limit > issuer.MaxEvidenceLimit || q.Offset < 0 || q.Offset > issuer.MaxEvidenceOffset ||
			len(q.Cursor) > issuer.MaxCursor || q.Cursor != "" && ev.Offset != nil {
			t.Fatalf("%q: accepted %+v", args, q)
		}
		var st SkillTrustInput
		if err := issuer.Decode(args, MaxMessage, &st); err != nil {
			caller(err)
		} else if q, err := issuer.NewTrustQuery(st.Skill, st.Context); err != nil {
			caller(err)
		} else if q.Skill == "" || len(q.Skill) > issuer.MaxClaimBytes {
			t.Fatalf("%q: accepted %+v", args, q)
		}
		if r, err := issuer.ParseAssessRequest(args); err != nil {
			caller(err)
		} else if len(r.Agents) == 0 || len(r.Agents) > issuer.MaxAssessAgents || len(r.Skills) == 0 || len(r.Skills) > issuer.MaxAssessSkills {
			t.Fatalf("%q: accepted %+v", args, r)
		}
	})
}

// FuzzFindAgentsArguments reads arbitrary arguments of find_agents as the
// tool does: a refusal is always a caller's error with its code; an
// accepted query is within the route's bounds; and arguments that can be
// written as the route's query string (string members, a limit of digits)
// give, written so, the same query or the same refusal, word for word.
func FuzzFindAgentsArguments(f *testing.F) {
	for _, s := range []string{
		`{"skill":"PostgreSQL indexing","workload":"oltp","limit":5,"cursor":"AbC-_9"}`,
		`{"skill":"x","colour":"red"}`, `{"zeta":"1","skill":" ","Alpha":"2"}`, `{"workload":"oltp"}`, `{"skill":"x","domain":""}`,
		`{"skill":"x","limit":0}`, `{"skill":"x","limit":101,"cursor":""}`, `{"limit":99999999999}`, `{"skill":"x","limit":-1}`,
		`{"skill":null,"limit":null}`, `{"skill":"x","colour":null}`, `{"skill":"a\u0000b"}`, `{"Skill":"x"}`, `{"skill":"x","Skill":"y"}`, `{}`, `[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		caller := callerError(t, args)
		var in issuer.FindAgentsRequest
		if err := issuer.Decode(args, MaxMessage, &in); err != nil {
			caller(err)
			return
		}
		q, err := in.Query()
		if err != nil {
			caller(err)
		} else if q.Limit < 1 || q.Limit > issuer.MaxFindAgentsLimit || len(q.Skill) > issuer.MaxClaimBytes ||
			len(q.Cursor) > issuer.MaxFindAgentsCursor || q.Skill == "" && q.Context != (evidence.Context{}) {
			t.Fatalf("%q: accepted %+v", args, q)
		}
		raw, ok := asQueryString(args)
		if !ok {
			return
		}
		hq, herr := issuer.ParseFindAgentsQuery(raw)
		if (err == nil) != (herr == nil) || err != nil && err.Error() != herr.Error() || err == nil && q != hq {
			t.Fatalf("%q: the tool read %+v, %v; the query string %q %+v, %v", args, q, err, raw, hq, herr)
		}
	})
}

// asQueryString writes a JSON object as the query string of the same
// find_agents query, when it can be: each member of the query a string,
// or null (absent), limit also an integer of digits alone; any other
// member, whatever its value, a parameter of that name; and the whole
// within the bound of a query string.
func asQueryString(args []byte) (string, bool) {
	var members map[string]json.RawMessage
	if json.Unmarshal(args, &members) != nil {
		return "", false
	}
	known := append([]string{"skill", "limit", "cursor"}, evidence.Dimensions...)
	v := url.Values{}
	for name, raw := range members {
		var s string
		switch {
		case !slices.Contains(known, name):
			v.Set(name, "")
		case string(raw) == "null":
		case json.Unmarshal(raw, &s) == nil:
			v.Set(name, s)
		case name == "limit" && strings.Trim(string(raw), "0123456789") == "":
			v.Set(name, string(raw))
		default:
			return "", false
		}
	}
	raw := v.Encode()
	return raw, len(raw) <= issuer.MaxQuery
}

// callerError returns a check that a refusal of args is a caller's error
// with its code, never an internal one.
func callerError(t *testing.T, args []byte) func(error) {
	return func(err error) {
		t.Helper()
		if code := issuer.ErrorCode(err); code == issuer.CodeInternal || code == "" {
			t.Fatalf("%q: %v is not a caller's error", args, err)
		}
	}
}

// FuzzMessageBound checks the transport's choice of a message's bound
// against encoding/json: the larger bound only for a tools/call request
// (with an id) whose params name verify_passport exactly.
func FuzzMessageBound(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"verify_passport","arguments":{}}}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"verify_passport"}}`,
		`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"Name":"verify_passport"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"verify_pas\u0073port"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":["verify_passport"]}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"name":"verify_passport"}}`,
		`{"jsonrpc":"2.0","id":5,"result":{"name":"verify_passport"}}`,
	} {
		f.Add([]byte(s))
	}
	tr := Transport{bounds: map[string]int{"verify_passport": MaxVerifyMessage}, largest: MaxVerifyMessage}
	f.Fuzz(func(t *testing.T, frame []byte) {
		msg, err := mcpwire.Decode(frame)
		if err != nil {
			return
		}
		want := MaxMessage
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() && req.Method == "tools/call" {
			var params map[string]json.RawMessage
			var name string
			if json.Unmarshal(req.Params, &params) == nil && json.Unmarshal(params["name"], &name) == nil && name == "verify_passport" {
				want = MaxVerifyMessage
			}
		}
		if got := tr.bound(msg); got != want {
			t.Fatalf("%q: bound %d, want %d", frame, got, want)
		}
	})
}

// BenchmarkMessageBound measures what choosing the bound of a frame over
// MaxMessage adds to reading it: bound on a verify_passport call of
// MaxVerifyMessage bytes, its name before the arguments (as clients write
// it) and after them, with mcpwire.Decode of the same frame, which every
// message pays, as the baseline of the same run.
func BenchmarkMessageBound(b *testing.B) {
	tr := Transport{bounds: map[string]int{"verify_passport": MaxVerifyMessage}, largest: MaxVerifyMessage}
	frame := func(nameFirst bool) []byte {
		name, args := `"name":"verify_passport"`, `"arguments":{"anySubject":true,"bundle":"`
		head, tail := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{`+name+`,`+args, `"}}}`
		if !nameFirst {
			head, tail = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{`+args, `"},`+name+`}}`
		}
		unit := `{\"a\":[1,2,3],\"b\":\"x\"}`
		return []byte(head + strings.Repeat(unit, (MaxVerifyMessage-len(head)-len(tail))/len(unit)) + tail)
	}
	first, last := frame(true), frame(false)
	for _, c := range []struct {
		name  string
		frame []byte
		bound bool
	}{
		{"decode", first, false},
		{"bound-name-first", first, true},
		{"bound-name-last", last, true},
	} {
		msg, err := mcpwire.Decode(c.frame)
		if err != nil || tr.bound(msg) != MaxVerifyMessage {
			b.Fatalf("%s: %v", c.name, err)
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.frame)))
			for b.Loop() {
				if !c.bound {
					if _, err := mcpwire.Decode(c.frame); err != nil {
						b.Fatal(err)
					}
				} else if tr.bound(msg) != MaxVerifyMessage {
					b.Fatal("bound")
				}
			}
		})
	}
}
