package verifier_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/remnant/passportkit/passport"
	"github.com/remnant/passportkit/verifier"
)

// TestVerifySummarySignature checks a summary signature as a check with a
// reason, like every other.
func TestVerifySummarySignature(t *testing.T) {
	key, err := passport.NewPrivateKey(passport.EdDSA, bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	other, err := passport.NewPrivateKey(passport.EdDSA, bytes.Repeat([]byte{8}, 32))
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 10, 22, 0, 0, 0, 0, time.UTC)
	newVerifier := func(k *passport.PrivateKey, nb time.Time) *verifier.Verifier {
		trust, err := verifier.NewTrust("agent:buyer-7", verifier.TrustedKey{Key: k.Public(), NotBefore: nb})
		if err != nil {
			t.Fatal(err)
		}
		v, err := verifier.New(trust)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	id := "8aada17d" + string(bytes.Repeat([]byte("0"), 56))
	sign := func(payload, typ string) []byte {
		jws, err := passport.NewSigner(key).SignCompact([]byte(payload), typ)
		if err != nil {
			t.Fatal(err)
		}
		return []byte(jws)
	}
	good := sign(id, passport.SummaryJWSType)
	tests := []struct {
		name   string
		v      *verifier.Verifier
		jws    []byte
		asOf   time.Time
		reason passport.Reason
	}{
		{"ok", newVerifier(key, time.Time{}), good, day, passport.ReasonOK},
		{"another id", newVerifier(key, time.Time{}), sign("ff"+id[2:], passport.SummaryJWSType), day, passport.ReasonSummaryIDMismatch},
		{"passport typ", newVerifier(key, time.Time{}), sign(id, passport.JWSType), day, passport.ReasonJWSType},
		{"unknown key", newVerifier(other, time.Time{}), good, day, passport.ReasonKeyUnknown},
		{"key not yet valid", newVerifier(key, day.Add(24*time.Hour)), good, day, passport.ReasonKeyWindow},
		{"key window, no day", newVerifier(key, day), good, time.Time{}, passport.ReasonKeyWindow},
		{"key valid that day", newVerifier(key, day.Add(12*time.Hour)), good, day, passport.ReasonOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.v.VerifySummarySignature(tt.jws, id, tt.asOf)
			if got.Name != verifier.CheckSummarySignature || got.Reason != tt.reason || got.OK != (tt.reason == passport.ReasonOK) {
				t.Fatalf("got %+v, want reason %s", got, tt.reason)
			}
			if tt.reason != passport.ReasonKeyUnknown && tt.reason != passport.ReasonJWSType && got.KeyID == "" {
				t.Errorf("no kid: %+v", got)
			}
		})
	}
}
