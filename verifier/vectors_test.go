package verifier_test

import (
	"context"
	"testing"

	"github.com/remnant/passportkit/vectors"
	"github.com/remnant/passportkit/verifier"
)

// vectorVerifier returns a verifier of the vectors' trust file, read as a
// third party reads it, and every vector.
func vectorVerifier(t testing.TB) (*verifier.Verifier, []vectors.Case) {
	t.Helper()
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
	return v, cases
}

// TestVectors runs every conformance vector through the verifier: a
// bundle with Verify, a presentation with VerifyPresentation.
func TestVectors(t *testing.T) {
	v, cases := vectorVerifier(t)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			policy := verifier.AnySubject().At(c.At)
			if c.StatusList != nil {
				policy = policy.WithStatusList(v.ReadStatusList(c.StatusList))
			}
			res, err := c.Run(context.Background(), v, policy)
			if err != nil {
				t.Fatal(err)
			}
			if res.Verified != c.Verified || string(res.Reason) != c.Reason {
				t.Fatalf("verified %v reason %s, want %v %s (%s)", res.Verified, res.Reason, c.Verified, c.Reason, failing(res))
			}
			if len(res.Checks) != len(c.Checks) {
				t.Fatalf("%d checks, want %d", len(res.Checks), len(c.Checks))
			}
			for i, want := range c.Checks {
				if got := res.Checks[i]; string(got.Name) != want.Name || string(got.Reason) != want.Reason || got.OK != (want.Reason == "ok") {
					t.Errorf("check %d: %s %s ok=%v, want %s %s", i, got.Name, got.Reason, got.OK, want.Name, want.Reason)
				}
			}
			if !c.Verified {
				if got := failing(res); got != c.Check {
					t.Errorf("failing check %s, want %s", got, c.Check)
				}
				if res.Passport != nil || res.Evidence != nil || res.Issuer != "" || res.Subject != "" || res.PassportHash != "" || res.EvidenceRoot != "" || res.HolderKey != "" {
					t.Errorf("an unverified result carries passport content: %+v", res)
				}
				return
			}
			if res.Passport == nil || res.PassportHash == "" || res.Subject == "" || res.KeyID == "" {
				t.Errorf("a verified result lacks its passport: %+v", res)
			}
			if (c.PresentedTo != nil) != (res.HolderKey != "") {
				t.Errorf("holder key %q in the result of a case presented %v", res.HolderKey, c.PresentedTo != nil)
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
		if !c.OK && !c.Skipped() {
			return string(c.Name)
		}
	}
	return ""
}

// TestTrustFileVectors checks the trust-file cases: a key of small order is
// refused with the file, and a key that is not a point, or is written with
// y ≥ p, is not (SPEC.md §8, §10).
func TestTrustFileVectors(t *testing.T) {
	files, err := vectors.LoadTrustFiles(vectors.FS)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no trust-file cases")
	}
	for _, c := range files {
		_, err := verifier.ParseTrust(c.File)
		if (err == nil) != c.Accepted {
			t.Errorf("%s: ParseTrust error %v, want accepted %v", c.Name, err, c.Accepted)
		}
	}
}
