package verifier_test

import (
	"context"
	"testing"
	"time"

	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/vectors"
	"github.com/remnant/passportkit/verifier"
)

// FuzzVerify feeds mutated bundles to the verifier. It must never panic,
// never carry a passport in an unverified result, and report exactly one
// failed check or none.
func FuzzVerify(f *testing.F) {
	trustJSON, cases, err := vectors.Load(vectors.FS)
	if err != nil {
		f.Fatal(err)
	}
	for _, c := range cases {
		if c.Bundle != nil && len(c.Bundle) < 64<<10 {
			f.Add(c.Bundle)
		}
	}
	trust, err := verifier.ParseTrust(trustJSON)
	if err != nil {
		f.Fatal(err)
	}
	at := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	v, err := verifier.New(trust)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		res, err := v.Verify(context.Background(), in, verifier.AnySubject().At(at))
		if err != nil {
			t.Fatal(err)
		}
		failed := failedChecks(res)
		switch {
		case res.Verified && (failed != 0 || res.Passport == nil):
			t.Fatalf("verified with %d failed checks", failed)
		case !res.Verified && (failed != 1 || res.Passport != nil || res.Subject != "" || res.Issuer != ""):
			t.Fatalf("unverified result with %d failed checks or passport content", failed)
		case len(res.Checks) != len(verifier.CheckNames()):
			t.Fatalf("%d checks reported", len(res.Checks))
		}
	})
}

// failedChecks counts the checks of res that ran and failed.
func failedChecks(res *verifier.Result) int {
	failed := 0
	for _, c := range res.Checks {
		if !c.OK && c.Reason != passport.ReasonNotReached && !c.Skipped() {
			failed++
		}
	}
	return failed
}
