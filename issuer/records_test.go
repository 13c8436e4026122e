package issuer_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/remnant/passportkit/evidence"
	"github.com/remnant/passportkit/issuer"
)

func TestParseOutcome(t *testing.T) {
	o, err := issuer.ParseOutcome([]byte(`{"outcome":"partial","context":{"environment":" prod ","version":""},"idempotencyKey":"k"}`))
	if err != nil {
		t.Fatal(err)
	}
	if o.Outcome != evidence.OutcomePartial || o.Context != (evidence.Context{Environment: "prod"}) || o.IdempotencyKey != "k" {
		t.Fatalf("%+v", o)
	}
	long := strings.Repeat("é", 101) // 202 bytes, 101 characters
	for _, bad := range []string{
		`{}`,
		`{"outcome":"Success"}`,
		`{"outcome":"used_successfully"}`,
		`{"outcome":"success","context":{"domain":"` + long + `"}}`,
		`{"outcome":"success","context":{"workload":"a\nb"}}`,
		`{"outcome":"success","idempotencyKey":""}`,
	} {
		if _, err := issuer.ParseOutcome([]byte(bad)); issuer.ErrorCode(err) != issuer.CodeInvalid {
			t.Errorf("%s: %v", bad, err)
		}
	}
	for bad, code := range map[string]issuer.Code{
		`{"outcome":"success","context":{"region":"eu"}}`: issuer.CodeJSONUnknownMember,
		`{"outcome":"success","weight":1}`:                issuer.CodeJSONUnknownMember,
		`{"outcome":"success","context":"prod"}`:          issuer.CodeJSONWrongType,
		`{"outcome":"success","Outcome":"failure"}`:       issuer.CodeJSONDuplicateKey,
	} {
		if _, err := issuer.ParseOutcome([]byte(bad)); issuer.ErrorCode(err) != code {
			t.Errorf("%s: %v, want %s", bad, err, code)
		}
	}
	// The fingerprint separates outcomes, contexts and memories.
	a := issuer.OutcomeReport{Outcome: evidence.OutcomeSuccess}
	b := issuer.OutcomeReport{Outcome: evidence.OutcomeSuccess, Context: evidence.Context{Domain: "x"}}
	if a.Fingerprint("mem_a") == b.Fingerprint("mem_a") || a.Fingerprint("mem_a") == a.Fingerprint("mem_b") {
		t.Fatal("fingerprints collide")
	}
}

func TestParseCapabilities(t *testing.T) {
	caps, err := issuer.ParseCapabilities([]byte(`{"capabilities":[" sql ","power bi","sql"]}`))
	if err != nil || strings.Join(caps, "|") != "sql|power bi" {
		t.Fatal(caps, err)
	}
	if caps, err := issuer.ParseCapabilities([]byte(`{"capabilities":[]}`)); err != nil || len(caps) != 0 {
		t.Fatal("an empty list must clear the capabilities", caps, err)
	}
	many := `"c"` + strings.Repeat(`,"c"`, issuer.MaxCapabilities)
	for _, bad := range []string{`{}`, `{"capabilities":[""]}`, `{"capabilities":["` + strings.Repeat("é", 101) + `"]}`,
		`{"capabilities":["a\u200bb"]}`, `{"capabilities":[` + many + `]}`} {
		if _, err := issuer.ParseCapabilities([]byte(bad)); issuer.ErrorCode(err) != issuer.CodeInvalid {
			t.Errorf("%.60s: %v", bad, err)
		}
	}
}

func FuzzParseOutcome(f *testing.F) {
	f.Add([]byte(`{"outcome":"success","context":{"domain":"finance","environment":"prod"},"idempotencyKey":"k"}`))
	f.Add([]byte(`{"outcome":"uncertain"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		o, err := issuer.ParseOutcome(body)
		if err != nil {
			checkCallerError(t, err)
			return
		}
		switch o.Outcome {
		case evidence.OutcomeSuccess, evidence.OutcomeFailure, evidence.OutcomePartial, evidence.OutcomeUncertain:
		default:
			t.Fatalf("accepted outcome %q", o.Outcome)
		}
		for _, v := range o.Context.Values() {
			if len(v) > issuer.MaxClaimBytes || !utf8.ValidString(v) || strings.TrimSpace(v) != v {
				t.Fatalf("accepted label %q", v)
			}
		}
	})
}

func FuzzParseCapabilities(f *testing.F) {
	f.Add([]byte(`{"capabilities":["sql tuning","power bi"]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		caps, err := issuer.ParseCapabilities(body)
		if err != nil {
			checkCallerError(t, err)
			return
		}
		seen := map[string]bool{}
		if len(caps) > issuer.MaxCapabilities {
			t.Fatalf("accepted %d capabilities", len(caps))
		}
		for _, c := range caps {
			if c == "" || len(c) > issuer.MaxCapabilityBytes || seen[c] || !utf8.ValidString(c) {
				t.Fatalf("accepted capability %q", c)
			}
			seen[c] = true
		}
	})
}
