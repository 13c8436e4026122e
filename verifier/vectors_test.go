package verifier_test

import (
	"context"
	"testing"

	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/vectors"
	"github.com/remnant/passportkit/verifier"
)

// TestVectors runs every conformance vector through the verifier.
func TestVectors(t *testing.T) {
	trustJSON, cases, err := vectors.Load(vectors.FS)
	if err != nil {
		t.Fatal(err)
	}
	trust, err := verifier.ParseTrust(trustJSON)
	if err != nil {
		t.Fatal(err)
	}
	v, err := verifier.New(trust)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			res, err := v.Verify(context.Background(), c.Bundle, verifier.AnySubject().At(c.At))
			if err != nil {
				t.Fatal(err)
			}
			if res.Verified != c.Verified || string(res.Reason) != c.Reason {
				t.Fatalf("verified %v reason %s, want %v %s (%s)", res.Verified, res.Reason, c.Verified, c.Reason, failing(res))
			}
			if !c.Verified {
				if got := failing(res); got != c.Check {
					t.Errorf("failing check %s, want %s", got, c.Check)
				}
				if res.Passport != nil || res.Evidence != nil || res.Issuer != "" || res.Subject != "" || res.PassportHash != "" || res.EvidenceRoot != "" {
					t.Errorf("an unverified result carries passport content: %+v", res)
				}
				return
			}
			if res.Passport == nil || res.PassportHash == "" || res.Subject == "" || res.KeyID == "" {
				t.Errorf("a verified result lacks its passport: %+v", res)
			}
			if _, err := res.Decode(); err != nil {
				t.Errorf("Decode: %v", err)
			}
		})
	}
}

// failing returns the name of the first failed check, or "".
func failing(res *verifier.Result) string {
	for _, c := range res.Checks {
		if !c.OK && c.Reason != passport.ReasonNotRequired {
			return string(c.Name)
		}
	}
	return ""
}
