package verifier_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/verifier"
)

// TestCache checks that a Cache rebuilds its Verifier exactly when the trust
// file's bytes change: the same bytes give the same Verifier, a file with
// the new key verifies what the new key signed, and a file that does not
// parse is refused without losing the kept Verifier.
func TestCache(t *testing.T) {
	trustFile := func(k *passport.PrivateKey) []byte {
		tr, err := verifier.NewTrust("https://issuer.example", verifier.TrustedKey{Key: k.Public()})
		if err != nil {
			t.Fatal(err)
		}
		b, err := tr.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	oldKey, _ := passport.NewPrivateKey(passport.EdDSA, bytes.Repeat([]byte{1}, 32))
	newKey, _ := passport.NewPrivateKey(passport.EdDSA, bytes.Repeat([]byte{2}, 32))
	p := benchPassport(1, 1)
	signed, err := passport.NewSigner(newKey).Sign(p, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	policy := verifier.AnySubject().At(p.ExpiresAt.Add(-1))

	c := verifier.NewCache()
	first, err := c.For(trustFile(oldKey))
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := c.For(bytes.Clone(trustFile(oldKey))); again != first {
		t.Errorf("the same trust file built a new Verifier")
	}
	if res, _ := first.Verify(context.Background(), signed, policy); res.Reason != passport.ReasonKeyUnknown {
		t.Errorf("under the old trust file: %s, want %s", res.Reason, passport.ReasonKeyUnknown)
	}
	rotated, err := c.For(trustFile(newKey))
	if err != nil || rotated == first {
		t.Fatalf("a new trust file kept the old Verifier (%v)", err)
	}
	if res, _ := rotated.Verify(context.Background(), signed, policy); !res.Verified {
		t.Errorf("under the new trust file: %s", res.Reason)
	}
	if _, err := c.For([]byte(`{"issuer":`)); err == nil {
		t.Errorf("a broken trust file was accepted")
	}
	if kept, _ := c.For(trustFile(newKey)); kept != rotated {
		t.Errorf("a broken trust file dropped the kept Verifier")
	}
}
