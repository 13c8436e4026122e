package verifier_test

import (
	"context"
	"errors"
	"testing"

	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/vectors"
	"github.com/remnant/passportkit/verifier"
)

// TestPolicySubject pins that the subject choice is explicit: the zero
// Policy is refused, AnySubject reports the subject check as not_required
// (never ok), and ForSubject checks the id.
func TestPolicySubject(t *testing.T) {
	v, cases := vectorVerifier(t)
	var c *vectors.Case
	for i := range cases {
		if cases[i].Verified {
			c = &cases[i]
			break
		}
	}
	if c == nil {
		t.Fatal("no verified vector")
	}
	ctx := context.Background()
	any, err := v.Verify(ctx, c.Bundle, verifier.AnySubject().At(c.At))
	if err != nil || !any.Verified {
		t.Fatalf("AnySubject: %v %+v", err, any)
	}
	subject := any.Subject

	tests := []struct {
		name     string
		policy   verifier.Policy
		err      error
		verified bool
		ok       bool
		reason   passport.Reason
	}{
		{"zero policy", verifier.Policy{}.At(c.At), verifier.ErrPolicy, false, false, ""},
		{"empty subject", verifier.ForSubject("").At(c.At), verifier.ErrPolicy, false, false, ""},
		{"any subject", verifier.AnySubject().At(c.At), nil, true, false, passport.ReasonNotRequired},
		{"this subject", verifier.ForSubject(subject).At(c.At), nil, true, true, passport.ReasonOK},
		{"another subject", verifier.ForSubject("agt_someoneElse").At(c.At), nil, false, false, passport.ReasonSubjectMismatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := v.Verify(ctx, c.Bundle, tt.policy)
			if !errors.Is(err, tt.err) {
				t.Fatalf("err %v, want %v", err, tt.err)
			}
			if err != nil {
				return
			}
			c := res.Check(verifier.CheckSubject)
			if res.Verified != tt.verified || c.Name != verifier.CheckSubject || c.OK != tt.ok || c.Reason != tt.reason {
				t.Fatalf("verified %v, subject check %+v; want %v ok=%v %s", res.Verified, c, tt.verified, tt.ok, tt.reason)
			}
		})
	}
}
